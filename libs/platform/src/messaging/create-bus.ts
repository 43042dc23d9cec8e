import type { PlatformConfig } from '../config/config.js';
import type { Logger } from '../observability/logger.js';
import { PostgresEventLog } from '../events/postgres-event-log.js';
import { InProcessBus } from './in-process-bus.js';
import type { MessageBus } from './message-bus.js';
import { NatsBus } from './nats-bus.js';

/** In-process buses by namespace: every deployable of one process must talk over the same one. */
const inProcessBuses = new Map<string, InProcessBus>();

/**
 * The bus a deployable talks over: NATS when `natsUrl` is set, else the process-wide in-process bus, whose
 * events live in Postgres at `databaseUrl` (the database the services use), so they survive a crash.
 * The in-process bus is shared and reference-counted: each call here takes one reference, each `close()`
 * gives one back, and only the last `close()` really closes it, so the first deployable to stop does not
 * cut off the others. A NATS bus is one connection per call and closes on its own `close()`.
 */
export async function createBus(
  config: Pick<PlatformConfig, 'natsUrl' | 'natsNamespace' | 'natsCredentials'> & Partial<Pick<PlatformConfig, 'natsStreamReplicas'>>,
  name: string,
  logger: Logger,
  databaseUrl?: string,
): Promise<MessageBus> {
  if (config.natsUrl) {
    return NatsBus.connect(config.natsUrl, { namespace: config.natsNamespace, name, logger, credentials: config.natsCredentials, streamReplicas: config.natsStreamReplicas });
  }
  const shared = inProcessBuses.get(config.natsNamespace);
  if (shared && !shared.isClosed) return shared.retain();
  if (!databaseUrl) throw new Error('without NATS_URL the event log lives in Postgres: createBus needs the database URL');
  const log = new PostgresEventLog({ url: databaseUrl, namespace: config.natsNamespace, logger });
  const bus = new InProcessBus({ namespace: config.natsNamespace, logger, events: { log, close: () => log.close() } });
  inProcessBuses.set(config.natsNamespace, bus);
  logger.info({ namespace: config.natsNamespace, schema: log.schema }, 'no NATS_URL: using the in-process message bus, events in Postgres');
  return bus;
}
