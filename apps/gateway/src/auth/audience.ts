import { AUDIENCE_ROLES, type Role, type RouteDefinition } from '@lms/contracts';

/**
 * The route's roles admit the caller when it has any (the sync route: "requires support-user permission",
 * so a support user who is no author passes and an administrator who is not support does not); else the
 * audience of its path prefix does.
 */
export function admits(route: Pick<RouteDefinition, 'audience' | 'roles'>, roles: readonly Role[]): boolean {
  if (route.roles && route.roles.length > 0) return route.roles.some((role) => roles.includes(role));
  const audience = AUDIENCE_ROLES[route.audience];
  return audience === 'any' || audience.some((role) => roles.includes(role));
}

/** Who may call the route, as a 403 names it: `the author audience`, `role support or admin`. */
export const audienceOf = (route: Pick<RouteDefinition, 'audience' | 'roles'>): string =>
  route.roles?.length ? `role ${route.roles.join(' or ')}` : `the ${route.audience} audience`;
