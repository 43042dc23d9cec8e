import type { PlatformConfig } from '../config/config.js';
import type { MessageBus } from '../messaging/message-bus.js';
import type { Logger } from '../observability/logger.js';

/** A named check behind `/readyz`: resolves when the dependency answers. */
export interface HealthIndicator {
  name: string;
  check(): Promise<void>;
}

/** What every deployable is started with; all-in-one shares one runtime between them. */
export interface Runtime {
  config: PlatformConfig;
  /** Resolved Postgres URL (embedded or configured). */
  databaseUrl: string;
  bus: MessageBus;
  logger: Logger;
}

/** Prometheus text and its content type. */
export interface MetricsText {
  contentType: string;
  text: string;
}

/** A started deployable. */
export interface Deployable {
  name: string;
  indicators: HealthIndicator[];
  /** Its own metrics, when it keeps them apart from the process-wide registry (the gateway). */
  metrics?: () => Promise<MetricsText>;
  close(): Promise<void>;
}

export type StartFn = (runtime: Runtime) => Promise<Deployable>;
