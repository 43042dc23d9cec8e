import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn } from 'typeorm';

/** A learner's live training: scheduling's live course enrollment as catalog knows it from events. */
@Entity({ schema: 'catalog', name: 'learner_live_enrollments' })
export class LearnerLiveEnrollment {
  /** Drawn from the enrollments' sequence: one id space for every learner course. */
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ name: 'account_id', type: 'integer' })
  accountId: number;

  @Column({ name: 'live_course_id', type: 'integer' })
  liveCourseId: number;

  @Column({ name: 'user_id', type: 'integer' })
  userId: number;

  @Column({ name: 'scheduling_enrollment_id', type: 'integer' })
  schedulingEnrollmentId: number;

  @Column({ name: 'completed_at', type: 'timestamptz', nullable: true })
  completedAt: Date | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @Column({ name: 'deleted_at', type: 'timestamptz', nullable: true })
  deletedAt: Date | null;
}
