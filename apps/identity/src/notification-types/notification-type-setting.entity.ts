import { Column, Entity, PrimaryColumn, UpdateDateColumn } from 'typeorm';
import type { NotificationChannel } from '@lms/contracts';

/** An account's enabled flags for one type of the catalogue; the type's texts live in code (notification-catalogue.ts). */
@Entity({ schema: 'identity', name: 'notification_type_settings' })
export class NotificationTypeSetting {
  @PrimaryColumn({ name: 'account_id', type: 'integer' })
  accountId: number;

  @PrimaryColumn({ name: 'notification_type', type: 'text' })
  notificationType: string;

  @Column({ type: 'jsonb' })
  channels: Partial<Record<NotificationChannel, boolean>>;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}
