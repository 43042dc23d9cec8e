import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';
import type { SlideAttributesView } from '@lms/contracts';

/** An OrderedSlide: drafts (`draftAttributes`, `newPosition`, `estimatedTime`, `attachments`) that publishing copies to the published side. */
@Entity({ schema: 'catalog', name: 'slides' })
export class Slide {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ name: 'account_id', type: 'integer' })
  accountId: number;

  @Column({ name: 'course_template_id', type: 'integer' })
  courseTemplateId: number;

  @Column({ name: 'draft_attributes', type: 'jsonb' })
  draftAttributes: SlideAttributesView;

  @Column({ name: 'published_attributes', type: 'jsonb', nullable: true })
  publishedAttributes: SlideAttributesView | null;

  /** Draft position, 1..n among the live drafts; null once deleted (the deletion is published next). */
  @Column({ name: 'new_position', type: 'integer', nullable: true })
  newPosition: number | null;

  @Column({ type: 'integer', nullable: true })
  position: number | null;

  @Column({ name: 'estimated_time', type: 'integer', default: 0 })
  estimatedTime: number;

  @Column({ type: 'jsonb', default: () => "'[]'" })
  attachments: unknown[];

  /** `estimatedTime` as last published: what learners see (meaningful once `position` is set). */
  @Column({ name: 'published_estimated_time', type: 'integer', default: 0 })
  publishedEstimatedTime: number;

  /** `attachments` as last published: what learners see. */
  @Column({ name: 'published_attachments', type: 'jsonb', default: () => "'[]'" })
  publishedAttachments: unknown[];

  @Column({ name: 'published_at', type: 'timestamptz', nullable: true })
  publishedAt: Date | null;

  @Column({ name: 'removed_at', type: 'timestamptz', nullable: true })
  removedAt: Date | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}
