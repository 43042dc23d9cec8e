import { IsOptional, Matches } from 'class-validator';
import { PageQuery } from '../common/query.js';
import type { JsonSchema } from '../routes/route.js';
import type { CourseType } from './course-templates.contract.js';
import { IsText } from './text.js';

export const MARKET_SUBJECTS = {
  list: 'catalog.markets.list',
  items: 'catalog.markets.items',
  add: 'catalog.markets.add',
} as const;

/** The third-party catalogues: each market's id is the course type its items become. */
export const MARKET_IDS = ['third_party_a', 'third_party_b'] as const satisfies readonly CourseType[];
export type MarketId = (typeof MARKET_IDS)[number];

/** `:market_id`: any short slug; one that names no market of the account is a 404, like an unknown id. */
export class MarketParams {
  @IsText(50) @Matches(/^[a-z0-9_]+$/, { message: 'market_id must be a market id such as third_party_a' })
  market_id: string;
}

/** `:id` is the item's third-party course id, as the market spells it (URL-encoded in the path). */
export class MarketItemParams extends MarketParams {
  @IsText(255) @Matches(/\S/, { message: 'id must not be blank' })
  id: string;
}

export class ListMarketItemsQuery extends PageQuery {
  /** Case-insensitive substring of the title. */
  @IsOptional() @IsText(255)
  search?: string;
}

export interface MarketView {
  id: MarketId;
  name: string;
  description: string | null;
  /** The course type an added item gets (the market's id). */
  course_type: MarketId;
  items_count: number;
  links: { items: string };
}

export interface MarketItemView {
  /** The third-party course id; an added course keeps it as `third_party_course_id`. */
  id: string;
  market_id: MarketId;
  title: string;
  description: string | null;
  estimated_time: number | null;
  language: string | null;
  thumbnail_url: string | null;
  /** The account's live course made from this item, or null. */
  course_template_id: string | null;
}

export const MARKET_SCHEMA: JsonSchema = {
  type: 'object',
  required: ['id', 'name', 'description', 'course_type', 'items_count', 'links'],
  properties: {
    id: { type: 'string', enum: [...MARKET_IDS] },
    name: { type: 'string' },
    description: { type: ['string', 'null'] },
    course_type: { type: 'string', enum: [...MARKET_IDS] },
    items_count: { type: 'integer', minimum: 0 },
    links: { type: 'object', required: ['items'], properties: { items: { type: 'string', description: "the path of the market's items" } } },
  },
};

export const MARKET_ITEM_SCHEMA: JsonSchema = {
  type: 'object',
  required: ['id', 'market_id', 'title', 'description', 'estimated_time', 'language', 'thumbnail_url', 'course_template_id'],
  properties: {
    id: { type: 'string', description: 'the third-party course id' },
    market_id: { type: 'string', enum: [...MARKET_IDS] },
    title: { type: 'string' },
    description: { type: ['string', 'null'] },
    estimated_time: { type: ['integer', 'null'], description: 'minutes' },
    language: { type: ['string', 'null'] },
    thumbnail_url: { type: ['string', 'null'] },
    course_template_id: { type: ['string', 'null'], description: "the account's live course made from this item" },
  },
};
