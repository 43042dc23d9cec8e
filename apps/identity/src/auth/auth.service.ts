import { Injectable } from '@nestjs/common';
import { type Principal, type Role, tokenHash } from '@lms/contracts';
import { Database, unauthorized } from '@lms/platform';
import { SignInRecorder } from '../sign-ins/sign-in-recorder.js';

@Injectable()
export class AuthService {
  constructor(
    private readonly db: Database,
    private readonly signIns: SignInRecorder,
  ) {}

  /** The principal behind a live token of a live user; the one lookup that is not account-scoped, since the token names the account. */
  async resolve(token: string): Promise<Principal> {
    const rows: { token_id: number; account_id: number; user_id: number; roles: Role[]; expires_at: Date | null }[] = await this.db.manager.query(
      `SELECT t.id AS token_id, t.account_id, u.id AS user_id, u.roles, t.expires_at
         FROM identity.api_tokens t
         JOIN identity.users u ON u.id = t.user_id AND u.account_id = t.account_id
        WHERE t.token_hash = $1
          AND t.revoked_at IS NULL
          AND (t.expires_at IS NULL OR t.expires_at > now())
          AND u.deleted_at IS NULL`,
      [tokenHash(token)],
    );
    const row = rows[0];
    if (!row) throw unauthorized('INVALID_TOKEN', 'The access token is unknown, expired or revoked.');
    // The SignInReport's data, written after this answer and at most every few minutes per token (docs/jobs.md).
    this.signIns.record({ accountId: row.account_id, userId: row.user_id, tokenId: row.token_id });
    return { accountId: row.account_id, subAccountId: null, userId: row.user_id, roles: row.roles, tokenExpiresAt: row.expires_at?.toISOString() ?? null };
  }
}
