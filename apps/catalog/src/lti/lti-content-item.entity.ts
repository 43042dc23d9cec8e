import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn } from 'typeorm';

/** An LTI 1.1 tool link of a course; a learner enrolled in the course is enrolled in the item. */
@Entity({ schema: 'catalog', name: 'lti_content_items' })
export class LtiContentItem {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ name: 'account_id', type: 'integer' })
  accountId: number;

  @Column({ name: 'course_template_id', type: 'integer' })
  courseTemplateId: number;

  @Column({ type: 'text' })
  title: string;

  @Column({ type: 'text', default: '' })
  description: string;

  @Column({ name: 'launch_url', type: 'text' })
  launchUrl: string;

  @Column({ name: 'consumer_key', type: 'text' })
  consumerKey: string;

  /** Signs launches; never answered. */
  @Column({ name: 'consumer_secret', type: 'text' })
  consumerSecret: string;

  @Column({ name: 'custom_field', type: 'text', default: '' })
  customField: string;

  @Column({ name: 'created_by', type: 'integer' })
  createdBy: number;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}
