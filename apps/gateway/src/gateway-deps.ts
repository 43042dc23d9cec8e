import type { RouteDefinition } from '@lms/contracts';
import type { HealthIndicator, Runtime } from '@lms/platform';

/** Everything the gateway's providers are built from; one value, provided under one token. */
export interface GatewayDeps {
  runtime: Runtime;
  routes: RouteDefinition[];
  /** Readiness checks beyond the gateway's own (the bus), e.g. other deployables of an all-in-one process. */
  indicators: HealthIndicator[];
  /** Set once `close()` starts: answers from then on end their connection, so draining cannot stall on keep-alive. */
  lifecycle: { closing: boolean };
}

export const GATEWAY_DEPS = Symbol('GATEWAY_DEPS');
