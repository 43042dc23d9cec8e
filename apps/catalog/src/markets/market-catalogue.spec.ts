import { MARKET_IDS } from '@lms/contracts';
import { CatalogueError, parseCatalogue } from './market-catalogue.js';

describe('parseCatalogue', () => {
  it('takes a market of more items than a request may carry in one array, up to its own bound', async () => {
    const items = Array.from({ length: 12_000 }, (_, i) => ({ id: `item-${i}`, title: `Item ${i}` }));
    const account_ids = Array.from({ length: 20_000 }, (_, i) => i + 1);
    const catalogue = await parseCatalogue({ markets: [{ id: MARKET_IDS[0], name: 'Big market', account_ids, items }] });
    expect(catalogue.markets[0].items).toHaveLength(12_000);
    expect(catalogue.markets[0].account_ids).toHaveLength(20_000);
  });

  it('names the field of an invalid item', async () => {
    await expect(parseCatalogue({ markets: [{ id: MARKET_IDS[0], name: 'M', items: [{ id: 'a', title: ' ' }] }] })).rejects.toThrow(CatalogueError);
  });
});
