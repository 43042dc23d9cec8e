import { Injectable } from '@nestjs/common';
import type { CloneCopyReply, CloneCopyRequest, RequestContext } from '@lms/contracts';
import { cloneCopies, copyableColumns, copyRows, Database, forbidden, queryResult, quoteIdent, recordCloneCopies, runCloneStep, undoCloneStep } from '@lms/platform';

function requireCloneAdmin(ctx: RequestContext): void {
  if (!ctx.roles.includes('admin')) throw forbidden('CLONE_FORBIDDEN', 'Only an administrator may clone a sub-account.');
}

/** Rows the source sub-account owns: its own, and for the root also those no owner was recorded for. */
const OWNED = '(sub_account_id = $2 OR ($3::boolean AND sub_account_id IS NULL))';

/**
 * catalog's step of a sub-account clone (docs/jobs.md "Sub-account clones"): the source's live course
 * templates (with their authors, slides and LTI content items), tasks and programs (with their courses and checkpoints, pointing
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
      const record = (kind: string, pairs: [number, number][]) => recordCloneCopies(m, schema, ctx.accountId, req.clone_id, kind, pairs);
      const s = quoteIdent(schema);

      const courses = await copyRows(m, schema, 'course_templates', where, owned, { set: { sub_account_id: req.destination_id, scorm: null } });
      await record('course_template', courses);
      // Authors and slides follow their course, all at once: the course pairs as two arrays.
      const coursePairs = [courses.map(([source]) => source), courses.map(([, copy]) => copy), ctx.accountId];
      const pairsOf = 'unnest($1::int[], $2::int[]) AS p(source_id, copy_id)';
      await m.query(
        `INSERT INTO ${s}.course_authors (account_id, course_template_id, user_id)
         SELECT a.account_id, p.copy_id, a.user_id FROM ${s}.course_authors a JOIN ${pairsOf} ON a.course_template_id = p.source_id WHERE a.account_id = $3`,
        coursePairs,
      );
      // A course's rows (every column but ids and times) go to its copy; answers how many were copied.
      const copyWithCourses = async (table: string): Promise<number> => {
        const columns = await copyableColumns(m, schema, table, ['id', 'course_template_id', 'created_at', 'updated_at']);
        const inserted = (await m.query(
          `INSERT INTO ${s}.${quoteIdent(table)} (${columns.map(quoteIdent).join(', ')}, course_template_id)
           SELECT ${columns.map((c) => `r.${quoteIdent(c)}`).join(', ')}, p.copy_id FROM ${s}.${quoteIdent(table)} r JOIN ${pairsOf} ON r.course_template_id = p.source_id
            WHERE r.account_id = $3 RETURNING id`,
          coursePairs,
        )) as unknown[];
        return inserted.length;
      };
      const slides = await copyWithCourses('slides');
      const ltiContentItems = await copyWithCourses('lti_content_items');

      const tasks = await copyRows(m, schema, 'tasks', where, owned, { set: { sub_account_id: req.destination_id } });
      await record('task', tasks);

      const programs = await copyRows(m, schema, 'programs', where, owned, { set: { sub_account_id: req.destination_id } });
      await record('program', programs);
      // Program orders, courses and checkpoints, point at the copies; another sub-account's items stay as they were.
      const programItems = async (table: string, column: string, items: [number, number][]) =>
        m.query(
          `INSERT INTO ${s}.${table} (account_id, program_id, ${column}, position)
           SELECT i.account_id, p.copy_id, coalesce(c.copy_id, i.${column}), i.position
             FROM ${s}.${table} i
             JOIN unnest($1::int[], $2::int[]) AS p(source_id, copy_id) ON i.program_id = p.source_id
             LEFT JOIN unnest($3::int[], $4::int[]) AS c(source_id, copy_id) ON i.${column} = c.source_id
            WHERE i.account_id = $5`,
          [programs.map(([source]) => source), programs.map(([, copy]) => copy), items.map(([source]) => source), items.map(([, copy]) => copy), ctx.accountId],
        );
      await programItems('program_courses', 'course_template_id', courses);
      await programItems('program_tasks', 'task_id', tasks);
      return { copied: { course_templates: courses.length, slides, lti_content_items: ltiContentItems, tasks: tasks.length, programs: programs.length } };
    });
  }

  /**
   * Compensation: every copy the clone made goes (slides, authors and program course lists with their rows, and
   * the courses' LTI content items). Answers how many courses, tasks and programs went, as clone_copies counts them.
   */
  async undo(ctx: RequestContext, cloneId: string): Promise<number> {
    requireCloneAdmin(ctx);
    const schema = quoteIdent(this.db.schema);
    return undoCloneStep(this.db, ctx.accountId, cloneId, async (m) => {
      // Every copy is locked before any goes, courses, then tasks, then programs: the one lock order
      // (docs/catalog.md). Deleting first would lock a course's program rows (the cascade) before the
      // program, which a program's own delete or edit takes the other way round.
      const copies: [string, number[]][] = [];
      for (const [kind, table] of [['course_template', 'course_templates'], ['task', 'tasks'], ['program', 'programs']] as const) {
        const ids = [...(await cloneCopies(m, this.db.schema, ctx.accountId, cloneId, kind)).values()];
        if (ids.length === 0) continue;
        await m.query(`SELECT id FROM ${schema}.${table} WHERE account_id = $1 AND id = ANY($2::int[]) ORDER BY id FOR UPDATE`, [ctx.accountId, ids]);
        copies.push([table, ids]);
      }
      let removed = 0;
      // LTI items have no foreign key to cascade from their course.
      const courseCopies = copies.find(([table]) => table === 'course_templates')?.[1] ?? [];
      await m.query(`DELETE FROM ${schema}.lti_content_items WHERE account_id = $1 AND course_template_id = ANY($2::int[])`, [ctx.accountId, courseCopies]);
      for (const [table, ids] of copies) removed += queryResult(await m.query(`DELETE FROM ${schema}.${table} WHERE account_id = $1 AND id = ANY($2::int[])`, [ctx.accountId, ids])).count;
      return removed;
    });
  }
}
