import { Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';
import type { EnrollableType } from './enrollment.entity.js';

/** A group enrolled in an item: whoever joins the group later is enrolled with these settings. */
@Entity({ schema: 'catalog', name: 'group_enrollments' })
export class GroupEnrollment {
  @PrimaryColumn({ name: 'account_id', type: 'integer' })
  accountId: number;

  @PrimaryColumn({ name: 'group_id', type: 'integer' })
  groupId: number;

  @PrimaryColumn({ name: 'enrollable_type', type: 'text' })
  enrollableType: EnrollableType;

  @PrimaryColumn({ name: 'enrollable_id', type: 'integer' })
  enrollableId: number;

  @Column({ type: 'boolean', default: true })
  required: boolean;

  /** The due moment the request gave (`dueGiven`), else the course's defaults apply when each learner joins. */
  @Column({ name: 'due_at', type: 'timestamptz', nullable: true })
  dueAt: Date | null;

  @Column({ name: 'due_given', type: 'boolean', default: false })
  dueGiven: boolean;

  /** The sub-account the group was enrolled from; its later joiners' enrollments belong to it. */
  @Column({ name: 'sub_account_id', type: 'integer', nullable: true })
  subAccountId: number | null;

  @Column({ name: 'created_by', type: 'integer' })
  createdBy: number;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}
