import { Column, CreateDateColumn, DeleteDateColumn, Entity, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';
import type { Role } from '@lms/contracts';

@Entity({ schema: 'identity', name: 'users' })
export class User {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ name: 'account_id', type: 'integer' })
  accountId: number;

  @Column({ type: 'text' })
  uid: string;

  @Column({ name: 'first_name', type: 'text', nullable: true })
  firstName: string | null;

  @Column({ name: 'last_name', type: 'text', nullable: true })
  lastName: string | null;

  @Column({ type: 'text', nullable: true })
  email: string | null;

  @Column({ type: 'text', array: true, default: () => "'{learner}'" })
  roles: Role[];

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;

  @DeleteDateColumn({ name: 'deleted_at', type: 'timestamptz', nullable: true })
  deletedAt: Date | null;

  @Column({ name: 'full_name', type: 'text', nullable: true })
  fullName: string | null;

  @Column({ name: 'sortable_name', type: 'text', nullable: true })
  sortableName: string | null;

  /** BCP 47 language tag, canonical form (`en-US`). */
  @Column({ type: 'text', nullable: true })
  locale: string | null;

  /** YYYY-MM-DD (TypeORM hydrates `date` columns as that text). */
  @Column({ name: 'hire_date', type: 'date', nullable: true })
  hireDate: string | null;

  @Column({ name: 'job_title', type: 'text', nullable: true })
  jobTitle: string | null;

  @Column({ type: 'text', nullable: true })
  department: string | null;

  @Column({ name: 'hris_id', type: 'text', nullable: true })
  hrisId: string | null;

  @Column({ name: 'manager_id', type: 'integer', nullable: true })
  managerId: number | null;

  @Column({ name: 'avatar_url', type: 'text', nullable: true })
  avatarUrl: string | null;

  /** Set by `DELETE ?async=true`; the deletion worker then sets deleted_at. */
  @Column({ name: 'deletion_requested_at', type: 'timestamptz', nullable: true })
  deletionRequestedAt: Date | null;

  /** A hidden (deleted) user is left out of every answer. */
  @Column({ name: 'hidden_at', type: 'timestamptz', nullable: true })
  hiddenAt: Date | null;
}
