import type { EnrollmentRemovalReason, EnrollmentState } from '@lms/contracts';
import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';

export type EnrollableType = 'CourseTemplate' | 'Task';

/** A learner's enrollment in a course template or task; a removed one (deletedAt) stays as history. */
@Entity({ schema: 'catalog', name: 'enrollments' })
export class Enrollment {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ name: 'account_id', type: 'integer' })
  accountId: number;

  @Column({ name: 'enrollable_type', type: 'text' })
  enrollableType: EnrollableType;

  @Column({ name: 'enrollable_id', type: 'integer' })
  enrollableId: number;

  @Column({ name: 'user_id', type: 'integer' })
  userId: number;

  @Column({ name: 'sub_account_id', type: 'integer', nullable: true })
  subAccountId: number | null;

  @Column({ type: 'boolean', default: true })
  required: boolean;

  /** assigned → active → complete (docs/catalog.md); overdue is derived from dueAt, removal from deletedAt. */
  @Column({ type: 'text', default: 'assigned' })
  state: EnrollmentState;

  @Column({ name: 'started_at', type: 'timestamptz', nullable: true })
  startedAt: Date | null;

  @Column({ name: 'completed_at', type: 'timestamptz', nullable: true })
  completedAt: Date | null;

  @Column({ name: 'due_at', type: 'timestamptz', nullable: true })
  dueAt: Date | null;

  @Column({ type: 'integer', nullable: true })
  score: number | null;

  @Column({ type: 'real', default: 0 })
  progress: number;

  @Column({ name: 'expires_at', type: 'timestamptz', nullable: true })
  expiresAt: Date | null;

  /** The group whose enrollment brought the learner in. */
  @Column({ name: 'group_id', type: 'integer', nullable: true })
  groupId: number | null;

  /** The program whose enrollment brought the learner in. */
  @Column({ name: 'program_id', type: 'integer', nullable: true })
  programId: number | null;

  @Column({ name: 'removal_reason', type: 'text', nullable: true })
  removalReason: EnrollmentRemovalReason | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;

  @Column({ name: 'deleted_at', type: 'timestamptz', nullable: true })
  deletedAt: Date | null;
}
