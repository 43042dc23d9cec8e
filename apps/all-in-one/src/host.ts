import {
  assertAllInOneConfig,
  createBus,
  createLogger,
  type Deployable,
  type HealthIndicator,
  type Logger,
  type PlatformConfig,
  type Runtime,
  type ServiceDefinition,
  migrateService,
} from '@lms/platform';
import { embeddedPostgresDir, startEmbeddedPostgres } from '@lms/embedded-postgres';

/** Services in start order (jobs migrates the schema jobs-worker works in); the gateway comes last. */
export const SERVICES = ['identity', 'catalog', 'scheduling', 'jobs', 'jobs-worker', 'locking'] as const;

interface GatewayDeployable extends Deployable {
  url: string;
}

interface DeployableModule {
  start(runtime: Runtime, ...rest: unknown[]): Promise<Deployable>;
  service?: ServiceDefinition;
}

/**
 * Where a deployable's entry module is: beside this file's folder once built (dist/apps/<name>/main.js),
 * or in its source tree under the test runner (apps/<name>/src/main.ts).
 */
function entryOf(name: string): string {
  const fromSource = import.meta.url.endsWith('.ts');
  return new URL(fromSource ? `../../${name}/src/main.ts` : `../${name}/main.js`, import.meta.url).href;
}

/** Deployables are loaded at run time, like a process supervisor would start them: no app imports another app's code. */
export async function load(name: string): Promise<DeployableModule> {
  return (await import(entryOf(name))) as DeployableModule;
}

export interface System {
  url: string;
  databaseUrl: string;
  bus: Runtime['bus'];
  close(): Promise<void>;
}

export interface SystemOptions {
  config: PlatformConfig;
  logger?: Logger;
  /** Deployables left out (a test runs jobs-worker as processes of its own to kill one). */
  without?: readonly (typeof SERVICES)[number][];
}

/** Every deployable in one process: embedded Postgres and the in-process bus (events in that Postgres) unless DATABASE_URL / NATS_URL are set. */
export async function startSystem({ config, logger = createLogger(config.logLevel, { mode: 'all-in-one' }), without = [] }: SystemOptions): Promise<System> {
  assertAllInOneConfig(config);
  const embedded = config.databaseUrl ? undefined : await startEmbeddedPostgres(embeddedPostgresDir(config.dataDir), config.embeddedPostgresPort, logger);
  const databaseUrl = config.databaseUrl ?? embedded!.url;
  const bus = await createBus(config, 'all-in-one', logger, databaseUrl);
  await bus.events.ensureStreams();
  const runtime: Runtime = { config, databaseUrl, bus, logger };
  const started: Deployable[] = [];
  const closeAll = async () => {
    for (const deployable of started.reverse()) await deployable.close().catch((err: unknown) => logger.error({ err, deployable: deployable.name }, 'close failed'));
    await bus.close();
    await embedded?.stop();
  };
  try {
    for (const name of SERVICES.filter((n) => !without.includes(n))) started.push(await (await load(name)).start(runtime));
    const indicators: HealthIndicator[] = [
      ...started.flatMap((d) => d.indicators),
      { name: 'nats', check: () => bus.ping() },
    ];
    const gateway = (await (await load('gateway')).start(runtime, undefined, { indicators })) as GatewayDeployable;
    started.push(gateway);
    return { url: gateway.url, databaseUrl, bus, close: closeAll };
  } catch (err) {
    await closeAll();
    throw err;
  }
}

/** Applies every service's migrations to the configured (or embedded) database, then stops. */
export async function migrateAll(config: PlatformConfig, logger: Logger): Promise<void> {
  const embedded = config.databaseUrl ? undefined : await startEmbeddedPostgres(embeddedPostgresDir(config.dataDir), config.embeddedPostgresPort, logger);
  try {
    for (const name of SERVICES) {
      const { service } = await load(name);
      if (service) await migrateService(service, config.databaseUrl ?? embedded!.url, logger);
    }
  } finally {
    await embedded?.stop();
  }
}
