import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import { EXPORT_SUBJECTS, type ExportPage, ExportPageRequest, type RequestContext, type RpcRequest } from '@lms/contracts';
import { badRequest, Database, forbidden, Handles } from '@lms/platform';
import { periodOf } from './period.js';

function requireAdmin(ctx: RequestContext): void {
  if (!ctx.roles.includes('admin')) throw forbidden('EXPORT_FORBIDDEN', 'Only an administrator may export the users of the account.');
}

/** A page's cursor: the last user id. */
function afterId(after: string | undefined): number {
  if (after === undefined) return 0;
  if (!/^\d{1,10}$/.test(after) || Number(after) > 2_147_483_647) throw badRequest('EXPORT_CURSOR_INVALID', 'The cursor is a user id.');
  return Number(after);
}

const page = (columns: Record<string, string>, found: Record<string, unknown>[], limit: number): ExportPage => {
  const names = Object.keys(columns);
  const rows = found.map((record) => names.map((c) => record[c] ?? null));
  const last = found[found.length - 1];
  return { columns: names, data_types: columns, rows, ...(found.length === limit && last ? { next: String(last.id ?? last.user_id) } : {}) };
};

/** The users list of the account as the admin API lists it by default: neither hidden nor deleted. */
const LISTED = 'u.hidden_at IS NULL AND u.deleted_at IS NULL';
const NAME = `coalesce(nullif(trim(u.full_name), ''), nullif(trim(concat_ws(' ', nullif(trim(u.first_name), ''), nullif(trim(u.last_name), ''))), ''), u.uid)`;

const USER_COLUMNS = {
  id: 'Integer', uid: 'String', first_name: 'String', last_name: 'String', email: 'String', locale: 'String', roles: 'String',
  job_title: 'String', department: 'String', hire_date: 'Date', manager_id: 'Integer', created_at: 'DateTime',
};

const SIGN_IN_COLUMNS = { user_id: 'Integer', uid: 'String', name: 'String', email: 'String', last_sign_in_at: 'DateTime', last_seen_at: 'DateTime', sign_ins: 'Integer' };

/**
 * Identity's rows for the downloads and the SignInReport (docs/jobs.md), a page at a time in user id order,
 * of the caller's account (the sealed context's), for administrators only.
 */
@Controller()
export class IdentityExportsHandlers {
  constructor(private readonly db: Database) {}

  @Handles(EXPORT_SUBJECTS.users, { body: ExportPageRequest })
  async users(@Payload() { ctx, body }: RpcRequest<ExportPageRequest>): Promise<ExportPage> {
    requireAdmin(ctx);
    const found = (await this.db.manager.query(
      `SELECT u.id, u.uid, u.first_name, u.last_name, u.email, u.locale, array_to_json(u.roles) AS roles, u.job_title, u.department,
              to_char(u.hire_date, 'YYYY-MM-DD') AS hire_date, u.manager_id, u.created_at
         FROM "${this.db.schema}".users u
        WHERE u.account_id = $1 AND ${LISTED} AND u.id > $2
        ORDER BY u.id LIMIT $3`,
      [ctx.accountId, afterId(body.after), body.limit],
    )) as Record<string, unknown>[];
    return page(USER_COLUMNS, found, body.limit);
  }

  @Handles(EXPORT_SUBJECTS.signIns, { body: ExportPageRequest })
  async signIns(@Payload() { ctx, body }: RpcRequest<ExportPageRequest>): Promise<ExportPage> {
    requireAdmin(ctx);
    const period = periodOf(body.start_date, body.end_date);
    const found = (await this.db.manager.query(
      `SELECT u.id AS user_id, u.uid, ${NAME} AS name, u.email, s.last_sign_in_at, s.last_seen_at, coalesce(s.sign_ins, 0)::int AS sign_ins
         FROM "${this.db.schema}".users u
         LEFT JOIN LATERAL (
           SELECT max(signed_in_at) AS last_sign_in_at, max(last_seen_at) AS last_seen_at,
                  count(*) FILTER (WHERE signed_in_at >= $4 AND signed_in_at < $5) AS sign_ins
             FROM "${this.db.schema}".sign_ins si WHERE si.account_id = u.account_id AND si.user_id = u.id) s ON true
        WHERE u.account_id = $1 AND ${LISTED} AND u.id > $2
        ORDER BY u.id LIMIT $3`,
      [ctx.accountId, afterId(body.after), body.limit, period.from, period.until],
    )) as Record<string, unknown>[];
    return page(SIGN_IN_COLUMNS, found, body.limit);
  }
}
