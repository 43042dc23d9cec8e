import { Injectable } from '@nestjs/common';
import {
  decodeBookmark,
  encodeBookmark,
  type ListNotificationDeliveriesQuery,
  type NotificationDeliveryView,
  pageWindow,
  type RequestContext,
  WELCOME_REQUESTED_EVENT,
  type WelcomeRequestedData,
} from '@lms/contracts';
import { Database, IdentityDirectory, type ListSize, notFound, Outbox } from '@lms/platform';

interface DeliveryRow {
  id: string;
  event_id: string;
  event_type: string;
  notification_type: string;
  user_id: number;
  channel: NotificationDeliveryView['channel'];
  status: NotificationDeliveryView['status'];
  address: string | null;
  subject: string;
  error: string | null;
  attempts: number;
  created_at: Date;
  updated_at: Date;
  sent_at: Date | null;
}

const toView = (r: DeliveryRow): NotificationDeliveryView => ({
  id: Number(r.id),
  event_id: r.event_id,
  event_type: r.event_type,
  notification_type: r.notification_type,
  user_id: r.user_id,
  channel: r.channel,
  status: r.status,
  address: r.address,
  subject: r.subject,
  error: r.error,
  attempts: r.attempts,
  created_at: r.created_at.toISOString(),
  updated_at: r.updated_at.toISOString(),
  sent_at: r.sent_at?.toISOString() ?? null,
});

export interface DeliveryPage {
  deliveries: NotificationDeliveryView[];
  size: ListSize;
  next?: string;
}

/** The welcome request and the administrators' view of deliveries (jobs-worker sends; docs/jobs.md). */
@Injectable()
export class NotificationsService {
  constructor(
    private readonly db: Database,
    private readonly outbox: Outbox,
    private readonly directory: IdentityDirectory,
  ) {}

  /** Queues the welcome message of a live user of the caller's account (another account's user is nobody: 404). */
  async welcome(ctx: RequestContext, userId: number): Promise<void> {
    const user = (await this.directory.users(ctx, [userId])).get(userId);
    if (!user || user.deleted_at !== null) throw notFound('USER_NOT_FOUND', `User ${userId} does not exist.`);
    await this.db.transaction(async () => {
      await this.outbox.add<WelcomeRequestedData>(ctx, WELCOME_REQUESTED_EVENT, { user_id: userId, requested_by: ctx.userId }, String(userId));
    });
  }

  /** Newest first (by id), keyset-paged: `next` carries the last id of the page. */
  async deliveries(ctx: RequestContext, query: ListNotificationDeliveriesQuery): Promise<DeliveryPage> {
    const window = pageWindow(query);
    const where = ['account_id = $1'];
    const params: unknown[] = [ctx.accountId];
    const add = (sql: string, value: unknown) => {
      params.push(value);
      where.push(sql.replace('?', `$${params.length}`));
    };
    if (query.status) add('status = ?', query.status);
    if (query.channel) add('channel = ?', query.channel);
    if (query.notification_type) add('notification_type = ?', query.notification_type);
    if (query.user_id) add('user_id = ?', query.user_id);
    if (query.event_id) add('event_id = ?', query.event_id);
    if (query.since) add('created_at >= ?::timestamptz', query.since);
    const after = typeof query.page === 'string' ? decodeBookmark(query.page)?.after[0] : undefined;
    if (typeof after === 'number') add('id < ?', after);
    params.push(window.take + 1);
    const limit = `$${params.length}`;
    let offset = '';
    if (after === undefined && window.skip > 0) {
      params.push(window.skip);
      offset = ` OFFSET $${params.length}`;
    }
    const rows = (await this.db.manager.query(
      `SELECT id, event_id, event_type, notification_type, user_id, channel, status, address, subject, error, attempts, created_at, updated_at, sent_at
         FROM "${this.db.schema}".notification_deliveries WHERE ${where.join(' AND ')} ORDER BY id DESC LIMIT ${limit}${offset}`,
      params,
    )) as DeliveryRow[];
    const more = rows.length > window.take;
    const page = rows.slice(0, window.take).map(toView);
    const last = page.at(-1);
    return {
      deliveries: page,
      size: { more },
      ...(more && last ? { next: encodeBookmark({ page: window.page + 1, after: [last.id] }) } : {}),
    };
  }
}
