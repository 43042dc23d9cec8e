import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn } from 'typeorm';
import type { ApprovalState } from '@lms/contracts';

/** Evidence a learner gave for a checkpoint enrollment. */
@Entity({ schema: 'catalog', name: 'checkpoint_evidence' })
export class CheckpointEvidence {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ name: 'account_id', type: 'integer' })
  accountId: number;

  @Column({ name: 'enrollment_id', type: 'integer' })
  enrollmentId: number;

  @Column({ name: 'user_id', type: 'integer' })
  userId: number;

  @Column({ type: 'text', nullable: true })
  text: string | null;

  @Column({ name: 'file_key', type: 'text', nullable: true })
  fileKey: string | null;

  @Column({ name: 'file_name', type: 'text', nullable: true })
  fileName: string | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}

/** One submission of a checkpoint for approval, decided once. */
@Entity({ schema: 'catalog', name: 'checkpoint_approvals' })
export class CheckpointApproval {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ name: 'account_id', type: 'integer' })
  accountId: number;

  @Column({ name: 'enrollment_id', type: 'integer' })
  enrollmentId: number;

  @Column({ name: 'task_id', type: 'integer' })
  taskId: number;

  /** The learner. */
  @Column({ name: 'user_id', type: 'integer' })
  userId: number;

  @Column({ type: 'text', default: 'pending' })
  state: ApprovalState;

  @Column({ name: 'approver_id', type: 'integer', nullable: true })
  approverId: number | null;

  @Column({ type: 'text', nullable: true })
  comment: string | null;

  @Column({ name: 'decided_at', type: 'timestamptz', nullable: true })
  decidedAt: Date | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}
