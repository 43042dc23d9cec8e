import { Controller, Module } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import { EXPORT_SUBJECTS, type ExportPage, ExportPageRequest, type RpcRequest } from '@lms/contracts';
import { badRequest, Database, forbidden, Handles, notFound } from '@lms/platform';

const REGISTRATION_COLUMNS = { id: 'Integer', session_id: 'Integer', live_course_id: 'Integer', user_id: 'Integer', marked_complete_at: 'DateTime', created_at: 'DateTime' };

/** Scheduling's rows for the downloads (docs/jobs.md "Downloads"): a session's live registrations, by id. */
@Controller()
export class SchedulingExportsHandlers {
  constructor(private readonly db: Database) {}

  @Handles(EXPORT_SUBJECTS.sessionRegistrations, { body: ExportPageRequest })
  async sessionRegistrations(@Payload() { ctx, body }: RpcRequest<ExportPageRequest>): Promise<ExportPage> {
    // The author audience's, as the registration routes are.
    if (!ctx.roles.includes('admin') && !ctx.roles.includes('author')) throw forbidden('EXPORT_FORBIDDEN', 'Only authors and administrators may export registrations.');
    if (body.session_id === undefined) throw badRequest('SESSION_REQUIRED', 'session_id names the session.');
    if (body.after !== undefined && !/^\d{1,10}$/.test(body.after)) throw badRequest('EXPORT_CURSOR_INVALID', 'The cursor is a registration id.');
    const s = `"${this.db.schema}"`;
    // A live session of a live course: a deleted course's sessions are not found, as on the registration routes.
    const [session] = (await this.db.manager.query(
      `SELECT s.id FROM ${s}.sessions s JOIN ${s}.live_courses c ON c.account_id = s.account_id AND c.id = s.live_course_id
        WHERE s.account_id = $1 AND s.id = $2 AND s.deleted_at IS NULL AND c.deleted_at IS NULL`,
      [ctx.accountId, body.session_id],
    )) as unknown[];
    if (!session) throw notFound('SESSION_NOT_FOUND', `No live course session ${body.session_id} in this account.`);
    const found = (await this.db.manager.query(
      `SELECT r.id, r.session_id, s.live_course_id, r.user_id, r.marked_complete_at, r.created_at
         FROM ${s}.registrations r JOIN ${s}.sessions s ON s.account_id = r.account_id AND s.id = r.session_id
        WHERE r.account_id = $1 AND r.session_id = $2 AND r.deleted_at IS NULL AND r.id > $3
        ORDER BY r.id LIMIT $4`,
      [ctx.accountId, body.session_id, Number(body.after ?? 0), body.limit],
    )) as Record<string, unknown>[];
    const columns = Object.keys(REGISTRATION_COLUMNS);
    const last = found[found.length - 1];
    return {
      columns,
      data_types: REGISTRATION_COLUMNS,
      rows: found.map((record) => columns.map((c) => record[c] ?? null)),
      ...(found.length === body.limit && last ? { next: String(last.id) } : {}),
    };
  }
}

@Module({ controllers: [SchedulingExportsHandlers] })
export class SchedulingExportsModule {}
