import { Injectable } from '@nestjs/common';
import type { ObjectLiteral, SelectQueryBuilder } from 'typeorm';
import type { CourseTemplateFilter, CourseTemplateSort, CourseTemplateTitlesQuery, ListCourseTemplatesQuery, RequestContext } from '@lms/contracts';
import { asksForDeleted, dateFilter, pageWindow } from '@lms/contracts';
import { InjectTenantRepository, type ListSize, listSize, type TenantRepository } from '@lms/platform';
import { EnrollmentCounts } from '../enrollments/enrollment-counts.js';
import { CourseTemplate } from './course-template.entity.js';

/** A LIKE pattern matching `text` anywhere, with its own wildcards taken literally. */
export const containsPattern = (text: string): string => `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/** Three word characters in a row: what `pg_trgm` needs to narrow a LIKE search through its index. */
const TRIGRAM = /[\p{L}\p{N}]{3}/u;

const COURSE_TYPE_FILTERS = new Set<CourseTemplateFilter>(['native', 'scorm', 'third_party_a', 'third_party_b']);

/** Each sort ends in the id, so a page boundary never splits ties differently between two requests (columns of `c`). */
const ORDER: Record<CourseTemplateSort, [string, 'ASC' | 'DESC', ('NULLS FIRST' | 'NULLS LAST')?][]> = {
  newest: [['created_at', 'DESC'], ['id', 'DESC']],
  title: [['title_folded', 'ASC'], ['id', 'ASC']],
  updated: [['updated_at', 'DESC'], ['id', 'DESC']],
  archived: [['deleted_at', 'DESC', 'NULLS LAST'], ['id', 'DESC']],
};

const DATE_FILTERS = [
  ['created_after', 'c.created_at', '>'],
  ['created_before', 'c.created_at', '<'],
  ['updated_after', 'c.updated_at', '>'],
  ['updated_before', 'c.updated_at', '<'],
  ['deleted_after', 'c.deleted_at', '>'],
  ['deleted_before', 'c.deleted_at', '<'],
] as const;

type Selection = Pick<ListCourseTemplatesQuery, 'filters' | 'search' | 'only_deleted' | 'with_deleted' | 'sort'> &
  Partial<Pick<ListCourseTemplatesQuery, (typeof DATE_FILTERS)[number][0]>>;

/**
 * The list and titles queries. Every condition is one the migrations index for: the sorts have a covering
 * index each, every combination of the course-type and flag filters is the leading prefix of one of three
 * covering indexes, the search has a trigram one (docs/catalog.md, "List plans"). The total is counted up
 * to `COUNT_CAP` rows (an index-only count that stops there); a bigger list answers whether a page follows.
 */
@Injectable()
export class CourseTemplateList {
  constructor(@InjectTenantRepository(CourseTemplate) private readonly courses: TenantRepository<CourseTemplate>) {}

  async page(ctx: RequestContext, query: ListCourseTemplatesQuery): Promise<[CourseTemplate[], ListSize]> {
    return this.run(ctx, query, query, (qb) => qb);
  }

  async titles(ctx: RequestContext, query: CourseTemplateTitlesQuery): Promise<[Pick<CourseTemplate, 'id' | 'title'>[], ListSize]> {
    return this.run(ctx, query, query, (qb) => qb.select(['c.id', 'c.title']));
  }

  private async run<T>(
    ctx: RequestContext,
    selection: Selection,
    paging: ListCourseTemplatesQuery | CourseTemplateTitlesQuery,
    shape: (qb: SelectQueryBuilder<CourseTemplate>) => SelectQueryBuilder<CourseTemplate>,
  ): Promise<[T[], ListSize]> {
    const where = this.where(ctx, selection);
    const { skip, take } = pageWindow(paging);
    // The page's ids first (an index-only scan, cheap even 100,000 rows deep), then only those rows.
    const page = this.ids(where, selection);
    // One id past the page tells whether a page follows, for a list too big to count.
    const [idRows, counted] = await Promise.all([page.offset(skip).limit(take + 1).getRawMany<{ id: number }>(), this.courses.countUpTo(where)]);
    const ids = idRows.slice(0, take).map((row) => Number(row.id));
    const rows = ids.length === 0 ? [] : await shape(this.courses.query(ctx, 'c').andWhere('c.id IN (:...ids)', { ids })).getMany();
    const byId = new Map(rows.map((row) => [row.id, row]));
    return [ids.flatMap((id) => byId.get(id) ?? []) as T[], listSize(counted, idRows.length > take)];
  }

  /**
   * The selection's ids in its sort order. A title-sorted search takes its matches from the trigram index
   * and sorts them (top-N): its matches are not spread over the title order as the planner assumes, since
   * a word that begins titles has all its matches in one stretch of the title index, which the walk the
   * planner prefers reaches only after every title sorted before the word. `OFFSET 0` keeps the planner
   * from flattening the subquery back into that walk.
   */
  private ids(where: SelectQueryBuilder<CourseTemplate>, q: Selection): SelectQueryBuilder<ObjectLiteral> {
    const sort = q.sort ?? 'newest';
    let ids: SelectQueryBuilder<ObjectLiteral> = where.clone().select('c.id', 'id');
    let alias = 'c';
    if (sort === 'title' && q.search !== undefined && TRIGRAM.test(q.search)) {
      const matches = ids.addSelect('c.title_folded', 'title_folded').offset(0);
      ids = where.createQueryBuilder().select('m.id', 'id').from(`(${matches.getQuery()})`, 'm').setParameters(matches.getParameters());
      alias = 'm';
    }
    for (const [i, [column, direction, nulls]] of ORDER[sort].entries()) {
      if (i === 0) ids.orderBy(`${alias}.${column}`, direction, nulls);
      else ids.addOrderBy(`${alias}.${column}`, direction, nulls);
    }
    return ids;
  }

  private where(ctx: RequestContext, q: Selection): SelectQueryBuilder<CourseTemplate> {
    const qb = this.courses.query(ctx, 'c');
    if (q.only_deleted) qb.andWhere('c.deleted_at IS NOT NULL');
    else if (!asksForDeleted(q)) qb.andWhere('c.deleted_at IS NULL');
    for (const filter of new Set(q.filters ?? [])) {
      if (COURSE_TYPE_FILTERS.has(filter)) {
        // AND-combined like every filter: two course types together match nothing.
        qb.andWhere(`c.course_type = :type_${filter}`, { [`type_${filter}`]: filter });
      } else if (filter === 'my_courses') {
        qb.andWhere(
          'EXISTS (SELECT 1 FROM catalog.course_authors a WHERE a.account_id = c.account_id AND a.course_template_id = c.id AND a.user_id = :me)',
          { me: ctx.userId },
        );
      } else if (filter === 'unpublished') qb.andWhere('c.is_published = false');
      else if (filter === 'has_certificate') qb.andWhere('c.has_certificate = true');
      else if (filter === 'no_enrollments') qb.andWhere(EnrollmentCounts.noneSql('CourseTemplate', 'c'));
    }
    // The stored lower-case title with LIKE: what ILIKE means, without lowercasing every row it tests.
    if (q.search) qb.andWhere('c.title_folded LIKE lower(:pattern)', { pattern: containsPattern(q.search) });
    for (const [key, column, op] of DATE_FILTERS) {
      const value = q[key];
      if (value === undefined) continue;
      const { operator, bound } = dateFilter(value, op);
      qb.andWhere(`${column} ${operator} :${key}`, { [key]: bound });
    }
    return qb;
  }
}
