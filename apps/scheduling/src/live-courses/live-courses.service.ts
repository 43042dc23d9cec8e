import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import {
  asksForDeleted,
  type DatedListQuery,
  dateFilter,
  LIVE_COURSE_CREATED_EVENT,
  LIVE_COURSE_DELETED_EVENT,
  LIVE_COURSE_UPDATED_EVENT,
  type ListLiveCoursesQuery,
  type LiveCourseRequest,
  pageWindow,
  type RequestContext,
} from '@lms/contracts';
import { Database, InjectTenantRepository, Outbox, type TenantRepository, type TenantScope } from '@lms/platform';
import type { SelectQueryBuilder } from 'typeorm';
import { LiveCourse } from './live-course.entity.js';
import { liveCourseNotFound } from './live-course.errors.js';
import { liveCourseEventData } from './live-course.views.js';

export const DEFAULT_TITLE = 'Untitled live course';

const FIELD_MAP = {
  title: 'title',
  description: 'description',
  external_course_id: 'externalCourseId',
  has_certificate: 'hasCertificate',
  expires: 'expires',
  default_days_until_expiration: 'defaultDaysUntilExpiration',
  auto_re_enroll: 'autoReEnroll',
  re_enrollment_period: 'reEnrollmentPeriod',
  open_enrollment: 'openEnrollment',
} as const satisfies Record<keyof LiveCourseRequest, keyof LiveCourse>;

function fieldsOf(input: LiveCourseRequest): Partial<LiveCourse> {
  const values: Record<string, unknown> = {};
  for (const [key, property] of Object.entries(FIELD_MAP)) {
    const value = input[key as keyof LiveCourseRequest];
    if (value !== undefined) values[property] = key === 'title' && typeof value === 'string' ? value.trim() : value;
  }
  return values as Partial<LiveCourse>;
}

/** A LIKE pattern matching `text` anywhere, with its own wildcards taken literally. */
const containsPattern = (text: string): string => `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

const DATE_FILTERS = [
  ['created_after', 'created_at', '>'],
  ['created_before', 'created_at', '<'],
  ['updated_after', 'updated_at', '>'],
  ['updated_before', 'updated_at', '<'],
  ['deleted_after', 'deleted_at', '>'],
  ['deleted_before', 'deleted_at', '<'],
] as const;

/**
 * The date filters and deleted flags every scheduling list takes, on alias `a`. "After T" is at least
 * T + 1 ms (the resolution responses show), so a record shown with time T is neither after nor before T.
 */
export function applyDatedFilters<T extends object>(qb: SelectQueryBuilder<T>, alias: string, q: DatedListQuery): SelectQueryBuilder<T> {
  if (q.only_deleted) qb.andWhere(`${alias}.deleted_at IS NOT NULL`);
  else if (!asksForDeleted(q)) qb.andWhere(`${alias}.deleted_at IS NULL`);
  for (const [key, column, op] of DATE_FILTERS) {
    const value = q[key];
    if (value === undefined) continue;
    const { operator, bound } = dateFilter(value, op);
    qb.andWhere(`${alias}.${column} ${operator} :${key}`, { [key]: bound });
  }
  return qb;
}

@Injectable()
export class LiveCoursesService {
  constructor(
    private readonly db: Database,
    private readonly outbox: Outbox,
    @InjectTenantRepository(LiveCourse) private readonly courses: TenantRepository<LiveCourse>,
  ) {}

  /** A live course of the account that is not deleted; anything else is as unknown as a missing one. */
  async find(scope: TenantScope, id: number): Promise<LiveCourse> {
    const course = await this.courses.findOne(scope, { id });
    return course && !course.deletedAt ? course : Promise.reject(liveCourseNotFound(id));
  }

  /** The course locked (FOR UPDATE) for this transaction: writes to one course and its sessions queue up. */
  async lock(scope: TenantScope, id: number): Promise<LiveCourse> {
    const course = await this.courses.findOne(scope, { id }, { lock: 'update' });
    return course && !course.deletedAt ? course : Promise.reject(liveCourseNotFound(id));
  }

  async page(ctx: RequestContext, query: ListLiveCoursesQuery): Promise<[LiveCourse[], number]> {
    const qb = applyDatedFilters(this.courses.query(ctx, 'a'), 'a', query);
    if (query.search) qb.andWhere('a.title ILIKE :pattern', { pattern: containsPattern(query.search) });
    const { skip, take } = pageWindow(query);
    return qb.orderBy('a.created_at', 'DESC').addOrderBy('a.id', 'DESC').skip(skip).take(take).getManyAndCount();
  }

  /** All or nothing; the caller is the author. */
  async create(ctx: RequestContext, inputs: LiveCourseRequest[]): Promise<LiveCourse[]> {
    return this.db.transaction(async () => {
      const created: LiveCourse[] = [];
      for (const input of inputs) {
        const course = await this.courses.insert(ctx, { title: DEFAULT_TITLE, ...fieldsOf(input), authorId: ctx.userId, uuid: randomUUID() });
        await this.outbox.add(ctx, LIVE_COURSE_CREATED_EVENT, liveCourseEventData(course), String(course.id));
        created.push(await this.find(ctx, course.id));
      }
      return created;
    });
  }

  async update(ctx: RequestContext, id: number, changes: LiveCourseRequest): Promise<LiveCourse> {
    return this.db.transaction(async () => {
      const course = await this.lock(ctx, id);
      Object.assign(course, fieldsOf(changes));
      const saved = await this.courses.save(ctx, course);
      await this.outbox.add(ctx, LIVE_COURSE_UPDATED_EVENT, liveCourseEventData(saved), String(saved.id));
      return saved;
    });
  }

  /** Soft delete: the course, its sessions and registrations stay as rows, listed only as deleted. */
  async delete(ctx: RequestContext, id: number): Promise<void> {
    await this.db.transaction(async () => {
      const course = await this.lock(ctx, id);
      await this.courses.update(ctx, { id }, { deletedAt: () => 'now()', updatedAt: () => 'now()' });
      await this.outbox.add(ctx, LIVE_COURSE_DELETED_EVENT, liveCourseEventData(course), String(id));
    });
  }
}
