import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Where the vendor plays a market item: the launch URL of the third-party courses made from it. */
export class MarketItemLaunchUrl1767600000000 implements MigrationInterface {
  name = 'MarketItemLaunchUrl1767600000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE catalog.market_items ADD COLUMN launch_url text');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE catalog.market_items DROP COLUMN launch_url');
  }
}
