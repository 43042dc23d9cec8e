import { Type } from 'class-transformer';
import { ArrayMaxSize, IsArray, IsDefined, IsIn, IsInt, IsOptional, IsUrl, Matches, Max, Min, ValidateNested } from 'class-validator';
import { IsText, MARKET_IDS, MAX_ID, type MarketId, validateInput } from '@lms/contracts';
import type { Database } from '@lms/platform';
import { Market, MarketItem } from './market.entity.js';

/** The most items one market may hold (a file larger than this is most likely a mistake). */
export const MAX_MARKET_ITEMS = 200_000;

class CatalogueItem {
  @IsText(255) @Matches(/\S/, { message: 'id must not be blank' })
  id: string;

  @IsText(255) @Matches(/\S/, { message: 'title must not be blank' })
  title: string;

  @IsOptional() @IsText(20_000)
  description?: string | null;

  @IsOptional() @IsInt() @Min(0) @Max(100_000)
  estimated_time?: number | null;

  @IsOptional() @IsText(35)
  language?: string | null;

  @IsOptional() @IsText(2000)
  thumbnail_url?: string | null;

  /** An absolute http(s) URL: a learner's browser opens it. */
  @IsOptional() @IsText(2000) @IsUrl({ protocols: ['https', 'http'], require_protocol: true, require_tld: false }, { message: 'launch_url must be an absolute http(s) URL' })
  launch_url?: string | null;
}

class CatalogueMarket {
  @IsIn(MARKET_IDS, { message: `id must be one of: ${MARKET_IDS.join(', ')}` })
  id: MarketId;

  @IsText(255) @Matches(/\S/, { message: 'name must not be blank' })
  name: string;

  @IsOptional() @IsText(20_000)
  description?: string | null;

  /** The accounts that see the market; absent or null: every account. */
  @IsOptional() @IsArray() @ArrayMaxSize(100_000) @IsInt({ each: true }) @Min(1, { each: true }) @Max(MAX_ID, { each: true })
  account_ids?: number[] | null;

  @IsDefined() @IsArray() @ArrayMaxSize(MAX_MARKET_ITEMS) @ValidateNested({ each: true }) @Type(() => CatalogueItem)
  items: CatalogueItem[];
}

/** What an operator loads: `{ "markets": [{ id, name, description?, account_ids?, items: [{ id, title, … }] }] }`. */
export class MarketCatalogue {
  @IsDefined() @IsArray() @ArrayMaxSize(MARKET_IDS.length) @ValidateNested({ each: true }) @Type(() => CatalogueMarket)
  markets: CatalogueMarket[];
}

export class CatalogueError extends Error {}

/** Checks a parsed catalogue file; the errors name the fields (`markets[0].items[3].title`). */
export async function parseCatalogue(plain: unknown): Promise<MarketCatalogue> {
  const result = await validateInput<MarketCatalogue>(MarketCatalogue, plain);
  if (!result.ok) throw new CatalogueError(`the catalogue is not valid: ${result.errors.slice(0, 20).map((e) => `${e.field}: ${e.message}`).join('; ')}`);
  const ids = result.value.markets.map((m) => m.id);
  if (new Set(ids).size !== ids.length) throw new CatalogueError('the catalogue names a market twice');
  for (const [i, market] of result.value.markets.entries()) {
    const seen = new Set<string>();
    for (const [j, item] of market.items.entries()) {
      if (seen.has(item.id)) throw new CatalogueError(`markets[${i}].items[${j}].id: ${item.id} appears twice in ${market.id}`);
      seen.add(item.id);
    }
  }
  return result.value;
}

/**
 * Replaces each market the catalogue names, with its items, in one transaction: readers see the old
 * catalogue or the new one, never half. Markets it does not name stay as they are. Courses already made
 * from an item keep their `third_party_course_id` when the item leaves the market.
 */
export async function loadCatalogue(db: Database, catalogue: MarketCatalogue): Promise<{ market: string; items: number }[]> {
  return db.transaction(async (manager) => {
    const loaded: { market: string; items: number }[] = [];
    for (const market of catalogue.markets) {
      await manager.getRepository(Market).upsert(
        { id: market.id, name: market.name.trim(), description: market.description ?? null, accountIds: market.account_ids ?? null, loadedAt: new Date() },
        ['id'],
      );
      await manager.getRepository(MarketItem).delete({ marketId: market.id });
      const rows = market.items.map((item) => ({
        marketId: market.id,
        id: item.id,
        title: item.title.trim(),
        description: item.description ?? null,
        estimatedTime: item.estimated_time ?? null,
        language: item.language ?? null,
        thumbnailUrl: item.thumbnail_url ?? null,
        launchUrl: item.launch_url ?? null,
      }));
      // Postgres takes at most 65,535 parameters a statement: 8 columns, so chunks of 5,000 rows.
      for (let i = 0; i < rows.length; i += 5000) await manager.getRepository(MarketItem).insert(rows.slice(i, i + 5000));
      loaded.push({ market: market.id, items: rows.length });
    }
    return loaded;
  });
}
