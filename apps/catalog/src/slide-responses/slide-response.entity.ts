import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn } from 'typeorm';

/** One answer of a learner to a quiz slide, in one of their enrollments; attempts count 1, 2, … per enrollment and slide. */
@Entity({ schema: 'catalog', name: 'slide_responses' })
export class SlideResponse {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ name: 'account_id', type: 'integer' })
  accountId: number;

  @Column({ name: 'enrollment_id', type: 'integer' })
  enrollmentId: number;

  @Column({ name: 'course_template_id', type: 'integer' })
  courseTemplateId: number;

  @Column({ name: 'slide_id', type: 'integer' })
  slideId: number;

  @Column({ name: 'user_id', type: 'integer' })
  userId: number;

  @Column({ type: 'integer' })
  attempt: number;

  @Column({ name: 'choice_ids', type: 'text', array: true })
  choiceIds: string[];

  @Column({ type: 'boolean' })
  correct: boolean;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}
