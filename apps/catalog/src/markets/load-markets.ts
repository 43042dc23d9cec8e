// Operator's loader of the content markets: `DATABASE_URL=… node dist/apps/catalog/markets/load-markets.js catalogue.json`
// replaces each market the file names (format: MarketCatalogue in market-catalogue.ts; docs/catalog.md).
// It migrates the catalog schema first, so it also works before the catalog service first starts.
import { readFile } from 'node:fs/promises';
import { isEntrypoint, openDatabase } from '@lms/platform';
import { CATALOG_ENTITIES, CATALOG_MIGRATIONS } from '../catalog.module.js';
import { CatalogueError, loadCatalogue, parseCatalogue } from './market-catalogue.js';

export async function loadMarketsFile(databaseUrl: string, file: string): Promise<{ market: string; items: number }[]> {
  let plain: unknown;
  try {
    plain = JSON.parse(await readFile(file, 'utf8'));
  } catch (err) {
    throw new CatalogueError(`cannot read ${file} as JSON: ${(err as Error).message}`);
  }
  const catalogue = await parseCatalogue(plain);
  const db = await openDatabase({ url: databaseUrl, schema: 'catalog', entities: CATALOG_ENTITIES, migrations: CATALOG_MIGRATIONS, poolSize: 2 });
  try {
    return await loadCatalogue(db, catalogue);
  } finally {
    await db.close();
  }
}

if (isEntrypoint(import.meta.url)) {
  const [file] = process.argv.slice(2);
  const url = process.env.DATABASE_URL;
  if (!file || !url) {
    process.stderr.write('usage: DATABASE_URL=postgres://… node dist/apps/catalog/markets/load-markets.js <catalogue.json>\n');
    process.exit(2);
  }
  try {
    for (const { market, items } of await loadMarketsFile(url, file)) process.stdout.write(`${market}: ${items} items loaded\n`);
  } catch (err) {
    process.stderr.write(`load-markets: ${err instanceof CatalogueError ? err.message : String((err as Error).stack ?? err)}\n`);
    process.exit(1);
  }
}
