import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';

/** A retain quiz of a completed enrollment, due `intervalDays` after the completion; complete once `endedAt` is set. */
@Entity({ schema: 'catalog', name: 'retain_quizzes' })
export class RetainQuiz {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ name: 'account_id', type: 'integer' })
  accountId: number;

  @Column({ name: 'enrollment_id', type: 'integer' })
  enrollmentId: number;

  @Column({ name: 'course_template_id', type: 'integer' })
  courseTemplateId: number;

  @Column({ name: 'user_id', type: 'integer' })
  userId: number;

  @Column({ name: 'interval_days', type: 'integer' })
  intervalDays: number;

  @Column({ name: 'due_at', type: 'timestamptz' })
  dueAt: Date;

  @Column({ type: 'real', default: 0 })
  progress: number;

  @Column({ type: 'integer', nullable: true })
  score: number | null;

  @Column({ name: 'current_question_id', type: 'text', nullable: true })
  currentQuestionId: string | null;

  @Column({ name: 'started_at', type: 'timestamptz', nullable: true })
  startedAt: Date | null;

  @Column({ name: 'ended_at', type: 'timestamptz', nullable: true })
  endedAt: Date | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}
