import { Inject, Injectable } from '@nestjs/common';
import { IsNull } from 'typeorm';
import {
  type RequestContext,
  USER_DELETED_EVENT,
  USER_DELETION_REQUESTED_EVENT,
} from '@lms/contracts';
import { Database, InjectTenantRepository, MESSAGE_BUS, type MessageBus, Outbox, type TenantRepository, type TenantScope } from '@lms/platform';
import { ApiToken } from '../auth/api-token.entity.js';
import { User } from './user.entity.js';
import { keepAnAdmin } from './last-admin.js';
import { cannotDeleteSelf } from './user.errors.js';
import { UserFinder, type UserRef } from './user-finder.js';
import { dropCachedPrincipals } from './principal-invalidation.js';
import { userEventData } from './user-view.js';

/**
 * Deleting a user: soft delete (deleted_at), tokens revoked, `identity.user.deleted` through the outbox,
 * all in one transaction; then every gateway replica drops the user's cached principals.
 */
@Injectable()
export class UserDeletionService {
  constructor(
    private readonly db: Database,
    private readonly outbox: Outbox,
    private readonly finder: UserFinder,
    @Inject(MESSAGE_BUS) private readonly bus: MessageBus,
    @InjectTenantRepository(User) private readonly users: TenantRepository<User>,
    @InjectTenantRepository(ApiToken) private readonly tokens: TenantRepository<ApiToken>,
  ) {}

  /**
   * `async`: records the request and its event and cuts the user's access at once; the deletion worker
   * (consumer of `identity.user.deletion_requested`) does the rest. A repeated request adds nothing.
   */
  async delete(ctx: RequestContext, ref: UserRef, async: boolean): Promise<void> {
    const user = await this.db.transaction(async () => {
      // Locked: of concurrent deletes of one user, the first deletes and the others then find no user (404),
      // or, for `async`, a deletion already requested (204, nothing added). One event either way.
      const found = await this.finder.get(ctx, ref, { lock: 'update' });
      if (found.id === ctx.userId) throw cannotDeleteSelf();
      if (found.roles.includes('admin') && found.deletionRequestedAt === null) await keepAnAdmin(this.db, ctx, found.id);
      if (!async) return this.softDelete(ctx, found);
      if (found.deletionRequestedAt === null) {
        found.deletionRequestedAt = new Date();
        await this.users.save(ctx, found);
        await this.outbox.add(ctx, USER_DELETION_REQUESTED_EVENT, userEventData(found));
      }
      await this.revokeTokens(ctx, found.id);
      return found;
    });
    // After the commit: sent earlier, a replica could re-read the still-live user and cache it again.
    dropCachedPrincipals(this.bus, ctx, user.id);
  }

  /**
   * The worker's half, inside the consumer's transaction. Idempotent: a user already deleted (or gone) is
   * left alone. The notice goes before the commit here (the inbox consumer owns the transaction); the tokens
   * were already revoked and committed when the deletion was requested, so no live token can be re-cached.
   */
  async finishDeletion(scope: TenantScope, userId: number): Promise<void> {
    const user = await this.users.findOne(scope, { id: userId }, { withDeleted: true, lock: 'update' });
    if (!user || user.deletedAt !== null) return;
    await this.softDelete(scope, user);
    dropCachedPrincipals(this.bus, scope, user.id);
  }

  private async softDelete(scope: TenantScope, user: User): Promise<User> {
    user.deletedAt = new Date();
    const saved = await this.users.save(scope, user);
    await this.revokeTokens(scope, user.id);
    await this.outbox.add(scope, USER_DELETED_EVENT, userEventData(saved));
    return saved;
  }

  /** A deleted user's tokens die with the user. */
  private async revokeTokens(scope: TenantScope, userId: number): Promise<void> {
    await this.tokens.update(scope, { userId, revokedAt: IsNull() }, { revokedAt: () => 'now()' });
  }
}
