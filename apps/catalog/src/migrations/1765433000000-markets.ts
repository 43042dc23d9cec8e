import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Content markets: the third-party catalogues (one per third-party course type) and their items. They are
 * shared reference data, not an account's: `account_ids` says which accounts see a market (NULL: every
 * account). Loaded by the operator (`load-markets`), or seeded with a sample in embedded mode.
 */
export class Markets1765433000000 implements MigrationInterface {
  name = 'Markets1765433000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE catalog.markets (
        id text PRIMARY KEY CHECK (id IN ('third_party_a', 'third_party_b')),
        name text NOT NULL,
        description text,
        account_ids integer[],
        loaded_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`
      CREATE TABLE catalog.market_items (
        market_id text NOT NULL REFERENCES catalog.markets(id) ON DELETE CASCADE,
        id text NOT NULL,
        title text NOT NULL,
        description text,
        estimated_time integer,
        language text,
        thumbnail_url text,
        PRIMARY KEY (market_id, id)
      )`);
    await q.query('CREATE INDEX market_items_title ON catalog.market_items (market_id, lower(title), id)');
    await q.query('CREATE INDEX market_items_title_trgm ON catalog.market_items USING gin (title public.gin_trgm_ops)');
    // "Is this item already a course of the account?" for a page of items, and the add's own check.
    await q.query(`CREATE INDEX course_templates_third_party ON catalog.course_templates (account_id, course_type, third_party_course_id)
                   WHERE third_party_course_id IS NOT NULL AND deleted_at IS NULL`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP INDEX catalog.course_templates_third_party');
    await q.query('DROP TABLE catalog.market_items');
    await q.query('DROP TABLE catalog.markets');
  }
}
