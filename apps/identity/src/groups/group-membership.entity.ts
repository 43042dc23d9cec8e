import { CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';

/** A user's membership of a group; the key makes a second add of the same member a no-op. */
@Entity({ schema: 'identity', name: 'group_memberships' })
export class GroupMembership {
  @PrimaryColumn({ name: 'account_id', type: 'integer' })
  accountId: number;

  @PrimaryColumn({ name: 'group_id', type: 'integer' })
  groupId: number;

  @PrimaryColumn({ name: 'user_id', type: 'integer' })
  userId: number;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}
