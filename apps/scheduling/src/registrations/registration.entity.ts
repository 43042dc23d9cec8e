import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';

@Entity({ schema: 'scheduling', name: 'registrations' })
export class Registration {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ name: 'account_id', type: 'integer' })
  accountId: number;

  @Column({ name: 'session_id', type: 'integer' })
  sessionId: number;

  @Column({ name: 'user_id', type: 'integer' })
  userId: number;

  /** The check-in. */
  @Column({ name: 'marked_complete_at', type: 'timestamptz', nullable: true })
  markedCompleteAt: Date | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;

  /** Unregistered (the row stays, listed with the deleted flags). */
  @Column({ name: 'deleted_at', type: 'timestamptz', nullable: true })
  deletedAt: Date | null;
}
