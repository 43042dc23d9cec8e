import { Column, Entity, PrimaryColumn } from 'typeorm';

export const COMPLETION_KINDS = ['course', 'program', 'live_course', 'task'] as const;
export type CompletionKind = (typeof COMPLETION_KINDS)[number];

/**
 * Projection of completion events (catalog, scheduling) that the user summary counts. One row per
 * enrollment: a later completion of the same enrollment replaces the earlier one.
 */
@Entity({ schema: 'identity', name: 'user_completions' })
export class UserCompletion {
  @PrimaryColumn({ name: 'account_id', type: 'integer' })
  accountId: number;

  @PrimaryColumn({ type: 'text' })
  kind: CompletionKind;

  @PrimaryColumn({ name: 'enrollment_id', type: 'integer' })
  enrollmentId: number;

  @Column({ name: 'user_id', type: 'integer' })
  userId: number;

  /** The course, program or live course id. */
  @Column({ name: 'source_id', type: 'integer' })
  sourceId: number;

  @Column({ name: 'completed_at', type: 'timestamptz' })
  completedAt: Date;

  @Column({ name: 'due_at', type: 'timestamptz', nullable: true })
  dueAt: Date | null;

  @Column({ name: 'event_id', type: 'uuid' })
  eventId: string;
}
