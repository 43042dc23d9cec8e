import { Controller, type DynamicModule, Inject, Module } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import { type DumpCsvReply, dumpSubjects, type DumpModelsReply, DumpRowsRequest, type DumpRowsReply, type RequestContext, type RpcRequest } from '@lms/contracts';
import { Database } from '../persistence/database.js';
import { Handles } from '../rpc/handles.js';
import { badRequest, forbidden, notFound } from '../rpc/rpc-errors.js';
import { csvLine } from './csv.js';

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

interface DumpColumn {
  name: string;
  /** information_schema's data_type. */
  type: string;
}

const selectColumn = ({ name, type }: DumpColumn) =>
  type === 'timestamp with time zone' ? `to_char(t.${quote(name)} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')` : `t.${quote(name)}`;

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
    private readonly columns = new Map<string, Promise<DumpColumn[]>>();

    constructor(@Inject(Database) private readonly db: Database) {}

    @Handles(subjects.models, {})
    async models(@Payload() { ctx }: RpcRequest): Promise<DumpModelsReply> {
      requireAdmin(ctx);
      return { models: tables.map((t) => t.model) };
    }

    @Handles(subjects.rows, { body: DumpRowsRequest })
    async rows(@Payload() { ctx, body }: RpcRequest<DumpRowsRequest>): Promise<DumpRowsReply | DumpCsvReply> {
      requireAdmin(ctx);
      const table = byModel.get(body.model);
      if (!table) throw notFound('DUMP_MODEL_NOT_FOUND', `${service} exports no model '${body.model}'.`);
      const key = table.key ?? ['id'];
      if (body.after && body.after.length !== key.length) throw badRequest('DUMP_CURSOR_INVALID', `a cursor of ${body.model} has ${key.length} values`);
      const columns = await this.columnsOf(table);
      const from = `${quote(this.db.schema)}.${quote(table.table ?? table.model)} t`;
      const keyList = key.map((k) => `t.${quote(k)}`).join(', ');
      const params: unknown[] = [ctx.accountId, body.limit];
      const after = body.after ? ` AND (${keyList}) > (${body.after.map((_, i) => `$${i + 3}`).join(', ')})` : '';
      if (body.after) params.push(...body.after);
      // Rows as arrays (the columns, then the key as text); instants written by Postgres as RFC 3339 UTC with
      // milliseconds, as the API renders them, instead of parsed into Dates and formatted again.
      const found = await this.db.queryArrays(
        `SELECT ${columns.map(selectColumn).join(', ')}, ${key.map((k) => `t.${quote(k)}::text`).join(', ')}
         FROM ${from} WHERE t.account_id = $1${after} ORDER BY ${keyList} LIMIT $2`,
        params,
      );
      const width = columns.length;
      const names = columns.map((c) => c.name);
      const csv = body.format === 'csv';
      const rows: unknown[][] = [];
      let text = '';
      let bytes = 0;
      let taken = 0;
      let last: unknown[] | undefined;
      for (const record of found) {
        const row = record.slice(0, width);
        const line = csv ? csvLine(row) : JSON.stringify(row);
        bytes += line.length;
        if (last && bytes > PAGE_BYTES) break;
        if (csv) text += line;
        else rows.push(row);
        last = record;
        taken += 1;
      }
      const more = taken < found.length || found.length === body.limit;
      const next = more && last ? { next: last.slice(width).map(String) } : {};
      return csv ? { columns: names, csv: text, ...next } : { columns: names, rows, ...next };
    }

    private columnsOf(table: DumpTable): Promise<DumpColumn[]> {
      let columns = this.columns.get(table.model);
      if (!columns) {
        columns = this.db.manager
          .query(`SELECT column_name AS name, data_type AS type FROM information_schema.columns WHERE table_schema = $1 AND table_name = $2 AND is_generated = 'NEVER' ORDER BY ordinal_position`, [
            this.db.schema,
            table.table ?? table.model,
          ])
          .then((rows: DumpColumn[]) => rows.filter((c) => !(table.exclude ?? []).includes(c.name)));
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
