import { Column, Entity, PrimaryColumn, UpdateDateColumn } from 'typeorm';

/** A user's value of one of the account's custom fields (deleted with the field). */
@Entity({ schema: 'identity', name: 'user_custom_field_values' })
export class UserCustomFieldValue {
  @PrimaryColumn({ name: 'account_id', type: 'integer' })
  accountId: number;

  @PrimaryColumn({ name: 'user_id', type: 'integer' })
  userId: number;

  @PrimaryColumn({ name: 'custom_field_id', type: 'integer' })
  customFieldId: number;

  @Column({ type: 'text' })
  value: string;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}
