import { Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * Projection of catalog's enrollment events: which enrollments of a learner are open and when each is
 * due, for the group learners' `next_due_date` (identity never reads catalog's schema). One row per
 * enrollment; an older event never overwrites a newer one (`eventTime`).
 */
@Entity({ schema: 'identity', name: 'learner_enrollments' })
export class LearnerEnrollment {
  @PrimaryColumn({ name: 'account_id', type: 'integer' })
  accountId: number;

  @PrimaryColumn({ name: 'enrollment_id', type: 'integer' })
  enrollmentId: number;

  @Column({ name: 'user_id', type: 'integer' })
  userId: number;

  /** Neither complete nor removed. */
  @Column({ type: 'boolean' })
  open: boolean;

  @Column({ name: 'due_at', type: 'timestamptz', nullable: true })
  dueAt: Date | null;

  @Column({ name: 'event_time', type: 'timestamptz' })
  eventTime: Date;
}
