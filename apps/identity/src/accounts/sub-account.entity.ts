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

  /** Set on sub-accounts made by a clone (docs/jobs.md "Sub-account clones"); unique with the accounts' subdomains. */
  @Column({ type: 'text', nullable: true })
  subdomain: string | null;

  /** The clone that made it, if one did. */
  @Column({ name: 'clone_id', type: 'uuid', nullable: true })
  cloneId: string | null;

  /** Hidden while its clone runs: shown once the clone is complete, removed if it fails. */
  @Column({ type: 'boolean', default: false })
  cloning: boolean;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}
