import { createLogger, type Database, loadConfig, openDatabase, type Runtime, type ServiceContext } from '@lms/platform';
import { createTestDatabase, type TestDatabase } from '@lms/testing';
import { CATALOG_ENTITIES, CATALOG_MIGRATIONS } from '../catalog.module.js';
import { Market, MarketItem } from './market.entity.js';
import { SAMPLE_CATALOGUE } from './sample-catalogue.js';
import { seedSampleMarkets } from './sample-seed.js';

describe('sample markets of embedded mode (real Postgres)', () => {
  let testDb: TestDatabase;
  let db: Database;
  const contextFor = (env: Record<string, string>): ServiceContext => {
    const runtime = { config: loadConfig(env), databaseUrl: testDb.url, logger: createLogger('silent') } as Runtime;
    return { runtime, db, outbox: undefined as never, get: () => undefined as never };
  };
  const counts = async () => [await db.manager.getRepository(Market).count(), await db.manager.getRepository(MarketItem).count()];

  beforeAll(async () => {
    testDb = await createTestDatabase();
    db = await openDatabase({ url: testDb.url, schema: 'catalog', entities: CATALOG_ENTITIES, migrations: CATALOG_MIGRATIONS, poolSize: 2 });
  });
  afterAll(async () => {
    await db?.close();
    await testDb?.drop();
  });

  it('loads nothing when the database is a real one (DATABASE_URL set): the operator loads the catalogues', async () => {
    await seedSampleMarkets(contextFor({ DATABASE_URL: testDb.url }));
    expect(await counts()).toEqual([0, 0]);
  });

  it('loads the sample catalogues in embedded mode, once: markets an operator changed stay as they are', async () => {
    await seedSampleMarkets(contextFor({}));
    const items = SAMPLE_CATALOGUE.markets.reduce((n, m) => n + m.items.length, 0);
    expect(await counts()).toEqual([2, items]);
    await db.manager.query("DELETE FROM catalog.market_items WHERE market_id = 'third_party_b'");
    await seedSampleMarkets(contextFor({}));
    expect(await counts()).toEqual([2, items - SAMPLE_CATALOGUE.markets[1].items.length]);
  });
});
