import type { DeepPartial, EntityMetadata, EntityTarget, FindManyOptions, FindOperator, FindOptionsOrder, FindOptionsWhere, ObjectLiteral, QueryDeepPartialEntity, Repository, SelectQueryBuilder } from 'typeorm';
import type { ColumnMetadata } from 'typeorm/metadata/ColumnMetadata.js';
import { encodeBookmark, type PageWindow } from '@lms/contracts';
import type { ListSize } from '../messaging/reply.js';
import { type Database, prepare, type PreparedStatement, unnamed } from './database.js';

/** Lists count their rows up to this many; past it they answer only whether a page follows (`ListSize`). */
export const COUNT_CAP = 1_000;
/** The most parameters one statement can bind (the protocol counts them in 16 bits). */
const MAX_BIND_PARAMETERS = 65_535;

/** The list's size from a count that may have stopped at the cap, and whether a page follows this one. */
export const listSize = (counted: number | undefined, more: boolean): ListSize => counted ?? { more };

/** Every tenant-owned row carries its account. */
export interface TenantOwned extends ObjectLiteral {
  accountId: number;
}

/** The part of the request context that scopes data. */
export interface TenantScope {
  accountId: number;
}

/** A filter that may not name the account: the repository always adds it. */
export type TenantWhere<T> = Omit<FindOptionsWhere<T>, 'accountId'>;

export interface TenantFindOptions<T> {
  where?: TenantWhere<T> | TenantWhere<T>[];
  order?: FindOptionsOrder<T>;
  skip?: number;
  take?: number;
  withDeleted?: boolean;
  /** Holds the rows found until the transaction ends (inside a transaction only). */
  lock?: RowLock;
}

/** Postgres's row lock strengths (`FOR UPDATE`, ...), strongest first. */
export type RowLock = 'update' | 'no key update' | 'share' | 'key share';

const TYPEORM_LOCK = {
  update: 'pessimistic_write',
  'no key update': 'for_no_key_update',
  share: 'pessimistic_read',
  'key share': 'for_key_share',
} as const satisfies Record<RowLock, string>;

export interface TenantFindOneOptions {
  withDeleted?: boolean;
  lock?: RowLock;
}

/**
 * The only way services touch tenant data: every read and write is filtered by the caller's account,
 * so a forgotten filter cannot be written. Joins the transaction in progress.
 */
export class TenantRepository<T extends TenantOwned> {
  /** SQL of `findOne` by the set of filtered columns (and the options); null where TypeORM must build it. */
  private readonly lookups = new Map<string, Lookup | null>();
  private plainEntity?: boolean;
  /** How `insert` writes a row without `save`; null where `save` must (`insertionFor`). */
  private insertPlan?: InsertPlan | null;

  constructor(
    private readonly db: Database,
    private readonly entity: EntityTarget<T>,
  ) {}

  private get repo(): Repository<T> {
    return this.db.manager.getRepository(this.entity);
  }

  /**
   * The repository for a write: first opens the deferred transaction its request waits under (an
   * Idempotency-Key's), so a write outside `transaction` commits with the key, as every write did when the
   * key's transaction was open from the start.
   */
  private async writer(): Promise<Repository<T>> {
    await this.db.beginDeferred();
    return this.repo;
  }

  private scoped(scope: TenantScope, where: TenantWhere<T> = {} as TenantWhere<T>): FindOptionsWhere<T> {
    return { ...where, accountId: scope.accountId } as FindOptionsWhere<T>;
  }

  private whereOf(scope: TenantScope, where: TenantFindOptions<T>['where']): FindOptionsWhere<T> | FindOptionsWhere<T>[] {
    return Array.isArray(where) ? where.map((w) => this.scoped(scope, w)) : this.scoped(scope, where);
  }

  find(scope: TenantScope, options: TenantFindOptions<T> = {}): Promise<T[]> {
    return this.repo.find(this.manyOf(scope, options));
  }

  findAndCount(scope: TenantScope, options: TenantFindOptions<T> = {}): Promise<[T[], number]> {
    return this.repo.findAndCount(this.manyOf(scope, options));
  }

  private manyOf(scope: TenantScope, { lock, ...options }: TenantFindOptions<T>): FindManyOptions<T> {
    return { ...options, where: this.whereOf(scope, options.where), ...(lock ? { lock: { mode: TYPEORM_LOCK[lock] } } : {}) };
  }

  /**
   * One row of the caller's account. `lock` holds it until the transaction ends (inside a transaction
   * only): `update` so that concurrent changes of one row run one after the other, each seeing the last
   * one's result; the weaker strengths where a lock order needs them (docs/scheduling.md "Lock order").
   */
  findOne(scope: TenantScope, where: TenantWhere<T>, options: TenantFindOneOptions = {}): Promise<T | null> {
    const lookup = this.lookupFor(where, options);
    if (lookup) return this.runLookup(lookup, scope, where);
    return this.repo.findOne({ where: this.scoped(scope, where), withDeleted: options.withDeleted, ...(options.lock ? { lock: { mode: TYPEORM_LOCK[options.lock] } } : {}) });
  }

  count(scope: TenantScope, where?: TenantWhere<T>): Promise<number> {
    return this.repo.count({ where: this.scoped(scope, where) });
  }

  /** Inserts a row owned by the caller's account; any `accountId` in `values` is overwritten. */
  async insert(scope: TenantScope, values: Omit<DeepPartial<T>, 'accountId'>): Promise<T> {
    const repo = await this.writer();
    const row = repo.create({ ...values, accountId: scope.accountId } as DeepPartial<T>);
    const insertion = this.insertionFor(row);
    return insertion ? this.runInsertion(insertion, row) : repo.save(row);
  }

  /** Saves changes to a row this repository loaded; refuses a row of another account. */
  async save(scope: TenantScope, row: T): Promise<T> {
    if (row.accountId !== scope.accountId) throw new Error('refusing to save a row of another account');
    return (await this.writer()).save(row);
  }

  /**
   * Inserts rows owned by the caller's account, skipping those that collide with an existing row
   * (ON CONFLICT DO NOTHING), so a repeated or concurrent insert changes nothing. Answers the inserted
   * rows' `returning` columns (SQL column names).
   */
  async insertNew(scope: TenantScope, values: Omit<DeepPartial<T>, 'accountId'>[], returning: string[] = []): Promise<ObjectLiteral[]> {
    if (values.length === 0) return [];
    await this.db.beginDeferred();
    const rows = values.map((v) => ({ ...v, accountId: scope.accountId })) as T[];
    const bulk = this.bulkInsertion(rows, returning);
    if (bulk) return this.db.queryPrepared(bulk.statement, bulk.params);
    // A statement binds at most 65,535 parameters, one per column of each row: TypeORM's INSERT of many rows
    // is several statements, in the rows' order, in one transaction.
    const perStatement = Math.max(1, Math.floor(MAX_BIND_PARAMETERS / this.repo.metadata.columns.length));
    const insertSome = async (some: T[]): Promise<ObjectLiteral[]> => {
      const insert = this.repo.createQueryBuilder().insert().values(some as QueryDeepPartialEntity<T>[]).orIgnore();
      // The string form names SQL columns; an array would be read as entity property names.
      const result = await (returning.length > 0 ? insert.returning(returning.join(', ')) : insert).execute();
      return returning.length > 0 ? (result.raw as ObjectLiteral[]) : [];
    };
    if (rows.length <= perStatement) return insertSome(rows);
    return this.db.transaction(async () => {
      const inserted: ObjectLiteral[] = [];
      for (let start = 0; start < rows.length; start += perStatement) inserted.push(...(await insertSome(rows.slice(start, start + perStatement))));
      return inserted;
    });
  }

  /**
   * `insertNew`'s rows as one INSERT of one array per column (`unnest`), in the rows' order: 20,000 enrollments
   * are one statement of a few parameters instead of six of 65,535 that TypeORM took 2 s to build and Postgres to
   * bind. Null where TypeORM must write them: a column of arrays, a type not listed, or a column some rows leave
   * to its DEFAULT and others give.
   */
  private bulkInsertion(rows: T[], returning: string[]): { statement: PreparedStatement; params: unknown[] } | null {
    const plan = (this.insertPlan ??= this.planInsert());
    if (!plan) return null;
    const driver = this.db.dataSource.driver;
    const present: { column: ColumnMetadata; type: string; values: unknown[] }[] = [];
    for (const column of plan.columns) {
      const raw: unknown[] = rows.map((row) => column.getEntityValue(row));
      // A function is raw SQL TypeORM writes into the statement (checked before a JSON column would stringify it away).
      if (raw.some((value) => typeof value === 'function')) return null;
      const given = raw.map((value) => driver.preparePersistentValue(value, column) as unknown);
      const undefinedCount = given.filter((value) => value === undefined).length;
      if (undefinedCount === rows.length) continue;
      const type = driver.normalizeType(column);
      if (undefinedCount > 0 || column.isArray || !UNNEST_TYPES.has(type) || given.some((value) => typeof value === 'function')) return null;
      present.push({ column, type, values: given });
    }
    if (present.length === 0) return null;
    const escape = (name: string) => driver.escape(name);
    const names = present.map(({ column }) => escape(column.databaseName)).join(', ');
    const arrays = present.map(({ type }, i) => `$${i + 1}::${type}[]`).join(', ');
    const aliases = present.map((_, i) => `c${i}`);
    const sql =
      `INSERT INTO ${plan.table} (${names}) SELECT ${aliases.join(', ')} FROM unnest(${arrays}) WITH ORDINALITY AS u(${aliases.join(', ')}, n) ORDER BY n ` +
      `ON CONFLICT DO NOTHING${returning.length > 0 ? ` RETURNING ${returning.join(', ')}` : ''}`;
    return { statement: unnamed(sql), params: present.map(({ values }) => values) };
  }

  /** Sets columns on the caller's rows that match; answers how many changed. */
  async update(scope: TenantScope, where: TenantWhere<T>, changes: Omit<QueryDeepPartialEntity<T>, 'accountId'>): Promise<number> {
    const repo = await this.writer();
    return (await repo.update(this.scoped(scope, where), changes as QueryDeepPartialEntity<T>)).affected ?? 0;
  }

  /** Deletes the caller's rows that match; answers how many went. */
  async delete(scope: TenantScope, where: TenantWhere<T>): Promise<number> {
    const repo = await this.writer();
    return (await repo.delete(this.scoped(scope, where))).affected ?? 0;
  }

  async remove(scope: TenantScope, row: T): Promise<void> {
    if (row.accountId !== scope.accountId) throw new Error('refusing to remove a row of another account');
    await (await this.writer()).remove(row);
  }

  /**
   * One page of `query` (built with `query()`) in id order, with the size of the whole list (`countUpTo`).
   * After a bookmark the page starts past the bookmarked id, an index range that costs the same at any
   * depth; otherwise at the page's offset. Answers the bookmark of the following page when this one is full.
   */
  async page(query: SelectQueryBuilder<T>, alias: string, window: PageWindow): Promise<{ rows: T[]; total: ListSize; next?: string }> {
    const after = window.after?.[0];
    const rows = query.clone().orderBy(`${alias}.id`, 'ASC').limit(window.take);
    // As bigint: a bookmark is the client's text, and an id past the integer column's range (ours never carries
    // one) must leave no row after it rather than fail the query with Postgres's "out of range" (a 500).
    if (typeof after === 'number') rows.andWhere(`${alias}.id > CAST(:pageAfterId AS bigint)`, { pageAfterId: after });
    else rows.offset(window.skip);
    const [list, counted] = await Promise.all([rows.getMany(), this.countUpTo(query)]);
    const last = list.at(-1) as { id?: unknown } | undefined;
    const full = list.length === window.take;
    const next = full && typeof last?.id === 'number' ? encodeBookmark({ page: window.page + 1, after: [last.id] }) : undefined;
    return { rows: list, total: listSize(counted, full), next };
  }

  /**
   * The number of rows `query` (built with `query()`) selects when it is at most `cap`, else undefined:
   * the count stops at the cap, so a list of a million rows costs what one of `cap` rows costs.
   */
  async countUpTo(query: SelectQueryBuilder<T>, cap = COUNT_CAP): Promise<number | undefined> {
    const [sql, parameters] = query.clone().select('1').orderBy().offset(undefined).limit(cap + 1).getQueryAndParameters();
    const [row] = (await this.db.manager.query(`SELECT count(*)::int AS n FROM (${sql}) counted`, parameters)) as { n: number }[];
    return row.n > cap ? undefined : row.n;
  }

  /**
   * The hot path of every show, update and delete: a lookup by equal columns (and `IsNull()` ones) is one
   * cached SQL text and a hydration by the entity's metadata, instead of a query builder, find options and
   * an alias map built per call. Anything else (other operators, a bare null, relations, embedded columns,
   * transformers on a filtered column, load listeners, inheritance, a lock outside a transaction) takes
   * TypeORM's own path, so the result and the errors are TypeORM's.
   */
  private lookupFor(where: TenantWhere<T>, options: TenantFindOneOptions): Lookup | null {
    if (options.lock && !this.db.inTransaction) return null;
    const names = Object.keys(where);
    let shape = '';
    for (const name of names) {
      const value = (where as Record<string, unknown>)[name];
      if (isNullOperator(value)) shape += `${name} null,`;
      else if (typeof value === 'number' || typeof value === 'string' || typeof value === 'boolean') shape += `${name},`;
      else return null;
    }
    const cacheKey = `${shape}|${options.withDeleted ? 'd' : ''}|${options.lock ?? ''}`;
    let lookup = this.lookups.get(cacheKey);
    if (lookup === undefined) {
      lookup = this.compileLookup(where, options);
      this.lookups.set(cacheKey, lookup);
    }
    return lookup;
  }

  private compileLookup(where: TenantWhere<T>, options: TenantFindOneOptions): Lookup | null {
    const metadata = this.repo.metadata;
    this.plainEntity ??= isPlainEntity(metadata);
    if (!this.plainEntity) return null;
    const escape = (name: string) => this.db.dataSource.driver.escape(name);
    const names = Object.keys(where);
    const filtered = names.map((name) => metadata.findColumnWithPropertyName(name));
    if (filtered.some((column) => !column || column.transformer || column.propertyName === 'accountId')) return null;
    const account = metadata.findColumnWithPropertyName('accountId');
    if (!account) return null;
    const columns = metadata.columns.filter((column) => column.isSelect && !column.isVirtual);
    const keys: string[] = [];
    const conditions = [`${escape(account.databaseName)} = $1`];
    for (const column of filtered as ColumnMetadata[]) {
      if (isNullOperator((where as Record<string, unknown>)[column.propertyName])) {
        conditions.push(`${escape(column.databaseName)} IS NULL`);
      } else {
        keys.push(column.propertyName);
        conditions.push(`${escape(column.databaseName)} = $${keys.length + 1}`);
      }
    }
    if (metadata.deleteDateColumn && !options.withDeleted) conditions.push(`${escape(metadata.deleteDateColumn.databaseName)} IS NULL`);
    const table = quotedTable(metadata, escape);
    const sql = `SELECT ${columns.map((column) => escape(column.databaseName)).join(', ')} FROM ${table} WHERE ${conditions.join(' AND ')} LIMIT 1${options.lock ? ` FOR ${options.lock.toUpperCase()}` : ''}`;
    return { statement: prepare(sql), keys, columns, metadata };
  }

  private async runLookup(lookup: Lookup, scope: TenantScope, where: TenantWhere<T>): Promise<T | null> {
    const params: unknown[] = [scope.accountId];
    for (const key of lookup.keys) params.push((where as Record<string, unknown>)[key]);
    const rows = await this.db.queryPrepared(lookup.statement, params);
    if (rows.length === 0) return null;
    const manager = this.db.manager;
    const driver = manager.connection.driver;
    const row = rows[0];
    const entity = lookup.metadata.create(manager.queryRunner, { fromDeserializer: true }) as T;
    for (const column of lookup.columns) {
      const value = row[column.databaseName];
      if (value !== undefined) column.setEntityValue(entity, driver.prepareHydratedValue(value, column));
    }
    return entity;
  }

  /**
   * The hot path of every create: the INSERT TypeORM's `save` would send (a value for each column the row
   * has, DEFAULT for the others, RETURNING what the database generates), as one cached, prepared text per
   * set of present columns (the first MAX_PREPARED_INSERTS of them), and the row completed as `save`
   * completes it (absent nullable columns null, then the generated values). Without `save`'s subject graph,
   * change maps and broadcasts. A row with a primary key (which `save` would look up first), a raw SQL
   * value, a version or spatial column, insert listeners or subscribers, or anything `isPlainEntity` refuses
   * takes `save`.
   */
  private insertionFor(row: T): { plan: InsertPlan; statement: PreparedStatement; params: unknown[] } | null {
    const plan = (this.insertPlan ??= this.planInsert());
    if (!plan || plan.primary.some((column) => column.getEntityValue(row) !== undefined)) return null;
    const driver = this.db.dataSource.driver;
    const params: unknown[] = [];
    let shape = '';
    for (const column of plan.columns) {
      const given: unknown = column.getEntityValue(row);
      if (typeof given === 'function') return null;
      const value: unknown = driver.preparePersistentValue(given, column);
      if (typeof value === 'function') return null;
      shape += value === undefined ? '0' : '1';
      if (value !== undefined) params.push(value);
    }
    let statement = plan.statements.get(shape);
    if (!statement) {
      const escape = (name: string) => driver.escape(name);
      const present = plan.columns.filter((_, i) => shape[i] === '1');
      const returning = plan.returning.length > 0 ? ` RETURNING ${plan.returning.map((column) => escape(column.databaseName)).join(', ')}` : '';
      const body = present.length > 0 ? `(${present.map((column) => escape(column.databaseName)).join(', ')}) VALUES (${present.map((_, i) => `$${i + 1}`).join(', ')})` : 'DEFAULT VALUES';
      const sql = `INSERT INTO ${plan.table} ${body}${returning}`;
      if (plan.statements.size >= MAX_PREPARED_INSERTS) return { plan, statement: unnamed(sql), params };
      statement = prepare(sql);
      plan.statements.set(shape, statement);
    }
    return { plan, statement, params };
  }

  private async runInsertion({ plan, statement, params }: { plan: InsertPlan; statement: PreparedStatement; params: unknown[] }, row: T): Promise<T> {
    const [generated] = await this.db.queryPrepared(statement, params);
    for (const column of plan.nullable) if (column.getEntityValue(row) === undefined) column.setEntityValue(row, null);
    // As TypeORM merges its generated map: the database's values as pg parsed them.
    for (const column of plan.returning) {
      const value = generated?.[column.databaseName];
      if (value !== undefined) column.setEntityValue(row, value);
    }
    return row;
  }

  private planInsert(): InsertPlan | null {
    const metadata = this.repo.metadata;
    const driver = this.db.dataSource.driver;
    this.plainEntity ??= isPlainEntity(metadata);
    const listening =
      metadata.beforeInsertListeners.length > 0 ||
      metadata.afterInsertListeners.length > 0 ||
      metadata.connection.subscribers.some((subscriber) => typeof subscriber.beforeInsert === 'function' || typeof subscriber.afterInsert === 'function');
    if (!this.plainEntity || listening || metadata.versionColumn) return null;
    // The columns TypeORM's INSERT names on Postgres (InsertQueryBuilder.getInsertedColumns).
    const columns = metadata.columns.filter((column) => column.isInsert && !column.isVirtual && !(column.isGenerated && column.generationStrategy === 'increment'));
    if (columns.some((column) => driver.spatialTypes.includes(column.type as never))) return null;
    return {
      table: quotedTable(metadata, (name) => driver.escape(name)),
      columns,
      primary: metadata.primaryColumns,
      returning: metadata.getInsertionReturningColumns(),
      nullable: metadata.columns.filter((column) => column.isNullable && !column.isVirtual && !column.isDeleteDate),
      statements: new Map(),
    };
  }

  /** A query builder already filtered by account, for queries `find` cannot express. */
  query(scope: TenantScope, alias: string): SelectQueryBuilder<T> {
    return this.repo.createQueryBuilder(alias).where(`${alias}.account_id = :tenantAccountId`, { tenantAccountId: scope.accountId });
  }
}

/** Column types `bulkInsertion` passes as one array each (as `normalizeType` names them). */
const UNNEST_TYPES = new Set(['integer', 'bigint', 'smallint', 'boolean', 'text', 'character varying', 'uuid', 'date', 'timestamp with time zone', 'timestamp without time zone', 'jsonb', 'json', 'numeric', 'real', 'double precision']);

/**
 * The sets of present columns an entity's INSERT is prepared for, the first ones seen; others run unprepared.
 * Which optional fields a create sends is the client's choice: without a bound, a client sending each
 * combination once would have every connection keep a statement for each (35 KB of Postgres' memory
 * apiece, and the text here for the process's life).
 */
const MAX_PREPARED_INSERTS = 16;

interface InsertPlan {
  /** The schema-qualified, quoted table. */
  table: string;
  /** The columns an INSERT may name; those a row leaves undefined get their DEFAULT. */
  columns: ColumnMetadata[];
  primary: ColumnMetadata[];
  /** What the database generates and `save` reads back. */
  returning: ColumnMetadata[];
  /** Left undefined, `save` answers them as null. */
  nullable: ColumnMetadata[];
  /** The prepared INSERT of each set of present columns (a '1' or '0' per column), MAX_PREPARED_INSERTS at most. */
  statements: Map<string, PreparedStatement>;
}

interface Lookup {
  statement: PreparedStatement;
  /** The properties filtered by value, in the order of their parameters ($2 onwards; $1 is the account). */
  keys: string[];
  columns: ColumnMetadata[];
  metadata: EntityMetadata;
}

// TypeORM's own InstanceChecker test: an `instanceof` would make this module load TypeORM, and with it every
// deployable that imports `@lms/platform` (the gateway has no database; openDatabase loads TypeORM lazily).
const FIND_OPERATOR = Symbol.for('FindOperator');
const isNullOperator = (value: unknown): boolean =>
  typeof value === 'object' && value !== null && (value as { '@instanceof'?: symbol })['@instanceof'] === FIND_OPERATOR && (value as FindOperator<unknown>).type === 'isNull';

const quotedTable = (metadata: EntityMetadata, escape: (name: string) => string) =>
  metadata.schema ? `${escape(metadata.schema)}.${escape(metadata.tableName)}` : escape(metadata.tableName);

/** An entity TypeORM would load from its own columns alone: nothing joined, nested, inherited or listening. */
function isPlainEntity(metadata: EntityMetadata): boolean {
  return (
    metadata.relations.length === 0 &&
    metadata.embeddeds.length === 0 &&
    metadata.afterLoadListeners.length === 0 &&
    metadata.childEntityMetadatas.length === 0 &&
    !metadata.inheritancePattern &&
    !metadata.treeType &&
    // Subscribers hear loads only through afterLoad (the outbox's listens to commits).
    metadata.connection.subscribers.every((subscriber) => typeof subscriber.afterLoad !== 'function') &&
    metadata.columns.every((column) => !column.relationMetadata && !column.embeddedMetadata)
  );
}
