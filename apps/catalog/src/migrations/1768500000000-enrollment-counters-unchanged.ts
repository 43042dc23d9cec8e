import type { MigrationInterface, QueryRunner } from 'typeorm';
import { addShares, COUNTED, sharesOf } from './1768300000000-enrollment-counters-per-statement.js';

/** The update trigger's function, with `unchanged` the look for a counted column that changed. */
const countUpdated = (unchanged: string) => `
  CREATE OR REPLACE FUNCTION catalog.count_updated_enrollments() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
    ${unchanged}
    IF NOT FOUND THEN RETURN NULL; END IF;
    ${addShares(`${sharesOf('old_rows', -1)} UNION ALL ${sharesOf('new_rows', 1)}`)}
    RETURN NULL; END $$`;

const pairs = `PERFORM FROM old_rows o JOIN new_rows n ON n.id = o.id
      WHERE (${COUNTED.map((c) => `o.${c}`).join(', ')}) IS DISTINCT FROM (${COUNTED.map((c) => `n.${c}`).join(', ')})`;

/**
 * A statement that changes no counted column (scores, progress) of many enrollments is passed over in one hash
 * join of its old and new rows. The look stopped at the first changed pair (`LIMIT 1`), and for that the planner,
 * which has no statistics for transition tables and expects an early match, took a nested loop: when nothing
 * counted had changed it tested every pair, 20,000 × 20,000 rows in 21 s. Without the limit it reads each table
 * once (0.3 s); a statement that changes a counted column reads them all anyway to count.
 */
export class EnrollmentCountersUnchanged1768500000000 implements MigrationInterface {
  name = 'EnrollmentCountersUnchanged1768500000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(countUpdated(`${pairs};`));
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(countUpdated(`${pairs}\n      LIMIT 1;`));
  }
}
