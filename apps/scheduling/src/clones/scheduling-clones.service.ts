import { Injectable } from '@nestjs/common';
import type { CloneCopyReply, CloneCopyRequest, RequestContext } from '@lms/contracts';
import { cloneCopies, copyableColumns, copyRows, Database, forbidden, queryResult, quoteIdent, recordCloneCopies, runCloneStep, undoCloneStep } from '@lms/platform';

function requireCloneAdmin(ctx: RequestContext): void {
  if (!ctx.roles.includes('admin')) throw forbidden('CLONE_FORBIDDEN', 'Only an administrator may clone a sub-account.');
}

/**
 * scheduling's step of a sub-account clone (docs/jobs.md "Sub-account clones"): the source's live courses,
 * their sessions (parts under their copied parents) and the sessions' web conferences, in one transaction.
 * No learner, registration or waitlist place is copied; a copied session is not published or concluded.
 */
@Injectable()
export class SchedulingClonesService {
  constructor(private readonly db: Database) {}

  async copy(ctx: RequestContext, req: CloneCopyRequest): Promise<CloneCopyReply> {
    requireCloneAdmin(ctx);
    const schema = this.db.schema;
    const s = quoteIdent(schema);
    return runCloneStep(this.db, ctx.accountId, req.clone_id, 'scheduling: copying live courses, sessions and web conferences', async (m) => {
      const courses = await copyRows(
        m,
        schema,
        'live_courses',
        'account_id = $1 AND deleted_at IS NULL AND (sub_account_id = $2 OR ($3::boolean AND sub_account_id IS NULL))',
        [ctx.accountId, req.source_id, req.source_is_root],
        { set: { sub_account_id: req.destination_id } },
      );
      await recordCloneCopies(m, schema, ctx.accountId, req.clone_id, 'live_course', courses);
      const courseIds = courses.map(([source]) => source);
      const unpublished = { published_at: null, concluded_at: null };
      // Sessions, then their parts pointing at the sessions' copies (a part of a deleted session is not copied).
      const sessions = await copyRows(m, schema, 'sessions', 'account_id = $1 AND live_course_id = ANY($2::int[]) AND deleted_at IS NULL AND parent_id IS NULL', [ctx.accountId, courseIds], {
        set: unpublished,
        remap: { live_course_id: courses },
      });
      const parts = await copyRows(
        m,
        schema,
        'sessions',
        'account_id = $1 AND live_course_id = ANY($2::int[]) AND deleted_at IS NULL AND parent_id = ANY($3::int[])',
        [ctx.accountId, courseIds, sessions.map(([source]) => source)],
        { set: unpublished, remap: { live_course_id: courses, parent_id: sessions } },
      );
      const sessionPairs = [...sessions, ...parts];
      const conferenceColumns = await copyableColumns(m, schema, 'web_conferences', ['id', 'session_id', 'created_at', 'updated_at']);
      const conferences = (
        (await m.query(
          `INSERT INTO ${s}.web_conferences (${conferenceColumns.map(quoteIdent).join(', ')}, session_id)
           SELECT ${conferenceColumns.map((c) => `w.${quoteIdent(c)}`).join(', ')}, p.copy_id
             FROM ${s}.web_conferences w JOIN unnest($1::int[], $2::int[]) AS p(source_id, copy_id) ON w.session_id = p.source_id
            WHERE w.account_id = $3 RETURNING id`,
          [sessionPairs.map(([source]) => source), sessionPairs.map(([, copy]) => copy), ctx.accountId],
        )) as unknown[]
      ).length;
      return { copied: { live_courses: courses.length, sessions: sessionPairs.length, web_conferences: conferences } };
    });
  }

  /** Compensation: the copied live courses go with their sessions and web conferences (nothing else can hang on them yet). */
  async undo(ctx: RequestContext, cloneId: string): Promise<number> {
    requireCloneAdmin(ctx);
    const s = quoteIdent(this.db.schema);
    return undoCloneStep(this.db, ctx.accountId, cloneId, async (m) => {
      const ids = [...(await cloneCopies(m, this.db.schema, ctx.accountId, cloneId, 'live_course')).values()];
      if (ids.length === 0) return 0;
      const sessions = `SELECT id FROM ${s}.sessions WHERE account_id = $1 AND live_course_id = ANY($2::int[])`;
      await m.query(`DELETE FROM ${s}.web_conferences WHERE account_id = $1 AND session_id IN (${sessions})`, [ctx.accountId, ids]);
      await m.query(`DELETE FROM ${s}.sessions WHERE account_id = $1 AND live_course_id = ANY($2::int[]) AND parent_id IS NOT NULL`, [ctx.accountId, ids]);
      await m.query(`DELETE FROM ${s}.sessions WHERE account_id = $1 AND live_course_id = ANY($2::int[])`, [ctx.accountId, ids]);
      return queryResult(await m.query(`DELETE FROM ${s}.live_courses WHERE account_id = $1 AND id = ANY($2::int[])`, [ctx.accountId, ids])).count;
    });
  }
}
