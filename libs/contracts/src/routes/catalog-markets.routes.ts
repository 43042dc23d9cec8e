import { COURSE_TEMPLATE_SCHEMA } from '../catalog/course-templates.contract.js';
import { ListMarketItemsQuery, MARKET_ITEM_SCHEMA, MARKET_SCHEMA, MARKET_SUBJECTS as S, MarketItemParams, MarketParams } from '../catalog/markets.contract.js';
import { defineRoute } from './route.js';

const PATH = '/api/author/markets';

/** Spec "Content markets": the list is the spec's; the items and the add are how an author uses them (docs/catalog.md). */
export const CATALOG_MARKET_ROUTES = [
  defineRoute({
    method: 'GET', path: PATH, subject: S.list, status: 200,
    summary: 'The third-party catalogues available to the account, with their item counts',
    response: { kind: 'envelope', key: 'markets', item: MARKET_SCHEMA },
  }),
  defineRoute({
    method: 'GET', path: `${PATH}/:market_id/items`, subject: S.items, status: 200, paged: true,
    summary: "A market's items by title, optionally by a case-insensitive substring of it; each says whether the account has added it",
    params: MarketParams, query: ListMarketItemsQuery, response: { kind: 'envelope', key: 'items', item: MARKET_ITEM_SCHEMA },
  }),
  defineRoute({
    method: 'POST', path: `${PATH}/:market_id/items/:id/add`, subject: S.add, status: 201,
    summary: "Add an item to the account as an unpublished course template of the market's course type (201); 200 with the course when the account already has it",
    params: MarketItemParams, response: { kind: 'envelope', key: 'course_templates', item: COURSE_TEMPLATE_SCHEMA },
  }),
];
