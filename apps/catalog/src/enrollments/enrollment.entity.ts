import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';

export type EnrollableType = 'CourseTemplate' | 'Task';

/** A learner's enrollment in a course template or task. The enrollment feature writes them; authoring counts them. */
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

  @Column({ type: 'text', default: 'assigned' })
  state: string;

  @Column({ name: 'started_at', type: 'timestamptz', nullable: true })
  startedAt: Date | null;

  @Column({ name: 'completed_at', type: 'timestamptz', nullable: true })
  completedAt: Date | null;

  @Column({ name: 'due_at', type: 'timestamptz', nullable: true })
  dueAt: Date | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;

  @Column({ name: 'deleted_at', type: 'timestamptz', nullable: true })
  deletedAt: Date | null;
}
