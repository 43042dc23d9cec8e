import type { AuthorUserView, RequestContext, UserEnvelope, UserEventData, UserView } from '@lms/contracts';
import type { User } from './user.entity.js';

/** The spec's "name": the full name when given, else first and last name, else the uid. */
export const displayName = (user: User): string =>
  user.fullName?.trim() || [user.firstName, user.lastName].filter((part) => part && part.trim()).join(' ') || user.uid;

/**
 * Who may act as whom (`as_user_id`): an administrator, as any other live user of the account. Nobody acts
 * as himself, as a deleted user, or as one whose deletion is under way (the tokens of both are revoked).
 * `meta.can_masquerade` and the masquerade lookup both ask this, so the flag is exactly the permission.
 */
export const canMasquerade = (ctx: RequestContext, user: User): boolean =>
  ctx.roles.includes('admin') && user.id !== ctx.userId && user.deletedAt === null && user.deletionRequestedAt === null;

export function toUserView(user: User, ctx: RequestContext): UserView {
  const self = `/api/admin/users/${user.id}`;
  return {
    id: user.id,
    uid: user.uid,
    first_name: user.firstName,
    last_name: user.lastName,
    email: user.email,
    locale: user.locale,
    roles: user.roles,
    name: displayName(user),
    avatar_url: user.avatarUrl,
    deleted_at: user.deletedAt ? user.deletedAt.toISOString() : null,
    hire_date: user.hireDate,
    links: [
      { rel: 'self', href: self },
      { rel: 'summary', href: `${self}/summary` },
    ],
    meta: { can_masquerade: canMasquerade(ctx, user) },
  };
}

/**
 * The user envelope. Its `meta.can_masquerade` is the one user's for a single-user answer, and for a list
 * whether the caller may masquerade at all (is an administrator).
 */
export function userEnvelope(users: User[], ctx: RequestContext, single = true): UserEnvelope {
  const views = users.map((user) => toUserView(user, ctx));
  const can = single && views.length === 1 ? views[0].meta.can_masquerade : ctx.roles.includes('admin');
  return { meta: { can_masquerade: can }, linked: {}, users: views };
}

export const userEventData = (user: User): UserEventData => ({ user_id: user.id, uid: user.uid });

/** `GET /api/author/users`: no admin-only attributes. */
export const toAuthorUserView = (user: User): AuthorUserView => ({
  id: user.id,
  uid: user.uid,
  name: displayName(user),
  email: user.email,
  avatar_url: user.avatarUrl,
  roles: user.roles,
});
