import { Injectable } from '@nestjs/common';
import type { CloneCopyReply, CloneCopyRequest, RequestContext } from '@lms/contracts';
import { cloneCopies, copyableColumns, copyRows, Database, forbidden, quoteIdent, recordCloneCopy, runCloneStep, undoCloneStep } from '@lms/platform';

function requireCloneAdmin(ctx: RequestContext): void {
  if (!ctx.roles.includes('admin')) throw forbidden('CLONE_FORBIDDEN', 'Only an administrator may clone a sub-account.');
}

/** Rows the source sub-account owns: its own, and for the root also those no owner was recorded for. */
const OWNED = '(sub_account_id = $2 OR ($3::boolean AND sub_account_id IS NULL))';

/**
 * catalog's step of a sub-account clone (docs/jobs.md "Sub-account clones"): the source's live course
 * templates (with their authors and slides), tasks and programs (with their courses and checkpoints, pointing
 * at the copies) are copied into the new sub-account in one transaction. No enrollment, program enrollment,
 * comment or SCORM package is copied. Each copy is recorded in clone_copies under the clone id.
 */
@Injectable()
export class CatalogClonesService {
  constructor(private readonly db: Database) {}

  async copy(ctx: RequestContext, req: CloneCopyRequest): Promise<CloneCopyReply> {
    requireCloneAdmin(ctx);
    const schema = this.db.schema;
    return runCloneStep(this.db, ctx.accountId, req.clone_id, 'catalog: copying course templates, tasks and programs', async (m) => {
      const owned = [ctx.accountId, req.source_id, req.source_is_root];
      const where = `account_id = $1 AND deleted_at IS NULL AND ${OWNED}`;
      const record = async (kind: string, pairs: [number, number][]) => {
        for (const [source, copy] of pairs) await recordCloneCopy(m, schema, ctx.accountId, req.clone_id, kind, source, copy);
      };

      const courses = await copyRows(m, schema, 'course_templates', where, owned, { sub_account_id: req.destination_id, scorm: null }, ['id', 'uuid', 'created_at', 'updated_at']);
      await record('course_template', courses);
      const slideColumns = (await copyableColumns(m, schema, 'slides', ['id', 'course_template_id', 'created_at', 'updated_at'])).map(quoteIdent).join(', ');
      let slides = 0;
      for (const [source, copy] of courses) {
        await m.query(
          `INSERT INTO ${quoteIdent(schema)}.course_authors (account_id, course_template_id, user_id) SELECT account_id, $2, user_id FROM ${quoteIdent(schema)}.course_authors WHERE account_id = $3 AND course_template_id = $1`,
          [source, copy, ctx.accountId],
        );
        const made = (await m.query(
          `INSERT INTO ${quoteIdent(schema)}.slides (${slideColumns}, course_template_id) SELECT ${slideColumns}, $2 FROM ${quoteIdent(schema)}.slides WHERE account_id = $3 AND course_template_id = $1 RETURNING id`,
          [source, copy, ctx.accountId],
        )) as unknown[];
        slides += made.length;
      }

      const tasks = await copyRows(m, schema, 'tasks', where, owned, { sub_account_id: req.destination_id });
      await record('task', tasks);

      const programs = await copyRows(m, schema, 'programs', where, owned, { sub_account_id: req.destination_id }, ['id', 'uuid', 'created_at', 'updated_at']);
      await record('program', programs);
      const courseCopy = new Map(courses);
      const taskCopy = new Map(tasks);
      for (const [source, copy] of programs) {
        const items = (await m.query(`SELECT course_template_id, position FROM ${quoteIdent(schema)}.program_courses WHERE account_id = $1 AND program_id = $2 ORDER BY position`, [
          ctx.accountId,
          source,
        ])) as { course_template_id: number; position: number }[];
        for (const item of items) {
          // A course of another sub-account stays the one it was; the source's own courses become their copies.
          await m.query(`INSERT INTO ${quoteIdent(schema)}.program_courses (account_id, program_id, course_template_id, position) VALUES ($1, $2, $3, $4)`, [
            ctx.accountId,
            copy,
            courseCopy.get(item.course_template_id) ?? item.course_template_id,
            item.position,
          ]);
        }
        // Checkpoints keep their places in the order, pointing at the copies as courses do.
        const gates = (await m.query(`SELECT task_id, position FROM ${quoteIdent(schema)}.program_tasks WHERE account_id = $1 AND program_id = $2 ORDER BY position`, [
          ctx.accountId,
          source,
        ])) as { task_id: number; position: number }[];
        for (const gate of gates) {
          await m.query(`INSERT INTO ${quoteIdent(schema)}.program_tasks (account_id, program_id, task_id, position) VALUES ($1, $2, $3, $4)`, [
            ctx.accountId,
            copy,
            taskCopy.get(gate.task_id) ?? gate.task_id,
            gate.position,
          ]);
        }
      }
      return { copied: { course_templates: courses.length, slides, tasks: tasks.length, programs: programs.length } };
    });
  }

  /** Compensation: every copy the clone made goes (slides, authors and program course lists with their rows). */
  async undo(ctx: RequestContext, cloneId: string): Promise<number> {
    requireCloneAdmin(ctx);
    const schema = quoteIdent(this.db.schema);
    return undoCloneStep(this.db, ctx.accountId, cloneId, async (m) => {
      let removed = 0;
      for (const [kind, table] of [['program', 'programs'], ['task', 'tasks'], ['course_template', 'course_templates']] as const) {
        const ids = [...(await cloneCopies(m, this.db.schema, cloneId, kind)).values()];
        if (ids.length === 0) continue;
        const gone = (await m.query(`DELETE FROM ${schema}.${table} WHERE account_id = $1 AND id = ANY($2::int[]) RETURNING id`, [ctx.accountId, ids])) as unknown[];
        removed += gone.length;
      }
      return removed;
    });
  }
}
