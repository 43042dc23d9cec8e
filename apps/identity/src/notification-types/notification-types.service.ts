import { Injectable } from '@nestjs/common';
import {
  type FieldError,
  type NotificationChannel,
  NOTIFICATION_TYPE_UPDATED_EVENT,
  type NotificationTypeEventData,
  type NotificationTypeView,
} from '@lms/contracts';
import { Database, InjectTenantRepository, Outbox, type TenantRepository, type TenantScope } from '@lms/platform';
import { catalogueEntry, NOTIFICATION_CATALOGUE, type NotificationTypeDefinition } from './notification-catalogue.js';
import { invalidChannels, notificationTypeNotFound } from './notification-type.errors.js';
import { NotificationTypeSetting } from './notification-type-setting.entity.js';

type Channels = Partial<Record<NotificationChannel, boolean>>;

/** The channels a type offers, each with the account's stored flag, or the catalogue default when none is stored. */
function effectiveChannels(def: NotificationTypeDefinition, stored: Channels | undefined): Channels {
  return Object.fromEntries(
    Object.entries(def.channels).map(([channel, fallback]) => {
      const value = stored?.[channel as NotificationChannel];
      return [channel, typeof value === 'boolean' ? value : fallback];
    }),
  );
}

export const toNotificationTypeView = (def: NotificationTypeDefinition, stored?: Channels): NotificationTypeView => ({
  id: def.id,
  audience: def.audience,
  category: def.category,
  name: def.name,
  description: def.description,
  channels: effectiveChannels(def, stored),
});

/** At least one channel, only channels the type offers, each set to a boolean: anything else is the spec's 422. */
export function checkChannels(def: NotificationTypeDefinition, channels: Record<string, unknown>): FieldError[] {
  const offered = Object.keys(def.channels).join(', ');
  if (Object.keys(channels).length === 0) return [{ field: 'channels', message: `must set at least one channel of ${def.id} (it offers: ${offered})` }];
  return Object.entries(channels).flatMap(([channel, value]): FieldError[] => {
    const field = `channels.${channel}`;
    if (!Object.hasOwn(def.channels, channel)) {
      return [{ field, message: `${def.id} does not offer the ${channel} channel (it offers: ${offered})` }];
    }
    return typeof value === 'boolean' ? [] : [{ field, message: 'must be a boolean' }];
  });
}

@Injectable()
export class NotificationTypesService {
  constructor(
    private readonly db: Database,
    private readonly outbox: Outbox,
    @InjectTenantRepository(NotificationTypeSetting) private readonly settings: TenantRepository<NotificationTypeSetting>,
  ) {}

  async list(scope: TenantScope): Promise<NotificationTypeView[]> {
    await this.seed(scope);
    const stored = new Map((await this.settings.find(scope)).map((s) => [s.notificationType, s.channels]));
    return NOTIFICATION_CATALOGUE.map((def) => toNotificationTypeView(def, stored.get(def.id)));
  }

  async show(scope: TenantScope, id: string): Promise<NotificationTypeView> {
    const def = catalogueEntry(id);
    if (!def) throw notificationTypeNotFound(id);
    await this.seed(scope);
    return toNotificationTypeView(def, (await this.settings.findOne(scope, { notificationType: id }))?.channels);
  }

  async update(scope: TenantScope, id: string, channels: Record<string, unknown>): Promise<NotificationTypeView> {
    const def = catalogueEntry(id);
    if (!def) throw notificationTypeNotFound(id);
    const errors = checkChannels(def, channels);
    if (errors.length > 0) throw invalidChannels(id, errors);
    await this.seed(scope);
    return this.db.transaction(async () => {
      // Locked, so two concurrent updates of different channels both survive.
      const row = await this.settings.query(scope, 's').andWhere('s.notification_type = :id', { id }).setLock('pessimistic_write').getOneOrFail();
      const before = effectiveChannels(def, row.channels);
      const after = { ...before, ...(channels as Channels) };
      if (Object.entries(after).every(([c, v]) => before[c as NotificationChannel] === v)) return toNotificationTypeView(def, before);
      row.channels = after;
      const saved = await this.settings.save(scope, row);
      const data: NotificationTypeEventData = { id, channels: after };
      await this.outbox.add(scope, NOTIFICATION_TYPE_UPDATED_EVENT, data, id);
      return toNotificationTypeView(def, saved.channels);
    });
  }

  /**
   * Gives the account a row per catalogue type, with the catalogue's defaults. Idempotent and safe under
   * concurrency (ON CONFLICT DO NOTHING on the primary key); a type added to the catalogue later reaches
   * existing accounts here.
   */
  private async seed(scope: TenantScope): Promise<void> {
    if ((await this.settings.count(scope)) >= NOTIFICATION_CATALOGUE.length) return;
    await this.settings.insertNew(scope, NOTIFICATION_CATALOGUE.map((def) => ({ notificationType: def.id, channels: def.channels })));
  }
}
