import { Controller, Inject } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import {
  AUDIENCE_ROLES,
  ChangesSinceCall,
  envelope,
  LIVE_UPDATE_SUBJECTS as S,
  LIVE_UPDATES_PATH,
  LIVE_UPDATES_TOKEN_PURPOSE,
  LIVE_UPDATES_TOKEN_TTL_SECONDS,
  type LiveUpdatesClaims,
  type RegistrationChangesPage,
  type RpcRequest,
  type SubscriptionParams,
} from '@lms/contracts';
import { Database, forbidden, Handles, IdentityDirectory, RUNTIME, type Runtime, signToken } from '@lms/platform';
import { RegistrationsService } from '../registrations/registrations.service.js';

const PAGE = 100;

/**
 * Live updates of a live course's registrations (issue 10; docs/scheduling.md "Live updates"): the
 * subscription hands out the gateway's stream URL with a token bound to the course's channel and the
 * account; the stream reads the course's ordered change log through `changes`.
 */
@Controller()
export class LiveUpdatesHandlers {
  constructor(
    private readonly db: Database,
    private readonly registrations: RegistrationsService,
    private readonly directory: IdentityDirectory,
    @Inject(RUNTIME) private readonly runtime: Runtime,
  ) {}

  @Handles(S.subscription)
  async subscription(@Payload() { ctx, params }: RpcRequest<unknown, object, SubscriptionParams>) {
    const session = await this.registrations.findSession(ctx, params.live_course_session_id);
    const channel = `/live_courses/${session.liveCourseId}/registrations/*`;
    const claims: LiveUpdatesClaims = { accountId: ctx.accountId, userId: ctx.userId, liveCourseId: session.liveCourseId, channel };
    const token = signToken(this.runtime.config.fileUrlSigningKey, LIVE_UPDATES_TOKEN_PURPOSE, claims, LIVE_UPDATES_TOKEN_TTL_SECONDS);
    return envelope('subscriptions', [{ url: LIVE_UPDATES_PATH, channel, token }]);
  }

  /**
   * The course's changes after `after`, oldest first. Only rows of finished transactions are read (xid
   * below the snapshot's xmin), in (xid, id) order: a change that commits later always sorts after every
   * change already answered, so a reader resuming from its last id misses nothing and sees nothing twice.
   * A cursor below the course's pruned horizon may have missed pruned changes: the answer is then a
   * `reset` to the horizon, and no changes. The order names the table's columns: the bare names would be the
   * answer's text columns, which sort "100" before "99" and cannot use the course's index.
   */
  @Handles(S.changes, { body: ChangesSinceCall })
  async changes(@Payload() { ctx, body }: RpcRequest<ChangesSinceCall>): Promise<RegistrationChangesPage> {
    if (body.subscriber) await this.assertSubscriber(ctx);
    const [xid, id] = (body.after ?? '0-0').split('-');
    const rows: { pruned: string; xid: string | null; id: string; type: string; data: Record<string, unknown>; created_at: Date }[] = await this.db.manager.query(
      `WITH pruned AS (SELECT COALESCE((SELECT through FROM scheduling.registration_changes_pruned WHERE account_id = $1 AND live_course_id = $2), '0'::xid8) AS through)
       SELECT pruned.through::text AS pruned, c.xid::text AS xid, c.id::text AS id, c.type, c.data, c.created_at
         FROM pruned LEFT JOIN LATERAL (
           SELECT * FROM scheduling.registration_changes
            WHERE account_id = $1 AND live_course_id = $2
              AND xid < pg_snapshot_xmin(pg_current_snapshot()) AND xid >= pruned.through
              AND (xid, id) > ($3::text::xid8, $4::bigint)
            ORDER BY registration_changes.xid, registration_changes.id LIMIT $5) c ON true`,
      [ctx.accountId, body.live_course_id, xid, id, body.limit ?? PAGE],
    );
    const pruned = rows[0].pruned;
    if (body.after !== undefined && BigInt(xid) < BigInt(pruned)) return { changes: [], reset: `${pruned}-0` };
    return { changes: rows.filter((r) => r.xid !== null).map((r) => ({ id: `${r.xid}-${r.id}`, type: r.type, data: r.data, time: r.created_at.toISOString() })) };
  }

  /**
   * A subscription's token lasts 15 minutes; its subscriber may be deleted or stop being an author meanwhile.
   * The gateway asks this when a stream opens and every so often while it runs, and ends it on a refusal.
   */
  private async assertSubscriber(ctx: RpcRequest['ctx']): Promise<void> {
    const user = (await this.directory.users(ctx, [ctx.userId])).get(ctx.userId);
    const roles = AUDIENCE_ROLES.author as readonly string[];
    if (!user || user.deleted_at !== null || !user.roles.some((role) => roles.includes(role))) {
      throw forbidden('SUBSCRIPTION_REVOKED', 'The subscriber is no longer an author of this account: ask for a new subscription.');
    }
  }
}
