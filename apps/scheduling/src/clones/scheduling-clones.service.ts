import { Injectable } from '@nestjs/common';
import type { CloneCopyReply, CloneCopyRequest, RequestContext } from '@lms/contracts';
import { cloneCopies, copyableColumns, copyRows, Database, forbidden, quoteIdent, recordCloneCopy, runCloneStep, undoCloneStep } from '@lms/platform';

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
        { sub_account_id: req.destination_id },
        ['id', 'uuid', 'created_at', 'updated_at'],
      );
      for (const [source, copy] of courses) await recordCloneCopy(m, schema, ctx.accountId, req.clone_id, 'live_course', source, copy);
      const sessionCopy = new Map<number, number>();
      const conferenceColumns = (await copyableColumns(m, schema, 'web_conferences', ['id', 'session_id', 'created_at', 'updated_at'])).map(quoteIdent).join(', ');
      let conferences = 0;
      for (const [source, copy] of courses) {
        // Sessions before their parts (a part's parent has the lower id), so a part finds its parent's copy.
        const sessions = (await m.query(`SELECT id, parent_id FROM ${s}.sessions WHERE account_id = $1 AND live_course_id = $2 AND deleted_at IS NULL ORDER BY parent_id NULLS FIRST, id`, [
          ctx.accountId,
          source,
        ])) as { id: number; parent_id: number | null }[];
        for (const session of sessions) {
          if (session.parent_id !== null && !sessionCopy.has(session.parent_id)) continue; // a part of a deleted session
          const [[, made]] = await copyRows(m, schema, 'sessions', 'id = $1', [session.id], {
            live_course_id: copy,
            parent_id: session.parent_id === null ? null : sessionCopy.get(session.parent_id),
            published_at: null,
            concluded_at: null,
          });
          sessionCopy.set(session.id, made);
          const rows = (await m.query(
            `INSERT INTO ${s}.web_conferences (${conferenceColumns}, session_id) SELECT ${conferenceColumns}, $2 FROM ${s}.web_conferences WHERE account_id = $3 AND session_id = $1 RETURNING id`,
            [session.id, made, ctx.accountId],
          )) as unknown[];
          conferences += rows.length;
        }
      }
      return { copied: { live_courses: courses.length, sessions: sessionCopy.size, web_conferences: conferences } };
    });
  }

  /** Compensation: the copied live courses go with their sessions and web conferences (nothing else can hang on them yet). */
  async undo(ctx: RequestContext, cloneId: string): Promise<number> {
    requireCloneAdmin(ctx);
    const s = quoteIdent(this.db.schema);
    return undoCloneStep(this.db, ctx.accountId, cloneId, async (m) => {
      const ids = [...(await cloneCopies(m, this.db.schema, cloneId, 'live_course')).values()];
      if (ids.length === 0) return 0;
      const sessions = `SELECT id FROM ${s}.sessions WHERE account_id = $1 AND live_course_id = ANY($2::int[])`;
      await m.query(`DELETE FROM ${s}.web_conferences WHERE account_id = $1 AND session_id IN (${sessions})`, [ctx.accountId, ids]);
      await m.query(`DELETE FROM ${s}.sessions WHERE account_id = $1 AND live_course_id = ANY($2::int[]) AND parent_id IS NOT NULL`, [ctx.accountId, ids]);
      await m.query(`DELETE FROM ${s}.sessions WHERE account_id = $1 AND live_course_id = ANY($2::int[])`, [ctx.accountId, ids]);
      const gone = (await m.query(`DELETE FROM ${s}.live_courses WHERE account_id = $1 AND id = ANY($2::int[]) RETURNING id`, [ctx.accountId, ids])) as unknown[];
      return gone.length;
    });
  }
}
