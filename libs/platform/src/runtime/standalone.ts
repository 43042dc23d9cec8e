import { realpathSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { ConfigError, loadConfig, type PlatformConfig } from '../config/config.js';
import { createBus } from '../messaging/create-bus.js';
import { startHealthServer } from '../observability/health-server.js';
import { createLogger, type Logger } from '../observability/logger.js';
import { trimHeapWhenIdle } from './heap-memory.js';
import type { StartFn } from './runtime.js';
import { migrateService, type ServiceDefinition } from './start-service.js';

/** True when this module is the program node was started with (`node dist/apps/x/main.js`), not imported by the all-in-one host. */
export function isEntrypoint(moduleUrl: string): boolean {
  const entry = process.argv[1];
  if (!entry) return false;
  try {
    return pathToFileURL(realpathSync(entry)).href === moduleUrl;
  } catch {
    return false;
  }
}

/** Reads configuration or exits with the reason: a misconfigured process must not half-start. */
export function loadConfigOrExit(check?: (config: PlatformConfig) => void): PlatformConfig {
  try {
    const config = loadConfig();
    check?.(config);
    return config;
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`configuration error: ${err.message}\n`);
      process.exit(1);
    }
    throw err;
  }
}

/** Writes out what the logger still buffers (stdout is written asynchronously), then exits. */
function exitFlushed(logger: Logger, code: number): void {
  logger.flush(() => process.exit(code));
}

/**
 * SIGTERM/SIGINT close everything once, in order (in-flight work finishes, the outbox is relayed), then
 * the last log lines are flushed and the process exits 0; a close that hangs is cut off after `graceMs`
 * (within Kubernetes' 30 s termination grace) so the pod still ends.
 */
export function installShutdown(logger: Logger, close: () => Promise<void>, graceMs = 20_000): void {
  let closing = false;
  const stop = async (signal: string) => {
    if (closing) return;
    closing = true;
    logger.info({ signal }, 'shutting down: draining in-flight work');
    setTimeout(() => {
      logger.error('shutdown did not finish in time');
      exitFlushed(logger, 1);
    }, graceMs).unref();
    try {
      await close();
      logger.info('stopped');
      exitFlushed(logger, 0);
    } catch (err) {
      logger.error({ err }, 'shutdown failed');
      exitFlushed(logger, 1);
    }
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('unhandledRejection', (err) => logger.error({ err }, 'unhandled rejection'));
}

export interface StandaloneOptions {
  /** A service's schema and migrations: it needs DATABASE_URL, and `--migrate` migrates it. The gateway has none. */
  service?: ServiceDefinition;
  /** /healthz, /readyz, /metrics on HEALTH_PORT (every deployable run alone does). */
  serveHealth: boolean;
  /** False for the gateway: it has no event log, so it neither creates the streams nor holds JetStream permissions. */
  usesEvents?: boolean;
}

/** One deployable in its own process (Kubernetes): real NATS and Postgres are required. */
export async function runStandalone(name: string, start: StartFn, options: StandaloneOptions): Promise<void> {
  const config = loadConfigOrExit();
  // Deployables bind their own `service` field; binding it here too would print it twice.
  const logger = createLogger(config.logLevel);
  if (process.argv.includes('--migrate')) return migrateAndExit(name, options.service, config, logger);
  const missing = [!config.natsUrl && 'NATS_URL', options.service && !config.databaseUrl && 'DATABASE_URL'].filter(Boolean);
  if (missing.length > 0) {
    logger.fatal({ service: name }, `${missing.join(' and ')} must be set when ${name} runs alone (npm start runs every deployable in one process on embedded defaults)`);
    process.exit(1);
  }
  const own = logger.child({ service: name });
  if (!config.natsCredentials) own.warn('NATS_USER and NATS_PASSWORD are not set: connecting without a NATS user, so nothing limits what this process may publish (docs/security.md)');
  const bus = await createBus(config, name, own);
  if (options.usesEvents !== false) await bus.events.ensureStreams();
  const deployable = await start({ config, databaseUrl: config.databaseUrl ?? '', bus, logger });
  const health = options.serveHealth
    ? await startHealthServer(config.healthPort, config.host, () => [...deployable.indicators, { name: 'nats', check: () => bus.ping() }], deployable.metrics)
    : undefined;
  if (health) own.info({ port: config.healthPort }, 'health and metrics endpoints are up');
  trimHeapWhenIdle(own);
  installShutdown(own, async () => {
    // Probes see the process go first, so no new traffic is routed here while the rest drains.
    health?.close();
    await deployable.close();
    await bus.close();
  });
}

/**
 * `node main.js --migrate`: the deployable's migrations and nothing else (Kubernetes runs it in an init
 * container, so a new version's pods start only on a migrated schema and a failed migration keeps them
 * from replacing the running ones). Exit 0 when migrated, 1 when it failed, 2 when there is nothing to do it with.
 */
async function migrateAndExit(name: string, service: ServiceDefinition | undefined, config: PlatformConfig, logger: Logger): Promise<void> {
  const own = logger.child({ service: name, mode: 'migrate' });
  if (!service || !config.databaseUrl) {
    own.fatal(service ? 'DATABASE_URL must be set to migrate' : `${name} has no schema to migrate`);
    return exitFlushed(own, 2);
  }
  try {
    await migrateService(service, config.databaseUrl, own);
    own.info({ schema: service.schema }, 'schema is migrated');
    exitFlushed(own, 0);
  } catch (err) {
    own.fatal({ err }, 'migration failed');
    exitFlushed(own, 1);
  }
}
