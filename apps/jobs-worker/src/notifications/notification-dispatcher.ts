import { randomUUID } from 'node:crypto';
import { Inject, Injectable, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import {
  type CloudEvent,
  type DeliveryChannel,
  DIRECTORY_SUBJECTS,
  type DirectoryUser,
  type DirectoryUsersReply,
  NOTIFICATION_TYPE_SETTINGS_SUBJECT,
  type NotificationTypeSettingsReply,
  NOTIFICATIONS_CONSUMER,
  type RequestContext,
  systemContext,
} from '@lms/contracts';
import {
  Database,
  type DeliveryInfo,
  LOGGER,
  type Logger,
  MESSAGE_BUS,
  type MessageBus,
  requestSigned,
  RUNTIME,
  type Runtime,
  signedChannel,
  type SignedRequestOptions,
  signedRequestsTo,
  type Subscription,
} from '@lms/platform';
import { DeliveryError, type DeliveryChannelSender } from './delivery-channels.js';
import { NOTIFICATION_PLANNERS, NOTIFIED_EVENT_TYPES, type NotificationPlan } from './notification-plans.js';

export interface NotificationPolicy {
  /** Sends tried per delivery before it ends `failed` (a permanent refusal ends it at once). */
  maxAttempts: number;
  /** Pause before the event is handled again after a delivery failed; the last value repeats. */
  backoffMs: number[];
}

/** docs/jobs.md "Notification delivery": 5 tries, 1 s, 5 s, 30 s, 2 min apart. */
export const DEFAULT_NOTIFICATION_POLICY: NotificationPolicy = { maxAttempts: 5, backoffMs: [1_000, 5_000, 30_000, 120_000] };
/** How long a worker holds an event before it is handed to another: a killed worker's events come back this soon. */
const NOTIFICATION_ACK_WAIT_MS = 10_000;
export const NOTIFICATION_POLICY = Symbol('NOTIFICATION_POLICY');
export const NOTIFICATION_SENDERS = Symbol('NOTIFICATION_SENDERS');

/** Directory asks are capped at 1000 ids (DirectoryUsersRequest). */
const USERS_PER_ASK = 1000;

interface DeliveryRow {
  id: string;
  user_id: number;
  channel: DeliveryChannel;
  status: string;
  address: string | null;
}

type OwnQuery = (sql: string, params?: unknown[]) => Promise<Record<string, unknown>[]>;

/** Why a delivery is not to be sent (the type's channel is off or missing, the user deleted or unreachable), or null. */
function skipReason(plan: NotificationPlan, sender: DeliveryChannelSender, user: DirectoryUser | undefined, channels: Partial<Record<string, boolean>>): string | null {
  return channels[sender.channel] === undefined ? `the ${plan.notificationType} notification type has no ${sender.channel} channel`
    : channels[sender.channel] === false ? `${sender.channel} is disabled for the ${plan.notificationType} notification type`
    : !user ? 'no such user'
    : user.deleted_at !== null ? 'the user is deleted'
    : sender.unavailable ? sender.unavailable
    : sender.channel === 'email' && !user.email ? 'the user has no e-mail address'
    : null;
}

/** Thrown to have the event handled again later: some delivery failed for now, or another worker is sending it. */
class RetryLater extends Error {}

/**
 * Delivers notifications (docs/jobs.md, "Notification delivery"): every jobs-worker replica consumes the
 * events that notify people through the durable consumer `jobs-worker-notifications`, and for each
 * (event, recipient, channel) keeps one row in `jobs.notification_deliveries`:
 *
 * 1. The rows are inserted with ON CONFLICT DO NOTHING on (account, event, user, channel): a redelivered
 *    event finds them and keeps their first outcome. What cannot be sent is recorded `skipped` at once.
 * 2. Each `pending` row is claimed (`sending`, attempts + 1) in its own committed statement BEFORE the send,
 *    and marked `sent` after, while the sender holds a session lock on the row's id: a second worker never
 *    sends a row whose sender lives (it cannot take the lock); a row left `sending` by a worker that died
 *    (Postgres released its lock with its session) is sent again at once. That is the at-least-once window:
 *    a worker killed between the server's acceptance and the commit of `sent` leaves a message that is sent
 *    twice, with the same Message-ID.
 * 3. A failure leaves the row `pending` with its error and the event is retried with back-off; a permanent
 *    refusal, or the last attempt, ends it `failed`. A retry asks again whether it may send: a user deleted,
 *    or a channel switched off, since, ends the row `skipped`.
 */
@Injectable()
export class NotificationDispatcher implements OnApplicationBootstrap, OnModuleDestroy {
  private subscription?: Subscription;
  private readonly worker = randomUUID();
  private readonly identity: SignedRequestOptions;

  constructor(
    private readonly db: Database,
    @Inject(MESSAGE_BUS) bus: MessageBus,
    @Inject(RUNTIME) runtime: Runtime,
    @Inject(LOGGER) private readonly logger: Logger,
    @Inject(NOTIFICATION_SENDERS) private readonly senders: DeliveryChannelSender[],
    @Inject(NOTIFICATION_POLICY) private readonly policy: NotificationPolicy,
  ) {
    this.identity = signedRequestsTo('identity', signedChannel(bus, runtime.config));
  }

  async onApplicationBootstrap(): Promise<void> {
    this.subscription = await this.identity.bus.events.consume(
      {
        durable: NOTIFICATIONS_CONSUMER,
        types: NOTIFIED_EVENT_TYPES,
        // Beyond the attempts: deliveries that find a row another live worker is sending come back for it.
        maxDeliver: this.policy.maxAttempts + 3,
        backoffMs: this.policy.backoffMs,
        ackWaitMs: NOTIFICATION_ACK_WAIT_MS,
      },
      (event, info) => this.handle(event, info),
    );
  }

  async onModuleDestroy(): Promise<void> {
    await this.subscription?.unsubscribe();
    await Promise.all(this.senders.map((s) => s.close()));
  }

  private get table(): string {
    return `"${this.db.schema}".notification_deliveries`;
  }

  private async handle(event: CloudEvent, info: DeliveryInfo): Promise<void> {
    const planner = NOTIFICATION_PLANNERS[event.type];
    if (!planner) return;
    const ctx = systemContext(event.accountid, `notify-${event.id}`);
    const plan = await planner(event, { users: (ids) => this.users(ctx, ids) });
    if (!plan || plan.recipients.length === 0) return;
    const recipients = [...new Set(plan.recipients)];
    // Two independent questions to identity: asked together, answered in one round trip's time.
    const [settings, users] = await Promise.all([
      requestSigned<NotificationTypeSettingsReply>(this.identity, ctx, NOTIFICATION_TYPE_SETTINGS_SUBJECT, { types: [plan.notificationType] }),
      this.users(ctx, recipients),
    ]);
    const channels = settings.types[plan.notificationType] ?? {};
    await this.record(event, plan, recipients, users, channels);

    const lastDelivery = info.deliveryCount >= this.policy.maxAttempts + 3;
    const rows = (await this.db.manager.query(
      `SELECT id, user_id, channel, status, address FROM ${this.table} WHERE account_id = $1 AND event_id = $2 AND status IN ('pending', 'sending') ORDER BY id`,
      [event.accountid, event.id],
    )) as DeliveryRow[];
    let later = 0;
    for (const row of rows) {
      const user = users.get(row.user_id);
      const sender = this.senders.find((s) => s.channel === row.channel);
      // Asked again at every delivery: a retry after the user's deletion, or the channel's switch-off, sends nothing.
      const skip = sender ? skipReason(plan, sender, user, channels) : null;
      if (!(await this.deliver(row, plan, user, sender, lastDelivery, skip))) later += 1;
    }
    if (later > 0) throw new RetryLater(`${later} notification deliveries of event ${event.id} are to be tried again`);
  }

  /** Records a row per recipient and channel (a redelivery finds them); what cannot be sent is `skipped` with the reason. */
  private async record(event: CloudEvent, plan: NotificationPlan, recipients: number[], users: Map<number, DirectoryUser>, channels: Partial<Record<string, boolean>>) {
    const values: unknown[][] = [];
    for (const userId of recipients) {
      const user = users.get(userId);
      for (const sender of this.senders) {
        const reason = skipReason(plan, sender, user, channels);
        values.push([userId, sender.channel, reason === null ? 'pending' : 'skipped', sender.channel === 'email' ? (user?.email ?? null) : null, reason]);
      }
    }
    if (values.length === 0) return;
    await this.db.manager.query(
      `INSERT INTO ${this.table} (account_id, event_id, event_type, notification_type, subject, user_id, channel, status, address, error)
       SELECT $1, $2, $3, $4, $5, v.user_id, v.channel, v.status, v.address, v.error
         FROM unnest($6::int[], $7::text[], $8::text[], $9::text[], $10::text[]) AS v(user_id, channel, status, address, error)
       ON CONFLICT (account_id, event_id, user_id, channel) DO NOTHING`,
      [
        event.accountid,
        event.id,
        event.type,
        plan.notificationType,
        plan.subject,
        values.map((v) => v[0]),
        values.map((v) => v[1]),
        values.map((v) => v[2]),
        values.map((v) => v[3]),
        values.map((v) => v[4]),
      ],
    );
  }

  /** Claims, sends and settles one row; false when it is to be tried again later. */
  private async deliver(row: DeliveryRow, plan: NotificationPlan, user: DirectoryUser | undefined, sender: DeliveryChannelSender | undefined, lastDelivery: boolean, skip: string | null): Promise<boolean> {
    // The sender's liveness is a session lock on the row, held on a connection of its own for the send.
    return this.db.onOwnConnection(async (query) => {
      const lock = [`notification-delivery:${row.id}`];
      const [{ locked }] = await query('SELECT pg_try_advisory_lock(hashtext($1)) AS locked', lock);
      // A live worker is sending it now: look again later.
      if (!locked) return false;
      try {
        return await this.claimAndSend(query, row, plan, user, sender, lastDelivery, skip);
      } finally {
        await query('SELECT pg_advisory_unlock(hashtext($1))', lock);
      }
    });
  }

  /** On the lock's own connection throughout: a worker holding many never waits for the pool to claim or settle. */
  private async claimAndSend(query: OwnQuery, row: DeliveryRow, plan: NotificationPlan, user: DirectoryUser | undefined, sender: DeliveryChannelSender | undefined, lastDelivery: boolean, skip: string | null): Promise<boolean> {
    // Not to be sent now (asked again at this delivery): settled unsent, which is no attempt.
    if (skip !== null) {
      await query(
        `UPDATE ${this.table} SET status = 'skipped', error = $2, claimed_at = NULL, claimed_by = NULL, updated_at = now() WHERE id = $1 AND status IN ('pending', 'sending')`,
        [row.id, skip],
      );
      return true;
    }
    // The claim commits before the send. A `sending` row whose lock was free is a dead worker's: claimed again.
    const [claim] = await query(
      `UPDATE ${this.table} SET status = 'sending', attempts = attempts + 1, claimed_at = now(), claimed_by = $2, updated_at = now()
        WHERE id = $1 AND status IN ('pending', 'sending')
        RETURNING attempts`,
      [row.id, this.worker],
    );
    // Sent or settled since it was read: nothing left to do.
    if (!claim) return true;
    const attempts = Number(claim.attempts);
    try {
      if (!sender || !user) throw new DeliveryError(!user ? 'no such user' : `no sender for ${row.channel}`, true);
      await sender.send({ id: row.id, to: { name: user.name || user.uid, address: row.address }, subject: plan.subject, text: plan.text(user) });
    } catch (err) {
      const error = err instanceof DeliveryError ? err : new DeliveryError(err instanceof Error ? err.message : String(err), false);
      const final = error.permanent || attempts >= this.policy.maxAttempts || lastDelivery;
      await this.settle(query, row.id, final ? 'failed' : 'pending', error.message);
      this.logger.warn({ deliveryId: row.id, channel: row.channel, attempts, final, err: error.message }, 'notification delivery failed');
      return final;
    }
    await this.settle(query, row.id, 'sent', null);
    return true;
  }

  /** Ends this worker's claim. */
  private async settle(query: OwnQuery, id: string, status: 'sent' | 'pending' | 'failed', error: string | null): Promise<void> {
    await query(
      `UPDATE ${this.table}
          SET status = $3, error = coalesce($4, error), sent_at = CASE WHEN $3 = 'sent' THEN now() ELSE sent_at END,
              claimed_at = NULL, claimed_by = NULL, updated_at = now()
        WHERE id = $1 AND claimed_by = $2 AND status = 'sending'`,
      [id, this.worker, status, error],
    );
  }

  private async users(ctx: RequestContext, ids: number[]): Promise<Map<number, DirectoryUser>> {
    const found = new Map<number, DirectoryUser>();
    const unique = [...new Set(ids)];
    for (let i = 0; i < unique.length; i += USERS_PER_ASK) {
      const reply = await requestSigned<DirectoryUsersReply>(this.identity, ctx, DIRECTORY_SUBJECTS.users, { ids: unique.slice(i, i + USERS_PER_ASK) });
      for (const user of reply.users) found.set(user.id, user);
    }
    return found;
  }
}
