import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn } from 'typeorm';

/** A division of an account (the spec's `CourseTemplateSubAccount`); every account has exactly one root. */
@Entity({ schema: 'identity', name: 'sub_accounts' })
export class SubAccount {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ name: 'account_id', type: 'integer' })
  accountId: number;

  @Column({ type: 'text' })
  name: string;

  @Column({ name: 'is_root', type: 'boolean', default: false })
  isRoot: boolean;

  /** Attributes this sub-account locks on the courses it owns (no endpoint sets them yet). */
  @Column({ name: 'locked_attributes', type: 'text', array: true, default: () => "'{}'" })
  lockedAttributes: string[];

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}
