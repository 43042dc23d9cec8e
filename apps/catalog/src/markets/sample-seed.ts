import type { ServiceContext } from '@lms/platform';
import { loadCatalogue } from './market-catalogue.js';
import { Market } from './market.entity.js';
import { SAMPLE_CATALOGUE } from './sample-catalogue.js';

/**
 * Embedded mode (no DATABASE_URL: `npm start` on a laptop) starts with the sample catalogues, once: an
 * install whose markets were loaded, or emptied, by its operator keeps them. With a real database the
 * operator loads the vendors' catalogues (`load-markets`).
 */
export async function seedSampleMarkets({ runtime, db }: ServiceContext): Promise<void> {
  if (runtime.config.databaseUrl) return;
  if ((await db.manager.getRepository(Market).count()) > 0) return;
  const loaded = await loadCatalogue(db, SAMPLE_CATALOGUE);
  runtime.logger.info({ markets: loaded }, 'embedded mode: sample market catalogues loaded');
}
