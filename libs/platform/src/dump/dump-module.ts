import { Controller, type DynamicModule, Inject, Module } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import { dumpSubjects, type DumpModelsReply, DumpRowsRequest, type DumpRowsReply, type RequestContext, type RpcRequest } from '@lms/contracts';
import { Database } from '../persistence/database.js';
import { Handles } from '../rpc/handles.js';
import { badRequest, forbidden, notFound } from '../rpc/rpc-errors.js';

/** One table a service exports in the data dump: every column but `exclude`, the account's rows only. */
export interface DumpTable {
  /** The model name: the CSV file is `<model>.csv`. */
  model: string;
  /** The table in the service's schema; the model name when absent. */
  table?: string;
  /** A unique key to page by, in order; `['id']` when absent. */
  key?: string[];
  /** Columns never exported (secrets, hashes). */
  exclude?: string[];
}

/** A page stops growing past this many bytes of JSON, whatever `limit` asked: a NATS message holds 1 MB by default. */
const PAGE_BYTES = 512 * 1024;

const quote = (name: string) => `"${name.replace(/"/g, '""')}"`;

/** The data dump is an administrator's: the caller context a job carries is its creator's. */
function requireAdmin(ctx: RequestContext): void {
  if (!ctx.roles.includes('admin')) throw forbidden('DUMP_FORBIDDEN', 'Only an administrator may export the account.');
}

/**
 * The service's part of the data dump from one declaration: it serves `<service>.dump.models` and
 * `<service>.dump.rows` (docs/jobs.md) over its own schema. Columns are read from the catalogue, so a
 * column a migration adds is exported without changing the declaration; rows are the caller's account's
 * only (`account_id` from the sealed caller context, never from the request), paged by key.
 */
export function dumpModule(service: string, tables: DumpTable[]): DynamicModule {
  const subjects = dumpSubjects(service);
  const byModel = new Map(tables.map((t) => [t.model, t]));

  @Controller()
  class DumpHandlers {
    private readonly columns = new Map<string, Promise<string[]>>();

    constructor(@Inject(Database) private readonly db: Database) {}

    @Handles(subjects.models, {})
    async models(@Payload() { ctx }: RpcRequest): Promise<DumpModelsReply> {
      requireAdmin(ctx);
      return { models: tables.map((t) => t.model) };
    }

    @Handles(subjects.rows, { body: DumpRowsRequest })
    async rows(@Payload() { ctx, body }: RpcRequest<DumpRowsRequest>): Promise<DumpRowsReply> {
      requireAdmin(ctx);
      const table = byModel.get(body.model);
      if (!table) throw notFound('DUMP_MODEL_NOT_FOUND', `${service} exports no model '${body.model}'.`);
      const key = table.key ?? ['id'];
      if (body.after && body.after.length !== key.length) throw badRequest('DUMP_CURSOR_INVALID', `a cursor of ${body.model} has ${key.length} values`);
      const columns = await this.columnsOf(table);
      const from = `${quote(this.db.schema)}.${quote(table.table ?? table.model)}`;
      const keyList = key.map(quote).join(', ');
      const params: unknown[] = [ctx.accountId, body.limit];
      const after = body.after ? ` AND (${keyList}) > (${body.after.map((_, i) => `$${i + 3}`).join(', ')})` : '';
      if (body.after) params.push(...body.after);
      const found = (await this.db.manager.query(
        `SELECT ${columns.map(quote).join(', ')}, ${key.map((k, i) => `${quote(k)}::text AS "__key${i}"`).join(', ')}
         FROM ${from} WHERE account_id = $1${after} ORDER BY ${keyList} LIMIT $2`,
        params,
      )) as Record<string, unknown>[];
      const rows: unknown[][] = [];
      let bytes = 0;
      let last: Record<string, unknown> | undefined;
      for (const record of found) {
        const row = columns.map((c) => record[c] ?? null);
        bytes += JSON.stringify(row).length;
        if (rows.length > 0 && bytes > PAGE_BYTES) break;
        rows.push(row);
        last = record;
      }
      const more = rows.length < found.length || found.length === body.limit;
      return { columns, rows, ...(more && last ? { next: key.map((_, i) => String(last[`__key${i}`])) } : {}) };
    }

    private columnsOf(table: DumpTable): Promise<string[]> {
      let columns = this.columns.get(table.model);
      if (!columns) {
        columns = this.db.manager
          .query(`SELECT column_name FROM information_schema.columns WHERE table_schema = $1 AND table_name = $2 ORDER BY ordinal_position`, [
            this.db.schema,
            table.table ?? table.model,
          ])
          .then((rows: { column_name: string }[]) => rows.map((r) => r.column_name).filter((c) => !(table.exclude ?? []).includes(c)));
        columns.catch(() => this.columns.delete(table.model));
        this.columns.set(table.model, columns);
      }
      return columns;
    }
  }

  @Module({ controllers: [DumpHandlers] })
  class DumpModule {}

  return { module: DumpModule };
}
