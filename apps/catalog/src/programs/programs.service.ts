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
  type ProgramRequest,
  type ProgramView,
  type RequestContext,
} from '@lms/contracts';
import { Database, InjectTenantRepository, Outbox, type TenantRepository, type TenantScope } from '@lms/platform';
import { assertAuthorAudience } from '../authoring/author-audience.js';
import { containsPattern } from '../course-templates/course-template-list.js';
import { CourseTemplate } from '../course-templates/course-template.entity.js';
import { ProgramCourse } from './program-course.entity.js';
import { Program } from './program.entity.js';
import { notAProgramAuthor, programCourseInvalid, programNotFound } from './program.errors.js';
import { programEventData, toProgramView } from './program.views.js';

type ProgramFields = Partial<Pick<Program, 'title' | 'description' | 'isPublished' | 'openEnrollment'>>;

function fieldsOf(input: ProgramChanges): ProgramFields {
  const fields: ProgramFields = {};
  if (input.title !== undefined) fields.title = input.title.trim();
  if (input.description !== undefined) fields.description = input.description;
  if (input.is_published !== undefined) fields.isPublished = input.is_published;
  if (input.open_enrollment !== undefined) fields.openEnrollment = input.open_enrollment;
  return fields;
}

/**
 * Programs and their ordered courses. Lock order, so a program write and a course's archive never wait on
 * each other in a circle: course rows first (archive: FOR UPDATE; a program write: FOR SHARE on the courses
 * it names), then program rows, then membership rows.
 */
@Injectable()
export class ProgramsService {
  constructor(
    private readonly db: Database,
    private readonly outbox: Outbox,
    @InjectTenantRepository(Program) private readonly programs: TenantRepository<Program>,
    @InjectTenantRepository(ProgramCourse) private readonly memberships: TenantRepository<ProgramCourse>,
    @InjectTenantRepository(CourseTemplate) private readonly courses: TenantRepository<CourseTemplate>,
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
    return this.db.transaction(async () => {
      await this.lockCourses(ctx, inputs.flatMap((input, i) => (input.course_template_ids ?? []).map((id, j) => ({ id, field: `programs[${i}].course_template_ids[${j}]` }))));
      const created: Program[] = [];
      for (const input of inputs) {
        const program = await this.programs.insert(ctx, { isPublished: false, openEnrollment: false, ...fieldsOf(input), authorId: ctx.userId, uuid: randomUUID() });
        const courseIds = input.course_template_ids ?? [];
        await this.placeCourses(ctx, program.id, courseIds);
        await this.outbox.add(ctx, PROGRAM_CREATED_EVENT, programEventData(program, courseIds), String(program.id));
        created.push(await this.find(ctx, program.id));
      }
      return created;
    });
  }

  async update(ctx: RequestContext, id: number, changes: ProgramChanges): Promise<Program> {
    return this.db.transaction(async () => {
      const courseIds = changes.course_template_ids;
      const locked = courseIds ? this.lockCourses(ctx, courseIds.map((courseId, j) => ({ id: courseId, field: `program.course_template_ids[${j}]` }))) : Promise.resolve();
      // An unknown program is a 404 before any complaint about its courses.
      const courseError = await locked.then(() => undefined, (err: unknown) => err);
      const program = await this.lockProgram(ctx, id);
      if (courseError) throw courseError;
      Object.assign(program, fieldsOf(changes));
      program.updatedAt = new Date();
      const saved = await this.programs.save(ctx, program);
      if (courseIds) {
        await this.memberships.delete(ctx, { programId: id });
        await this.placeCourses(ctx, id, courseIds);
      }
      await this.outbox.add(ctx, PROGRAM_UPDATED_EVENT, programEventData(saved, await this.courseIdsOf(ctx, id)), String(id));
      return saved;
    });
  }

  /** Soft delete: the row stays for the enrollments made through it; its course list goes. */
  async delete(ctx: RequestContext, id: number): Promise<void> {
    await this.db.transaction(async () => {
      const program = await this.lockProgram(ctx, id);
      const courseIds = await this.courseIdsOf(ctx, id);
      program.deletedAt = new Date();
      await this.programs.save(ctx, program);
      await this.memberships.delete(ctx, { programId: id });
      await this.outbox.add(ctx, PROGRAM_DELETED_EVENT, programEventData(program, courseIds), String(id));
    });
  }

  /**
   * Takes an archived course out of every program holding it (in the archive's transaction, after the
   * course row is locked): the later courses move up, and each program announces its new list.
   */
  async removeCourse(ctx: RequestContext, courseId: number): Promise<void> {
    const rows = await this.memberships.find(ctx, { where: { courseTemplateId: courseId } });
    if (rows.length === 0) return;
    const programs = await this.programs
      .query(ctx, 'p')
      .andWhere('p.id IN (:...ids)', { ids: rows.map((r) => r.programId) })
      .orderBy('p.id', 'ASC')
      .setLock('pessimistic_write')
      .getMany();
    for (const program of programs) {
      const remaining = (await this.courseIdsOf(ctx, program.id)).filter((id) => id !== courseId);
      await this.memberships.delete(ctx, { programId: program.id });
      await this.placeCourses(ctx, program.id, remaining);
      program.updatedAt = new Date();
      const saved = await this.programs.save(ctx, program);
      await this.outbox.add(ctx, PROGRAM_UPDATED_EVENT, programEventData(saved, remaining), String(program.id));
    }
  }

  async present(ctx: RequestContext, programs: Program[]): Promise<ProgramView[]> {
    if (programs.length === 0) return [];
    const rows = await this.memberships.find(ctx, { where: { programId: In(programs.map((p) => p.id)) }, order: { programId: 'ASC', position: 'ASC' } });
    const courses = new Map<number, number[]>();
    for (const row of rows) courses.set(row.programId, [...(courses.get(row.programId) ?? []), row.courseTemplateId]);
    return programs.map((program) => toProgramView(program, courses.get(program.id) ?? []));
  }

  /** The program's courses in order. */
  async courseIdsOf(scope: TenantScope, programId: number): Promise<number[]> {
    const rows = await this.memberships.find(scope, { where: { programId }, order: { position: 'ASC' } });
    return rows.map((row) => row.courseTemplateId);
  }

  /**
   * The program locked for a change by its creator or an administrator (the rule courses and tasks
   * follow); other authors of the account read it and get 403. Another account's program is a 404 first.
   */
  private async lockProgram(ctx: RequestContext, id: number): Promise<Program> {
    const program = await this.programs.query(ctx, 'p').andWhere('p.id = :id AND p.deleted_at IS NULL', { id }).setLock('pessimistic_write').getOne();
    if (!program) throw programNotFound(id);
    if (!ctx.roles.includes('admin') && !(ctx.roles.includes('author') && program.authorId === ctx.userId)) throw notAProgramAuthor(id);
    return program;
  }

  /**
   * Every named course must be a live course template of the account. They stay locked (FOR SHARE) until
   * the transaction ends, so none can be archived between this check and the program's commit.
   */
  private async lockCourses(ctx: RequestContext, named: { id: number; field: string }[]): Promise<void> {
    if (named.length === 0) return;
    const ids = [...new Set(named.map((n) => n.id))].sort((a, b) => a - b);
    const rows = await this.courses
      .query(ctx, 'c')
      .select(['c.id', 'c.deletedAt'])
      .andWhere('c.id IN (:...ids)', { ids })
      .orderBy('c.id', 'ASC')
      .setLock('pessimistic_read')
      .getMany();
    const found = new Map(rows.map((row) => [row.id, row]));
    for (const { id, field } of named) {
      const course = found.get(id);
      if (!course) throw programCourseInvalid(field, id, 'does not exist');
      if (course.deletedAt) throw programCourseInvalid(field, id, 'is archived');
    }
  }

  private async placeCourses(ctx: RequestContext, programId: number, courseIds: number[]): Promise<void> {
    if (courseIds.length === 0) return;
    await this.memberships.insertNew(ctx, courseIds.map((courseTemplateId, i) => ({ programId, courseTemplateId, position: i + 1 })));
  }
}
