import { AUDIENCE_ROLES, type Role, type RouteDefinition } from '@lms/contracts';

/** The audience of the path prefix admits the caller, and so do the route's extra roles when it has any. */
export function admits(route: Pick<RouteDefinition, 'audience' | 'roles'>, roles: readonly Role[]): boolean {
  const audience = AUDIENCE_ROLES[route.audience];
  if (audience !== 'any' && !audience.some((role) => roles.includes(role))) return false;
  if (route.roles && route.roles.length > 0 && !route.roles.some((role) => roles.includes(role))) return false;
  return true;
}

/** Who may call the route, as a 403 names it: `the author audience`, `the admin audience with role manager or admin`. */
export const audienceOf = (route: Pick<RouteDefinition, 'audience' | 'roles'>): string =>
  `the ${route.audience} audience${route.roles?.length ? ` with role ${route.roles.join(' or ')}` : ''}`;
