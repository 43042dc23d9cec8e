import { Injectable } from '@nestjs/common';
import { type ListMarketItemsQuery, type MarketId, type MarketItemView, type MarketView, pageWindow, type RequestContext } from '@lms/contracts';
import { Database, InjectTenantRepository, type TenantRepository, type TenantScope } from '@lms/platform';
import { assertAuthorAudience } from '../authoring/author-audience.js';
import { containsPattern } from '../course-templates/course-template-list.js';
import { CourseTemplate } from '../course-templates/course-template.entity.js';
import { CourseTemplatesService } from '../course-templates/course-templates.service.js';
import { Market, MarketItem } from './market.entity.js';
import { marketItemNotFound, marketNotFound } from './market.errors.js';

const marketsPath = '/api/author/markets';

/**
 * Content markets: shared third-party catalogues (not an account's rows, so not behind a tenant
 * repository), each visible to the accounts it names, and the account's courses made from their items.
 */
@Injectable()
export class MarketsService {
  constructor(
    private readonly db: Database,
    private readonly templates: CourseTemplatesService,
    @InjectTenantRepository(CourseTemplate) private readonly courses: TenantRepository<CourseTemplate>,
  ) {}

  /** The markets the account sees, by id, with their item counts. */
  async list(scope: TenantScope): Promise<MarketView[]> {
    const rows = await this.available(scope)
      .addSelect((sub) => sub.select('count(*)::int').from(MarketItem, 'i').where('i.market_id = m.id'), 'items_count')
      .orderBy('m.id', 'ASC')
      .getRawAndEntities<{ items_count: number }>();
    return rows.entities.map((market, i) => ({
      id: market.id as MarketId,
      name: market.name,
      description: market.description,
      course_type: market.id as MarketId,
      items_count: rows.raw[i].items_count,
      links: { items: `${marketsPath}/${market.id}/items` },
    }));
  }

  /** A page of a market's items by title (then id), each with the account's live course made from it. */
  async items(scope: TenantScope, marketId: string, query: ListMarketItemsQuery): Promise<[MarketItemView[], number]> {
    const market = await this.find(scope, marketId);
    const { skip, take } = pageWindow(query);
    const qb = this.db.manager.getRepository(MarketItem).createQueryBuilder('i').where('i.market_id = :market', { market: market.id });
    if (query.search) qb.andWhere('i.title ILIKE :pattern', { pattern: containsPattern(query.search) });
    const [items, total] = await Promise.all([
      qb.clone().orderBy('lower(i.title)', 'ASC').addOrderBy('i.id', 'ASC').offset(skip).limit(take).getMany(),
      qb.clone().select('count(*)::int', 'n').getRawOne<{ n: number }>(),
    ]);
    const added = await this.addedCourses(scope, market.id, items.map((item) => item.id));
    const views = items.map((item) => ({
      id: item.id,
      market_id: item.marketId as MarketId,
      title: item.title,
      description: item.description,
      estimated_time: item.estimatedTime,
      language: item.language,
      thumbnail_url: item.thumbnailUrl,
      course_template_id: added.has(item.id) ? String(added.get(item.id)) : null,
    }));
    return [views, total?.n ?? 0];
  }

  /**
   * Makes the item a course template of the account: unpublished, of the market's course type, with the
   * item's id as `third_party_course_id`, authored by the caller. When the account already has a live
   * course from the item, that course is the answer and nothing is made (`created: false`); concurrent
   * adds of one item queue on a transaction lock, so they make one course.
   */
  async add(ctx: RequestContext, marketId: string, itemId: string): Promise<{ course: CourseTemplate; created: boolean }> {
    assertAuthorAudience(ctx, 'add market items');
    const market = await this.find(ctx, marketId);
    const item = await this.db.manager.getRepository(MarketItem).findOne({ where: { marketId: market.id, id: itemId } });
    if (!item) throw marketItemNotFound(market.id, itemId);
    return this.db.transaction(async (manager) => {
      await manager.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`catalog.market_item:${ctx.accountId}:${market.id}:${item.id}`]);
      const existing = (await this.addedCourses(ctx, market.id, [item.id])).get(item.id);
      if (existing !== undefined) return { course: await this.templates.find(ctx, existing), created: false };
      const [course] = await this.templates.create(
        ctx,
        [{ title: item.title, description: item.description, course_type: market.id as MarketId, default_days_until_due: 0, is_published: false, has_unpublished_changes: true }],
        { thirdPartyCourseId: item.id },
      );
      return { course, created: true };
    });
  }

  private available(scope: TenantScope) {
    return this.db.manager.getRepository(Market).createQueryBuilder('m').where('(m.account_ids IS NULL OR :account = ANY(m.account_ids))', { account: scope.accountId });
  }

  /** A market the account sees; any other (unknown, or another account's) is the same 404. */
  private async find(scope: TenantScope, id: string): Promise<Market> {
    return (await this.available(scope).andWhere('m.id = :id', { id }).getOne()) ?? Promise.reject(marketNotFound(id));
  }

  /** Item id -> the account's live course of this market made from it (the oldest, should there be several). */
  private async addedCourses(scope: TenantScope, marketId: string, itemIds: string[]): Promise<Map<string, number>> {
    if (itemIds.length === 0) return new Map();
    const rows = await this.courses
      .query(scope, 'c')
      .select(['c.id', 'c.thirdPartyCourseId'])
      .andWhere('c.course_type = :type AND c.third_party_course_id IN (:...items) AND c.deleted_at IS NULL', { type: marketId, items: itemIds })
      .orderBy('c.id', 'DESC')
      .getMany();
    return new Map(rows.map((row) => [row.thirdPartyCourseId as string, row.id]));
  }
}
