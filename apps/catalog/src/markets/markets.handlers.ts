import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import { envelope, type ListMarketItemsQuery, MARKET_SUBJECTS as S, type MarketItemParams, type MarketParams, type RpcRequest } from '@lms/contracts';
import { Handles, paged, reply } from '@lms/platform';
import { CourseTemplatePresenter, SINGLE_RECORD } from '../course-templates/course-template.presenter.js';
import { MarketsService } from './markets.service.js';

@Controller()
export class MarketsHandlers {
  constructor(
    private readonly markets: MarketsService,
    private readonly presenter: CourseTemplatePresenter,
  ) {}

  @Handles(S.list)
  async list(@Payload() { ctx }: RpcRequest) {
    return envelope('markets', await this.markets.list(ctx));
  }

  @Handles(S.items)
  async items(@Payload() { ctx, params, query }: RpcRequest<unknown, ListMarketItemsQuery, MarketParams>) {
    const [items, total] = await this.markets.items(ctx, params.market_id, query);
    return paged(envelope('items', items), total);
  }

  /** 201 with the new course; 200 with the account's existing course from the same item. */
  @Handles(S.add)
  async add(@Payload() { ctx, params }: RpcRequest<unknown, object, MarketItemParams>) {
    const { course, created } = await this.markets.add(ctx, params.market_id, params.id);
    return reply(envelope('course_templates', await this.presenter.present(ctx, [course], { ...SINGLE_RECORD, programs: true })), { status: created ? 201 : 200 });
  }
}
