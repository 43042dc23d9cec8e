import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { In, IsNull } from 'typeorm';
import {
  type ListProgramsQuery,
  pageWindow,
  PROGRAM_CREATED_EVENT,
  PROGRAM_DELETED_EVENT,
  PROGRAM_UPDATED_EVENT,
  type ProgramChanges,
  type ProgramItemInput,
  type ProgramRequest,
  type ProgramView,
  type RequestContext,
} from '@lms/contracts';
import { Database, InjectTenantRepository, Outbox, type TenantOwned, type TenantRepository, type TenantScope } from '@lms/platform';
import { assertAuthorAudience } from '../authoring/author-audience.js';
import { containsPattern } from '../course-templates/course-template-list.js';
import { CourseTemplate } from '../course-templates/course-template.entity.js';
import { Task } from '../tasks/task.entity.js';
import { ProgramCourse, ProgramTask } from './program-course.entity.js';
import { Program } from './program.entity.js';
import { notAProgramAuthor, programCourseInvalid, programItemsConflict, programNotFound, programOrderChanging, programTaskInvalid } from './program.errors.js';
import { type ProgramItem, programEventData, toProgramView } from './program.views.js';

/** How many times an enrollment reads a program's order again when writes keep changing it meanwhile. */
const HOLD_ATTEMPTS = 5;

type ProgramFields = Partial<Pick<Program, 'title' | 'description' | 'isPublished' | 'openEnrollment'>>;

function fieldsOf(input: ProgramChanges): ProgramFields {
  const fields: ProgramFields = {};
  if (input.title !== undefined) fields.title = input.title.trim();
  if (input.description !== undefined) fields.description = input.description;
  if (input.is_published !== undefined) fields.isPublished = input.is_published;
  if (input.open_enrollment !== undefined) fields.openEnrollment = input.open_enrollment;
  return fields;
}

/** An item named in a request, with the field that named it. */
interface Named {
  id: number;
  field: string;
}

/**
 * The order a request writes: `items` as given, or `course_template_ids` (the older form) as courses only.
 * Both at once is a 400. Undefined: the request leaves the order alone.
 */
function requestedOrder(input: ProgramChanges, prefix: string): { items?: ProgramItem[]; coursesOnly: boolean; courses: Named[]; tasks: Named[] } {
  if (input.items !== undefined && input.course_template_ids !== undefined) throw programItemsConflict(prefix);
  if (input.items !== undefined) {
    const items = input.items.map((item: ProgramItemInput) => ({ type: item.type, id: item.id }));
    const named = (type: ProgramItem['type']) => items.flatMap((item, j) => (item.type === type ? [{ id: item.id, field: `${prefix}.items[${j}].id` }] : []));
    return { items, coursesOnly: false, courses: named('CourseTemplate'), tasks: named('Task') };
  }
  if (input.course_template_ids !== undefined) {
    const ids = input.course_template_ids;
    return { items: ids.map((id) => ({ type: 'CourseTemplate', id })), coursesOnly: true, courses: ids.map((id, j) => ({ id, field: `${prefix}.course_template_ids[${j}]` })), tasks: [] };
  }
  return { coursesOnly: false, courses: [], tasks: [] };
}

/**
 * A new course list in the older form (`course_template_ids`) for a program that also holds checkpoints:
 * each checkpoint stays after as many courses as it followed before (at most all of them), so a client
 * that knows only courses never drops or moves a gate past the courses it guarded.
 */
export function withCheckpointsKept(current: ProgramItem[], courses: ProgramItem[]): ProgramItem[] {
  const slots = new Map<number, ProgramItem[]>();
  let before = 0;
  for (const item of current) {
    if (item.type === 'CourseTemplate') before += 1;
    else slots.set(Math.min(before, courses.length), [...(slots.get(Math.min(before, courses.length)) ?? []), item]);
  }
  const order: ProgramItem[] = [...(slots.get(0) ?? [])];
  courses.forEach((course, k) => order.push(course, ...(slots.get(k + 1) ?? [])));
  return order;
}

/**
 * Programs and their ordered items: course templates and tasks (checkpoints). Lock order, so a program
 * write, an enrollment in it and an archive (or a task's deletion) never wait on each other in a circle:
 * course rows, then task rows (archive or delete: FOR NO KEY UPDATE; a program write: FOR SHARE on the
 * ones it names; an enrollment: FOR SHARE on all it holds), then program rows, then membership rows.
 * Writers take NO KEY UPDATE, the strength of their own UPDATE, so the foreign-key checks of membership
 * rows written again (which take KEY SHARE on the item) never wait on an item's archive.
 */
@Injectable()
export class ProgramsService {
  constructor(
    private readonly db: Database,
    private readonly outbox: Outbox,
    @InjectTenantRepository(Program) private readonly programs: TenantRepository<Program>,
    @InjectTenantRepository(ProgramCourse) private readonly memberships: TenantRepository<ProgramCourse>,
    @InjectTenantRepository(ProgramTask) private readonly taskMemberships: TenantRepository<ProgramTask>,
    @InjectTenantRepository(CourseTemplate) private readonly courses: TenantRepository<CourseTemplate>,
    @InjectTenantRepository(Task) private readonly tasks: TenantRepository<Task>,
  ) {}

  async list(ctx: RequestContext, query: ListProgramsQuery): Promise<[Program[], number]> {
    const { skip, take } = pageWindow(query);
    const qb = this.programs.query(ctx, 'p').andWhere('p.deleted_at IS NULL');
    if (query.search) qb.andWhere('p.title ILIKE :pattern', { pattern: containsPattern(query.search) });
    return qb.orderBy('p.created_at', 'DESC').addOrderBy('p.id', 'DESC').offset(skip).limit(take).getManyAndCount();
  }

  async find(scope: TenantScope, id: number): Promise<Program> {
    return (await this.programs.findOne(scope, { id, deletedAt: IsNull() })) ?? Promise.reject(programNotFound(id));
  }

  /** All or nothing; the caller is each program's author. */
  async create(ctx: RequestContext, inputs: ProgramRequest[]): Promise<Program[]> {
    assertAuthorAudience(ctx, 'create programs');
    const orders = inputs.map((input, i) => requestedOrder(input, `programs[${i}]`));
    return this.db.transaction(async () => {
      await this.lockCourses(ctx, orders.flatMap((o) => o.courses));
      await this.lockTasks(ctx, orders.flatMap((o) => o.tasks));
      const created: Program[] = [];
      for (const [i, input] of inputs.entries()) {
        const program = await this.programs.insert(ctx, { isPublished: false, openEnrollment: false, ...fieldsOf(input), authorId: ctx.userId, uuid: randomUUID() });
        const items = orders[i].items ?? [];
        await this.placeItems(ctx, program.id, items);
        await this.outbox.add(ctx, PROGRAM_CREATED_EVENT, programEventData(program, items), String(program.id));
        created.push(await this.find(ctx, program.id));
      }
      return created;
    });
  }

  async update(ctx: RequestContext, id: number, changes: ProgramChanges): Promise<Program> {
    const order = requestedOrder(changes, 'program');
    return this.db.transaction(async () => {
      const locked = this.lockCourses(ctx, order.courses).then(() => this.lockTasks(ctx, order.tasks));
      // An unknown program is a 404 before any complaint about its items.
      const itemError = await locked.then(() => undefined, (err: unknown) => err);
      const program = await this.lockProgram(ctx, id);
      if (itemError) throw itemError;
      Object.assign(program, fieldsOf(changes));
      program.updatedAt = new Date();
      const saved = await this.programs.save(ctx, program);
      if (order.items) {
        const items = order.coursesOnly ? withCheckpointsKept(await this.itemsOf(ctx, id), order.items) : order.items;
        await this.clearItems(ctx, id);
        await this.placeItems(ctx, id, items);
      }
      await this.outbox.add(ctx, PROGRAM_UPDATED_EVENT, programEventData(saved, await this.itemsOf(ctx, id)), String(id));
      return saved;
    });
  }

  /** Soft delete: the row stays for the enrollments made through it; its order goes. */
  async delete(ctx: RequestContext, id: number): Promise<void> {
    await this.db.transaction(async () => {
      const program = await this.lockProgram(ctx, id);
      const items = await this.itemsOf(ctx, id);
      program.deletedAt = new Date();
      await this.programs.save(ctx, program);
      await this.clearItems(ctx, id);
      await this.outbox.add(ctx, PROGRAM_DELETED_EVENT, programEventData(program, items), String(id));
    });
  }

  /**
   * Takes an archived course out of every program holding it (in the archive's transaction, after the
   * course row is locked): the later items move up, and each program announces its new order.
   */
  async removeCourse(ctx: RequestContext, courseId: number): Promise<void> {
    const rows = await this.memberships.find(ctx, { where: { courseTemplateId: courseId } });
    await this.removeItem(ctx, { type: 'CourseTemplate', id: courseId }, rows.map((r) => r.programId));
  }

  /** A deleted task leaves every program holding it, as an archived course does (in the delete's transaction). */
  async removeTask(ctx: RequestContext, taskId: number): Promise<void> {
    const rows = await this.taskMemberships.find(ctx, { where: { taskId } });
    await this.removeItem(ctx, { type: 'Task', id: taskId }, rows.map((r) => r.programId));
  }

  private async removeItem(ctx: RequestContext, gone: ProgramItem, programIds: number[]): Promise<void> {
    if (programIds.length === 0) return;
    const programs = await this.programs.query(ctx, 'p').andWhere('p.id IN (:...ids)', { ids: programIds }).orderBy('p.id', 'ASC').setLock('for_no_key_update').getMany();
    for (const program of programs) {
      const remaining = (await this.itemsOf(ctx, program.id)).filter((item) => !(item.type === gone.type && item.id === gone.id));
      await this.clearItems(ctx, program.id);
      await this.placeItems(ctx, program.id, remaining);
      program.updatedAt = new Date();
      const saved = await this.programs.save(ctx, program);
      await this.outbox.add(ctx, PROGRAM_UPDATED_EVENT, programEventData(saved, remaining), String(program.id));
    }
  }

  async present(ctx: RequestContext, programs: Program[]): Promise<ProgramView[]> {
    if (programs.length === 0) return [];
    const orders = await this.ordersOf(ctx, programs.map((p) => p.id));
    return programs.map((program) => toProgramView(program, orders.get(program.id) ?? []));
  }

  /** The program's courses in order. */
  async courseIdsOf(scope: TenantScope, programId: number): Promise<number[]> {
    const rows = await this.memberships.find(scope, { where: { programId }, order: { position: 'ASC' } });
    return rows.map((row) => row.courseTemplateId);
  }

  /**
   * The program (FOR SHARE) and its order, after every item of that order (FOR SHARE, courses then tasks),
   * for a transaction that must see none of them archived, deleted or published until it commits
   * (enrolling in the program). The order can only be read before the program is locked, so the program
   * is locked under a savepoint: when a write changed the order in between, the savepoint gives the
   * program back and the new items are locked first, never after it. Null: no such live program.
   */
  async holdWithItems(scope: TenantScope, id: number): Promise<{ program: Program; items: ProgramItem[] } | null> {
    const held = new Set<string>();
    const key = (item: ProgramItem) => `${item.type}:${item.id}`;
    for (let attempt = 1; ; attempt++) {
      const unheld = (await this.itemsOf(scope, id)).filter((item) => !held.has(key(item)));
      await this.hold(scope, this.courses, unheld.flatMap((item) => (item.type === 'CourseTemplate' ? [item.id] : [])));
      await this.hold(scope, this.tasks, unheld.flatMap((item) => (item.type === 'Task' ? [item.id] : [])));
      for (const item of unheld) held.add(key(item));
      await this.db.manager.query('SAVEPOINT program_order');
      const program = await this.programs.findOne(scope, { id, deletedAt: IsNull() }, { lock: 'share' });
      const items = program ? await this.itemsOf(scope, id) : [];
      if (items.every((item) => held.has(key(item)))) {
        await this.db.manager.query('RELEASE SAVEPOINT program_order');
        return program ? { program, items } : null;
      }
      if (attempt === HOLD_ATTEMPTS) throw programOrderChanging(id);
      // Back to before the program's lock, and the savepoint gone: the next try sets a fresh one.
      await this.db.manager.query('ROLLBACK TO SAVEPOINT program_order');
      await this.db.manager.query('RELEASE SAVEPOINT program_order');
    }
  }

  /** The program's whole order: courses and tasks. */
  async itemsOf(scope: TenantScope, programId: number): Promise<ProgramItem[]> {
    return (await this.ordersOf(scope, [programId])).get(programId) ?? [];
  }

  private async ordersOf(scope: TenantScope, programIds: number[]): Promise<Map<number, ProgramItem[]>> {
    const [courses, tasks] = await Promise.all([
      this.memberships.find(scope, { where: { programId: In(programIds) } }),
      this.taskMemberships.find(scope, { where: { programId: In(programIds) } }),
    ]);
    const placed = [
      ...courses.map((r) => ({ programId: r.programId, position: r.position, item: { type: 'CourseTemplate', id: r.courseTemplateId } as ProgramItem })),
      ...tasks.map((r) => ({ programId: r.programId, position: r.position, item: { type: 'Task', id: r.taskId } as ProgramItem })),
    ].sort((a, b) => a.programId - b.programId || a.position - b.position);
    const orders = new Map<number, ProgramItem[]>();
    for (const p of placed) orders.set(p.programId, [...(orders.get(p.programId) ?? []), p.item]);
    return orders;
  }

  /**
   * The program locked for a change by its creator or an administrator (the rule courses and tasks
   * follow); other authors of the account read it and get 403. Another account's program is a 404 first.
   */
  private async lockProgram(ctx: RequestContext, id: number): Promise<Program> {
    const program = await this.programs.findOne(ctx, { id, deletedAt: IsNull() }, { lock: 'no key update' });
    if (!program) throw programNotFound(id);
    if (!ctx.roles.includes('admin') && !(ctx.roles.includes('author') && program.authorId === ctx.userId)) throw notAProgramAuthor(id);
    return program;
  }

  /** Every named course must be a live course template of the account; see `lockLive`. */
  private lockCourses(ctx: RequestContext, named: Named[]): Promise<void> {
    return this.lockLive(ctx, this.courses, named, (field, id, gone) => programCourseInvalid(field, id, gone ? 'is archived' : 'does not exist'));
  }

  /** Every named task must be a live task of the account; see `lockLive`. */
  private lockTasks(ctx: RequestContext, named: Named[]): Promise<void> {
    return this.lockLive(ctx, this.tasks, named, (field, id, gone) => programTaskInvalid(field, id, gone ? 'is deleted' : 'does not exist'));
  }

  /**
   * The named rows, held FOR SHARE (in id order) until the transaction ends, so none can be archived or
   * deleted between this check and the program's commit; a missing or deleted one is refused by `invalid`.
   */
  private async lockLive<T extends TenantOwned & { id: number; deletedAt: Date | null }>(
    ctx: RequestContext,
    repository: TenantRepository<T>,
    named: Named[],
    invalid: (field: string, id: number, deleted: boolean) => Error,
  ): Promise<void> {
    const found = await this.hold(ctx, repository, named.map((n) => n.id));
    for (const { id, field } of named) {
      const row = found.get(id);
      if (!row || row.deletedAt) throw invalid(field, id, Boolean(row));
    }
  }

  /** The rows held FOR SHARE, in id order, until the transaction ends; by id, with whether each is deleted. */
  private async hold<T extends TenantOwned & { id: number; deletedAt: Date | null }>(scope: TenantScope, repository: TenantRepository<T>, ids: number[]): Promise<Map<number, T>> {
    if (ids.length === 0) return new Map();
    const sorted = [...new Set(ids)].sort((a, b) => a - b);
    const rows = await repository.query(scope, 'x').select(['x.id', 'x.deletedAt']).andWhere('x.id IN (:...ids)', { ids: sorted }).orderBy('x.id', 'ASC').setLock('pessimistic_read').getMany();
    return new Map(rows.map((row) => [row.id, row]));
  }

  private async clearItems(ctx: RequestContext, programId: number): Promise<void> {
    await this.memberships.delete(ctx, { programId });
    await this.taskMemberships.delete(ctx, { programId });
  }

  /** Writes the order: positions 1..n over courses and tasks together. */
  private async placeItems(ctx: RequestContext, programId: number, items: ProgramItem[]): Promise<void> {
    const courses = items.flatMap((item, i) => (item.type === 'CourseTemplate' ? [{ programId, courseTemplateId: item.id, position: i + 1 }] : []));
    const tasks = items.flatMap((item, i) => (item.type === 'Task' ? [{ programId, taskId: item.id, position: i + 1 }] : []));
    if (courses.length > 0) await this.memberships.insertNew(ctx, courses);
    if (tasks.length > 0) await this.taskMemberships.insertNew(ctx, tasks);
  }
}
