import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';

/** A task (checkpoint): work a learner does outside the course player, optionally approved. */
@Entity({ schema: 'catalog', name: 'tasks' })
export class Task {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ name: 'account_id', type: 'integer' })
  accountId: number;

  @Column({ name: 'sub_account_id', type: 'integer', nullable: true })
  subAccountId: number | null;

  @Column({ name: 'author_id', type: 'integer' })
  authorId: number;

  @Column({ type: 'text' })
  title: string;

  @Column({ type: 'text', nullable: true })
  instructions: string | null;

  @Column({ type: 'text', nullable: true })
  description: string | null;

  @Column({ name: 'structured_body', type: 'text', nullable: true })
  structuredBody: string | null;

  /** Learners may enroll themselves (open enrollment; docs/learner.md). */
  @Column({ name: 'open_enrollment', type: 'boolean', default: false })
  openEnrollment: boolean;

  /** The task's public enrollment id (its enrollment profile's `uuid`). */
  @Column({ type: 'uuid', default: () => 'gen_random_uuid()' })
  uuid: string;

  @Column({ name: 'is_published', type: 'boolean', default: false })
  isPublished: boolean;

  @Column({ name: 'has_unpublished_changes', type: 'boolean', default: true })
  hasUnpublishedChanges: boolean;

  @Column({ name: 'has_certificate', type: 'boolean', default: false })
  hasCertificate: boolean;

  @Column({ name: 'requires_approval', type: 'boolean', default: false })
  requiresApproval: boolean;

  @Column({ name: 'blocks_progress', type: 'boolean', default: false })
  blocksProgress: boolean;

  @Column({ name: 'requires_evidence', type: 'boolean', default: false })
  requiresEvidence: boolean;

  @Column({ type: 'jsonb', default: () => "'[]'" })
  attachments: unknown[];

  @Column({ name: 'default_approver_type', type: 'text', nullable: true })
  defaultApproverType: string | null;

  @Column({ name: 'default_approver_id', type: 'integer', nullable: true })
  defaultApproverId: number | null;

  @Column({ name: 'due_date_type', type: 'text', default: 'relative' })
  dueDateType: string;

  @Column({ name: 'default_due_on_date', type: 'date', nullable: true })
  defaultDueOnDate: string | null;

  @Column({ name: 'default_days_until_due', type: 'integer', default: 0 })
  defaultDaysUntilDue: number;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;

  @Column({ name: 'deleted_at', type: 'timestamptz', nullable: true })
  deletedAt: Date | null;
}
