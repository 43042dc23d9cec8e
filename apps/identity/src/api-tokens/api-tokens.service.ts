import { Inject, Injectable } from '@nestjs/common';
import { IsNull } from 'typeorm';
import {
  API_TOKEN_CREATED_EVENT,
  API_TOKEN_REVOKED_EVENT,
  AUTH_INVALIDATE_SUBJECT,
  pageWindow,
  type ApiTokenInput,
  type ApiTokenEventData,
  type ApiTokenView,
  type AuthInvalidation,
  type ListApiTokensQuery,
  tokenHash,
} from '@lms/contracts';
import { Database, InjectTenantRepository, MESSAGE_BUS, type MessageBus, Outbox, type TenantRepository, type TenantScope } from '@lms/platform';
import { ApiToken } from '../auth/api-token.entity.js';
import { generateToken } from '../auth/token.js';
import { UserFinder } from '../users/user-finder.js';
import { apiTokenNotFound, tokenUserNotFound } from './api-token.errors.js';

export const toApiTokenView = (token: ApiToken): ApiTokenView => ({
  id: String(token.id),
  user_id: String(token.userId),
  name: token.name,
  expires_at: token.expiresAt ? token.expiresAt.toISOString() : null,
  created_at: token.createdAt.toISOString(),
});


const eventData = (token: ApiToken): ApiTokenEventData => ({ id: token.id, userId: token.userId, name: token.name });

@Injectable()
export class ApiTokensService {
  constructor(
    private readonly db: Database,
    private readonly outbox: Outbox,
    @Inject(MESSAGE_BUS) private readonly bus: MessageBus,
    @InjectTenantRepository(ApiToken) private readonly tokens: TenantRepository<ApiToken>,
    private readonly users: UserFinder,
  ) {}

  /** Issues a token for a live user of the caller's account; the secret leaves only in this return value. */
  async create(scope: TenantScope, input: ApiTokenInput): Promise<{ token: ApiToken; secret: string }> {
    const secret = generateToken();
    const token = await this.db.transaction(async () => {
      // Held until the token commits: a deletion of the user (which locks the row) waits, then revokes this
      // token with the others; or it went first, and the user is not found.
      const user = await this.users.find(scope, input.user_id, { active: true, lock: 'share' });
      if (!user) throw tokenUserNotFound(input.user_id);
      const row = await this.tokens.insert(scope, {
        userId: user.id,
        name: input.name,
        tokenHash: tokenHash(secret),
        expiresAt: input.expires_at === undefined ? null : new Date(input.expires_at),
        revokedAt: null,
      });
      await this.outbox.add(scope, API_TOKEN_CREATED_EVENT, eventData(row));
      return row;
    });
    return { token, secret };
  }

  /** Live (unrevoked) tokens, expired ones included so an administrator can see and clean them up. */
  async list(scope: TenantScope, query: ListApiTokensQuery): Promise<[ApiToken[], number]> {
    const { skip, take } = pageWindow(query);
    let userId: number | undefined;
    if (query.user_id !== undefined) {
      const user = await this.users.find(scope, query.user_id);
      if (!user) return [[], 0];
      userId = user.id;
    }
    return this.tokens.findAndCount(scope, { where: { revokedAt: IsNull(), ...(userId === undefined ? {} : { userId }) }, order: { id: 'ASC' }, skip, take });
  }

  /**
   * Revokes in one transaction with its event, then tells every gateway replica to drop the cached
   * principal. The notice goes after the commit: sent earlier, a replica could re-read the still-live row.
   */
  async revoke(scope: TenantScope, id: number): Promise<void> {
    const token = await this.db.transaction(async () => {
      // Locked: a concurrent revocation waits, then finds the token revoked (404), so one event is recorded.
      const row = await this.tokens.findOne(scope, { id, revokedAt: IsNull() }, { lock: 'update' });
      if (!row) throw apiTokenNotFound(id);
      row.revokedAt = new Date();
      const saved = await this.tokens.save(scope, row);
      await this.outbox.add(scope, API_TOKEN_REVOKED_EVENT, eventData(saved));
      return saved;
    });
    const notice: AuthInvalidation = { tokenHashes: [token.tokenHash] };
    this.bus.broadcast(AUTH_INVALIDATE_SUBJECT, notice);
  }
}
