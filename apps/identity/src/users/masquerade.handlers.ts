import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import { AUTH_MASQUERADE_SUBJECT, AuthMasqueradeRequest, type Principal, type RpcRequest } from '@lms/contracts';
import { Handles } from '@lms/platform';
import { UserFinder } from './user-finder.js';
import { canMasquerade } from './user-view.js';
import { masqueradeForbidden, userNotFound } from './user.errors.js';

/**
 * The gateway asks, for `as_user_id`, whom the calling administrator acts as. The rule is the one that
 * sets `meta.can_masquerade` on users (canMasquerade), so the flag tells exactly who may.
 */
@Controller()
export class MasqueradeHandlers {
  constructor(private readonly finder: UserFinder) {}

  @Handles(AUTH_MASQUERADE_SUBJECT, { body: AuthMasqueradeRequest })
  async masquerade(@Payload() { ctx, body }: RpcRequest<AuthMasqueradeRequest>): Promise<Principal> {
    // Non-administrators are refused before any lookup, so the answer tells them nothing about the user.
    if (!ctx.roles.includes('admin')) throw masqueradeForbidden(body.user);
    const user = await this.finder.find(ctx, body.user, { withDeleted: true });
    if (!user) throw userNotFound(body.user);
    if (!canMasquerade(ctx, user)) throw masqueradeForbidden(body.user);
    return { accountId: user.accountId, subAccountId: null, userId: user.id, roles: user.roles };
  }
}
