import { AsyncLocalStorage } from 'node:async_hooks';
import { createHash } from 'node:crypto';
import type { DataSource, EntityManager, MixedList, EntitySchema, QueryRunner } from 'typeorm';
import type { Logger } from '../observability/logger.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- TypeORM's own signature for entity and migration lists
type Constructor = new (...args: any[]) => any;

export interface DatabaseOptions {
  url: string;
  /** The Postgres schema this service owns; every entity and the migrations table live in it. */
  schema: string;
  entities: MixedList<Constructor | EntitySchema>;
  migrations: Constructor[];
  poolSize?: number;
  logger?: Logger;
}

type Turns = <T>(run: () => Promise<T>) => Promise<T>;
const turnsOf = new WeakMap<QueryRunner, Turns>();

/**
 * A transaction has one connection, and reads run side by side (`Promise.all`) reach it together. pg 8
 * queues them but deprecates doing so (pg 9 drops it), so the transaction's queries take turns here: its
 * runner's `query`, which every repository goes through, and the prepared statements sent to its client.
 * The runner is made for one transaction and dropped after it, so the wrapper goes with it.
 */
function oneAtATime(runner: QueryRunner): void {
  let tail: Promise<unknown> = Promise.resolve();
  const turns: Turns = (run) => {
    const next = tail.then(run);
    tail = next.catch(() => undefined);
    return next;
  };
  turnsOf.set(runner, turns);
  const query = runner.query.bind(runner);
  runner.query = ((...args: Parameters<QueryRunner['query']>) => turns(() => query(...args))) as QueryRunner['query'];
}

const inTurn = <T>(runner: QueryRunner | undefined, run: () => Promise<T>): Promise<T> => {
  const turns = runner && turnsOf.get(runner);
  return turns ? turns(run) : run();
};

/**
 * A transaction that `deferredTransaction` opens at its work's first need of one: the work's first
 * `transaction`, or its first write through a repository (`beginDeferred`). Opened once; a failure to open
 * (the opener refusing, say) fails every later need the same way.
 */
class Deferred {
  manager?: EntityManager;
  private opening?: Promise<EntityManager>;

  constructor(private readonly open: () => Promise<EntityManager>) {}

  begin(): Promise<EntityManager> {
    this.opening ??= this.open().then((manager) => (this.manager = manager));
    return this.opening;
  }

  /** Once an opening begun has ended, either way: what was opened can only be rolled back and released then. */
  async settled(): Promise<void> {
    await this.opening?.catch(() => undefined);
  }
}

type Scope = EntityManager | Deferred;
const managerOf = (scope: Scope | undefined): EntityManager | undefined => (scope instanceof Deferred ? scope.manager : scope);

/**
 * One service's connection to its own schema. `transaction` opens a transaction that every repository
 * joins through `manager`, so a domain row and its outbox event commit or roll back together.
 */
export class Database {
  private readonly scope = new AsyncLocalStorage<Scope>();

  constructor(readonly dataSource: DataSource, readonly schema: string) {}

  /** The manager of the transaction in progress, or the pool's when there is none. */
  get manager(): EntityManager {
    return managerOf(this.scope.getStore()) ?? this.dataSource.manager;
  }

  get inTransaction(): boolean {
    return managerOf(this.scope.getStore()) !== undefined;
  }

  /** Runs `work` in a transaction; nested calls join the outer one, and the first opens a deferred one. */
  async transaction<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    const store = this.scope.getStore();
    const current = managerOf(store);
    if (current) return work(current);
    if (store instanceof Deferred) return work(await store.begin());
    return this.dataSource.transaction((manager) => {
      if (manager.queryRunner) oneAtATime(manager.queryRunner);
      return this.scope.run(manager, () => work(manager));
    });
  }

  /** Opens the deferred transaction `work` runs under, if it waits: a write outside `transaction` needs it too. */
  async beginDeferred(): Promise<void> {
    const store = this.scope.getStore();
    if (store instanceof Deferred && !store.manager) await store.begin();
  }

  /**
   * Runs `work` with a transaction that opens at its first need of one (`transaction`, a repository's write)
   * and ends with it: `begin` runs first in it, `end` last, with `work`'s result, then it commits; a failure
   * anywhere rolls it back. Work that never needed it still gets one for `begin` and `end`. Until then `work`
   * holds no connection: reads go to the pool, and a call to another service waits on no transaction of
   * ours (an Idempotency-Key's transaction held across such calls let two services' pools wait on each other).
   */
  async deferredTransaction<T>(hooks: { begin(manager: EntityManager): Promise<void>; end(manager: EntityManager, result: T): Promise<void> }, work: () => Promise<T>): Promise<T> {
    let runner: QueryRunner | undefined;
    const deferred = new Deferred(async () => {
      runner = this.dataSource.createQueryRunner();
      await runner.connect();
      await runner.startTransaction();
      oneAtATime(runner);
      await hooks.begin(runner.manager);
      return runner.manager;
    });
    try {
      const result = await this.scope.run(deferred, work);
      const manager = await deferred.begin();
      await hooks.end(manager, result);
      await runner!.commitTransaction();
      return result;
    } catch (err) {
      // The work may fail while a write beside it is still opening the transaction (`Promise.all`): a runner
      // released while it connects keeps its connection for ever, and a rollback sent while the opener's
      // statement runs lets the opener's next one run outside the transaction.
      await deferred.settled();
      if (runner?.isTransactionActive) await runner.rollbackTransaction().catch(() => undefined);
      throw err;
    } finally {
      await runner?.release();
    }
  }

  /**
   * Runs `work` so that its failure undoes its own writes alone: in a transaction of its own, or within the
   * one in progress behind a savepoint. For work a caller tries again, as after a unique violation: joined
   * plainly to an outer transaction (an Idempotency-Key's), the failure would abort it, and the second try
   * would fail on "current transaction is aborted".
   */
  async undoable<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    await this.beginDeferred();
    const current = managerOf(this.scope.getStore());
    if (!current) return this.transaction(work);
    await current.query('SAVEPOINT undoable');
    try {
      const result = await work(current);
      await current.query('RELEASE SAVEPOINT undoable');
      return result;
    } catch (err) {
      await current.query('ROLLBACK TO SAVEPOINT undoable');
      await current.query('RELEASE SAVEPOINT undoable');
      throw err;
    }
  }

  /**
   * Rows as arrays of values in column order, straight from the driver: no per-row objects to build and key
   * by name, which is most of the cost of reading a large table (the data dump's pages). On the pool: it
   * does not join a transaction in progress.
   */
  async queryArrays(sql: string, params: unknown[] = []): Promise<unknown[][]> {
    return (await this.pool.query({ text: sql, values: params, rowMode: 'array' })).rows;
  }

  /**
   * Rows of a prepared statement (`prepare`), in the transaction in progress if there is one: Postgres
   * parses and plans it once per connection instead of once per call (half of its CPU for a lookup by key).
   */
  async queryPrepared(statement: PreparedStatement, params: unknown[]): Promise<Record<string, unknown>[]> {
    const current = managerOf(this.scope.getStore());
    if (!current) {
      // pg-pool drops a connection whose query failed, so each of the pool's connections with a stale plan
      // costs one try at most.
      for (let tries = 1; ; tries++) {
        try {
          return await this.runPrepared(this.pool, statement, params);
        } catch (err) {
          if (!isStalePlan(err) || tries > (this.pool.options.max ?? 10)) throw err;
        }
      }
    }
    // The transaction's own pg client (TypeORM's query runner holds it once the transaction began).
    const client = (current.queryRunner as { databaseConnection?: PgClient } | undefined)?.databaseConnection;
    if (!client) return (await current.query(statement.sql, params)) as Record<string, unknown>[];
    try {
      return await inTurn(current.queryRunner, () => this.runPrepared(client, statement, params));
    } catch (err) {
      // This connection would refuse the statement for good: closed, the pool replaces it on release.
      if (isStalePlan(err)) void client.end().catch(() => undefined);
      throw err;
    }
  }

  /**
   * A query object made from the text and then named: pg copies a query config object, property
   * descriptors and all, on every call (4% of a read's CPU), and takes a query object as it is.
   */
  private runPrepared(client: PgPool | PgClient, statement: PreparedStatement, params: unknown[]): Promise<Record<string, unknown>[]> {
    const { Query } = this.pool.Client;
    if (client === this.pool) {
      const query = new Query(statement.sql, params);
      query.name = statement.name;
      return this.pool.query(query).then((result) => result.rows as unknown as Record<string, unknown>[]);
    }
    return new Promise((resolve, reject) => {
      const query = new Query(statement.sql, params, (err, result) => (err ? reject(err) : resolve(result!.rows as Record<string, unknown>[])));
      query.name = statement.name;
      void client.query(query);
    });
  }

  /**
   * Runs `work` on a connection of its own, for session state such as an advisory lock that says a worker is
   * alive. A connection whose `work` failed is closed rather than pooled, so no session state outlives it.
   */
  async onOwnConnection<T>(work: (query: (sql: string, params?: unknown[]) => Promise<Record<string, unknown>[]>) => Promise<T>): Promise<T> {
    const client = await this.pool.connect();
    // A checked-out client has no listener: a server going away while it is held would crash the process.
    // The query in progress fails on its own; the error here only has to be heard.
    const lost = () => undefined;
    client.on('error', lost);
    try {
      const result = await work(async (sql, params = []) => (await client.query({ text: sql, values: params })).rows as Record<string, unknown>[]);
      client.off('error', lost);
      client.release();
      return result;
    } catch (err) {
      client.off('error', lost);
      client.release(err instanceof Error ? err : new Error(String(err)));
      throw err;
    }
  }

  private get pool(): PgPool {
    return (this.dataSource.driver as unknown as { master: PgPool }).master;
  }

  async ping(): Promise<void> {
    await this.dataSource.query('SELECT 1');
  }

  async close(): Promise<void> {
    if (this.dataSource.isInitialized) await this.dataSource.destroy();
  }
}

/** pg's query object: what a client runs as it is, without copying it first. */
interface PgQuery {
  name?: string;
  submit(connection: unknown): void;
}

/** A transaction's pg client: a query object it is given answers through the object's own callback. */
interface PgClient {
  query(q: PgQuery): unknown;
  end(): Promise<void>;
}

interface PgPoolClient {
  query(q: { text: string; values: unknown[] }): Promise<{ rows: unknown[] }>;
  on(event: 'error', listener: (err: Error) => void): void;
  off(event: 'error', listener: (err: Error) => void): void;
  release(err?: Error): void;
}

/**
 * Postgres refuses a prepared statement whose result columns changed type under it (a migration of a newer
 * version altered a column while this one runs) until the statement is dropped with its connection.
 */
const isStalePlan = (err: unknown): boolean => (err as { code?: unknown } | null)?.code === '0A000' && /cached plan must not change result type/.test(String((err as Error).message));

/** A fixed SQL text and the name Postgres prepares it under (`Database.queryPrepared`). */
/**
 * What `EntityManager.query` answered, as rows and a count: TypeORM answers an UPDATE or a DELETE with
 * `[rows, count]` (the rows of its RETURNING, if any; the count of rows it changed), and any other statement
 * with its rows alone (the count is then theirs: an INSERT without RETURNING counts 0).
 */
export function queryResult<T = Record<string, unknown>>(result: unknown): { rows: T[]; count: number } {
  const answer = result as T[] | [T[], number];
  if (answer.length === 2 && Array.isArray(answer[0]) && typeof answer[1] === 'number') return { rows: answer[0], count: answer[1] };
  return { rows: answer as T[], count: answer.length };
}

/**
 * Runs `batch` (one statement removing at most `size` rows) until one removes fewer; answers how many went
 * in all. A sweep of old rows so never holds many locks, nor one long transaction.
 */
export async function inBatches(size: number, batch: () => Promise<number>): Promise<number> {
  let total = 0;
  for (;;) {
    const removed = await batch();
    total += removed;
    if (removed < size) return total;
  }
}

export interface PreparedStatement {
  readonly sql: string;
  /** Undefined: Postgres parses the text at each call, and keeps nothing for it (`unnamed`). */
  readonly name?: string;
}

/** One name per text, the same in every process; make it once, not per call. */
export function prepare(sql: string): PreparedStatement {
  return { sql, name: `lms_${createHash('sha1').update(sql).digest('base64url')}` };
}

/** A text `queryPrepared` runs without preparing it: for texts made from what a client chose, of which no connection should keep one each. */
export const unnamed = (sql: string): PreparedStatement => ({ sql });

/** The part of pg's pool this class uses (TypeORM's driver keeps it as `master`). */
interface PgPool {
  query(q: { text: string; values: unknown[]; rowMode?: 'array' } | PgQuery): Promise<{ rows: unknown[][] }>;
  options: { max?: number };
  Client: { Query: new (text: string, values: unknown[], callback?: (err: Error | null, result?: { rows: unknown[] }) => void) => PgQuery };
  connect(): Promise<PgPoolClient>;
}

const quoteIdent = (name: string) => `"${name.replace(/"/g, '""')}"`;

/** Connects, creates the schema if needed and applies pending migrations (one advisory lock serialises replicas). */
export async function openDatabase(options: DatabaseOptions): Promise<Database> {
  // Loaded here, not with the module: a deployable without a database (the gateway) never pays for TypeORM.
  const { DataSource } = await import('typeorm');
  const dataSource = new DataSource({
    type: 'postgres',
    url: options.url,
    schema: options.schema,
    entities: options.entities,
    migrations: options.migrations,
    migrationsTableName: 'migrations',
    migrationsTransactionMode: 'each',
    synchronize: false,
    poolSize: options.poolSize ?? 10,
    applicationName: `lms-${options.schema}`,
  });
  await dataSource.initialize();
  try {
    await migrate(dataSource, options.schema, options.logger);
  } catch (err) {
    await dataSource.destroy();
    throw err;
  }
  return new Database(dataSource, options.schema);
}

async function migrate(dataSource: DataSource, schema: string, logger?: Logger): Promise<void> {
  const runner = dataSource.createQueryRunner();
  await runner.connect();
  try {
    // Replicas starting together must not race on the same migrations.
    await runner.query('SELECT pg_advisory_lock(hashtext($1))', [`migrate:${schema}`]);
    // Only when missing: CREATE SCHEMA needs CREATE on the database even with IF NOT EXISTS, which a
    // service's own role does not have where an operator made its schema (k8s/base/postgres/roles.sql).
    const [{ exists }] = (await runner.query('SELECT EXISTS (SELECT 1 FROM pg_namespace WHERE nspname = $1) AS exists', [schema])) as { exists: boolean }[];
    if (!exists) await runner.query(`CREATE SCHEMA ${quoteIdent(schema)}`);
    const applied = await dataSource.runMigrations({ transaction: 'each' });
    for (const m of applied) logger?.info({ schema, migration: m.name }, 'migration applied');
  } finally {
    await runner.query('SELECT pg_advisory_unlock(hashtext($1))', [`migrate:${schema}`]).catch(() => undefined);
    await runner.release();
  }
}
