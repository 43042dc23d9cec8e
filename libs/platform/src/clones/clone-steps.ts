import type { EntityManager, QueryRunner } from 'typeorm';
import type { Database } from '../persistence/database.js';
import { conflict, DomainError } from '../rpc/rpc-errors.js';

/**
 * A sub-account clone's steps as each service keeps them (docs/jobs.md "Sub-account clones"). Every step is
 * keyed by the clone's id: `clone_steps` records that the step was done (with its answer) or undone, and
 * `clone_copies` which rows the step made, so
 * - a redelivered step answers what the first one did and copies nothing twice;
 * - compensation removes exactly the step's copies, and a step arriving after its compensation (a request
 *   that outlived its caller's timeout) is refused instead of copying again.
 * Both run under a transaction-scoped advisory lock on the clone id, so a step and its undo never interleave.
 */
export async function cloneStepTablesUp(q: QueryRunner, schema: string): Promise<void> {
  await q.query(`
    CREATE TABLE "${schema}".clone_steps (
      clone_id uuid PRIMARY KEY,
      account_id integer NOT NULL,
      state text NOT NULL CHECK (state IN ('done', 'undone')),
      result jsonb NOT NULL DEFAULT '{}',
      updated_at timestamptz NOT NULL DEFAULT now()
    )`);
  await q.query(`
    CREATE TABLE "${schema}".clone_copies (
      account_id integer NOT NULL,
      clone_id uuid NOT NULL,
      kind text NOT NULL,
      source_id integer NOT NULL,
      copy_id integer NOT NULL,
      PRIMARY KEY (clone_id, kind, source_id)
    )`);
  await q.query(`CREATE INDEX clone_copies_account ON "${schema}".clone_copies (account_id, clone_id)`);
}

export async function cloneStepTablesDown(q: QueryRunner, schema: string): Promise<void> {
  await q.query(`DROP TABLE "${schema}".clone_copies`);
  await q.query(`DROP TABLE "${schema}".clone_steps`);
}

/** Postgres errors that are worth another try later: serialization, deadlock, connection, shutdown, resources. */
const TRANSIENT_SQLSTATE = /^(40001|40P01|08...|57P..|53...)$/;

function sqlState(err: unknown): string | undefined {
  const code = (err as { code?: unknown; driverError?: { code?: unknown } })?.driverError?.code ?? (err as { code?: unknown })?.code;
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) ? code : undefined;
}

/**
 * Locks the clone id in this service for the rest of the transaction. The key names the schema: advisory locks
 * are the database's, and in one database (the embedded default) identity's step must not wait for catalog's.
 */
const lockClone = (db: Database, manager: EntityManager, cloneId: string) => manager.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`clone:${db.schema}:${cloneId}`]);

/**
 * Runs `work` once per clone id, in one transaction with the record of it: all of the step's copies commit,
 * or none. A database refusal of the copy (a constraint, a trigger, a privilege) is answered as a 422
 * `CLONE_STEP_FAILED` naming the cause, which the saga treats as final; transient database trouble stays an
 * error the saga retries.
 */
export async function runCloneStep<R extends object>(db: Database, accountId: number, cloneId: string, step: string, work: (manager: EntityManager) => Promise<R>): Promise<R> {
  try {
    return await db.transaction(async (manager) => {
      await lockClone(db, manager, cloneId);
      const [row] = (await manager.query(`SELECT account_id, state, result FROM "${db.schema}".clone_steps WHERE clone_id = $1`, [cloneId])) as {
        account_id: number;
        state: 'done' | 'undone';
        result: R;
      }[];
      if (row && row.account_id !== accountId) throw conflict('CLONE_STEP_FOREIGN', `clone ${cloneId} is another account's`);
      if (row?.state === 'done') return row.result;
      if (row?.state === 'undone') throw conflict('CLONE_UNDONE', `${step}: clone ${cloneId} was already compensated`);
      const result = await work(manager);
      await manager.query(`INSERT INTO "${db.schema}".clone_steps (clone_id, account_id, state, result) VALUES ($1, $2, 'done', $3)`, [cloneId, accountId, JSON.stringify(result)]);
      return result;
    });
  } catch (err) {
    if (err instanceof DomainError) throw err;
    const state = sqlState(err);
    if (state && !TRANSIENT_SQLSTATE.test(state)) {
      throw new DomainError(422, 'CLONE_STEP_FAILED', 'Unprocessable Content', `${step} failed: ${err instanceof Error ? err.message : String(err)}`);
    }
    throw err;
  }
}

/** Records the copies a step made, as `[source id, copy id]` pairs (compensation removes what these name). */
export async function recordCloneCopies(manager: EntityManager, schema: string, accountId: number, cloneId: string, kind: string, pairs: [number, number][]): Promise<void> {
  if (pairs.length === 0) return;
  await manager.query(
    `INSERT INTO "${schema}".clone_copies (account_id, clone_id, kind, source_id, copy_id)
     SELECT $1, $2, $3, p.source_id, p.copy_id FROM unnest($4::int[], $5::int[]) AS p(source_id, copy_id)`,
    [accountId, cloneId, kind, pairs.map(([source]) => source), pairs.map(([, copy]) => copy)],
  );
}

/** The copies of one kind a clone made in the account, as `source id -> copy id`. */
export async function cloneCopies(manager: EntityManager, schema: string, accountId: number, cloneId: string, kind: string): Promise<Map<number, number>> {
  const rows = (await manager.query(`SELECT source_id, copy_id FROM "${schema}".clone_copies WHERE account_id = $1 AND clone_id = $2 AND kind = $3`, [accountId, cloneId, kind])) as {
    source_id: number;
    copy_id: number;
  }[];
  return new Map(rows.map((r) => [r.source_id, r.copy_id]));
}

/**
 * Compensation: `undo` removes the step's copies (read from clone_copies); the step is then recorded
 * `undone`, so it answers a late or repeated request with a refusal. Undoing twice, or a step never done,
 * is harmless.
 */
export async function undoCloneStep(db: Database, accountId: number, cloneId: string, undo: (manager: EntityManager) => Promise<number>): Promise<number> {
  return db.transaction(async (manager) => {
    await lockClone(db, manager, cloneId);
    const [row] = (await manager.query(`SELECT account_id FROM "${db.schema}".clone_steps WHERE clone_id = $1`, [cloneId])) as { account_id: number }[];
    if (row && row.account_id !== accountId) throw conflict('CLONE_STEP_FOREIGN', `clone ${cloneId} is another account's`);
    const removed = await undo(manager);
    await manager.query(`DELETE FROM "${db.schema}".clone_copies WHERE account_id = $1 AND clone_id = $2`, [accountId, cloneId]);
    await manager.query(
      `INSERT INTO "${db.schema}".clone_steps (clone_id, account_id, state) VALUES ($1, $2, 'undone')
       ON CONFLICT (clone_id) DO UPDATE SET state = 'undone', updated_at = now()`,
      [cloneId, accountId],
    );
    return removed;
  });
}

/** The columns of a table in column order, minus `except`: a copy carries every column a migration adds. */
export async function copyableColumns(manager: EntityManager, schema: string, table: string, except: string[]): Promise<string[]> {
  const rows = (await manager.query(
    `SELECT column_name FROM information_schema.columns WHERE table_schema = $1 AND table_name = $2 AND is_generated = 'NEVER' AND is_identity = 'NO' ORDER BY ordinal_position`,
    [schema, table],
  )) as { column_name: string }[];
  return rows.map((r) => r.column_name).filter((c) => !except.includes(c));
}

export const quoteIdent = (name: string) => `"${name.replace(/"/g, '""')}"`;

export interface RowCopy {
  /** Columns the copies take as given. */
  set?: Record<string, unknown>;
  /**
   * Columns naming rows copied before (`source id -> copy id`): a copy takes the copy of its source's value,
   * or the value itself when that row was not copied.
   */
  remap?: Record<string, [number, number][]>;
  /** Columns left to their defaults (ids, uuids, timestamps). */
  except?: string[];
}

/**
 * Copies the rows of `table` matching `where` (its parameters from `$1`) in two statements, whatever their
 * number: the copies' ids are drawn from the table's sequence first, so each copy is paired with its source
 * without relying on the order of an INSERT's RETURNING. Answers `[source id, copy id]` pairs in id order.
 */
export async function copyRows(manager: EntityManager, schema: string, table: string, where: string, params: unknown[], copy: RowCopy = {}): Promise<[number, number][]> {
  const set = copy.set ?? {};
  const remap = copy.remap ?? {};
  const setNames = Object.keys(set);
  const remapNames = Object.keys(remap);
  const columns = await copyableColumns(manager, schema, table, [...(copy.except ?? ['id', 'uuid', 'created_at', 'updated_at']), 'id', ...setNames, ...remapNames]);
  const from = `${quoteIdent(schema)}.${quoteIdent(table)}`;
  const drawn = (await manager.query(`SELECT id, nextval(pg_get_serial_sequence($${params.length + 1}, 'id')) AS copy_id FROM ${from} WHERE ${where} ORDER BY id`, [
    ...params,
    from,
  ])) as { id: number; copy_id: string }[];
  const pairs = drawn.map((r): [number, number] => [Number(r.id), Number(r.copy_id)]);
  if (pairs.length === 0) return pairs;

  const values: unknown[] = [pairs.map(([source]) => source), pairs.map(([, made]) => made)];
  const param = (value: unknown) => `$${values.push(value)}`;
  const exprs = ['p.copy_id', ...columns.map((c) => `s.${quoteIdent(c)}`)];
  for (const name of setNames) exprs.push(param(set[name]));
  for (const name of remapNames) {
    const sources = param(remap[name].map(([source]) => source));
    const copies = param(remap[name].map(([, made]) => made));
    exprs.push(`coalesce((SELECT m.copy_id FROM unnest(${sources}::int[], ${copies}::int[]) AS m(source_id, copy_id) WHERE m.source_id = s.${quoteIdent(name)}), s.${quoteIdent(name)})`);
  }
  const into = ['id', ...columns, ...setNames, ...remapNames].map(quoteIdent).join(', ');
  await manager.query(`INSERT INTO ${from} (${into}) SELECT ${exprs.join(', ')} FROM ${from} s JOIN unnest($1::int[], $2::int[]) AS p(source_id, copy_id) ON s.id = p.source_id`, values);
  return pairs;
}
