import { IDENTITY_ROUTES } from './identity.routes.js';
import type { RouteDefinition } from './route.js';

export * from './route.js';

/** Every HTTP endpoint of the system; the gateway registers and documents exactly these. */
export const ROUTES: RouteDefinition[] = [...IDENTITY_ROUTES];
