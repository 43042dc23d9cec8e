import type { MigrationInterface, QueryRunner } from 'typeorm';
import { COUNT_ENROLLMENT_FUNCTION, COUNT_ENROLLMENT_TRIGGER } from './1765450000000-enrollment-counters.js';

/** The counted columns: an update that changes none of them changes no counter. */
export const COUNTED = ['deleted_at IS NULL', 'required', 'completed_at IS NULL', 'started_at IS NULL', 'sub_account_id', 'enrollable_type', 'enrollable_id'];

/**
 * The counters' upsert of one statement's shares (`shares` selects account, item and the five figures), one row per
 * item, in item order (courses, then tasks, by id: the order program enrollments lock their items in).
 */
export const addShares = (shares: string) => `
  INSERT INTO catalog.enrollment_counters AS c (account_id, enrollable_type, enrollable_id, live, required, finished, not_started, shared)
  SELECT account_id, enrollable_type, enrollable_id, sum(live), sum(required), sum(finished), sum(not_started), sum(shared)
    FROM (${shares}) shares
   GROUP BY account_id, enrollable_type, enrollable_id
  HAVING (sum(live), sum(required), sum(finished), sum(not_started), sum(shared)) <> (0, 0, 0, 0, 0)
   ORDER BY account_id, enrollable_type, enrollable_id
  ON CONFLICT (account_id, enrollable_type, enrollable_id) DO UPDATE
    SET live = c.live + excluded.live, required = c.required + excluded.required, finished = c.finished + excluded.finished,
        not_started = c.not_started + excluded.not_started, shared = c.shared + excluded.shared;`;

export const sharesOf = (rows: 'old_rows' | 'new_rows', sign: 1 | -1) =>
  `SELECT r.account_id, r.enrollable_type, r.enrollable_id, s.* FROM ${rows} r, LATERAL catalog.enrollment_share(r::catalog.enrollments, ${sign}) s`;

const FUNCTIONS = {
  count_inserted_enrollments: addShares(sharesOf('new_rows', 1)),
  count_deleted_enrollments: addShares(sharesOf('old_rows', -1)),
  count_updated_enrollments: `
    PERFORM FROM old_rows o JOIN new_rows n ON n.id = o.id
      WHERE (${COUNTED.map((c) => `o.${c}`).join(', ')}) IS DISTINCT FROM (${COUNTED.map((c) => `n.${c}`).join(', ')})
      LIMIT 1;
    IF NOT FOUND THEN RETURN NULL; END IF;
    ${addShares(`${sharesOf('old_rows', -1)} UNION ALL ${sharesOf('new_rows', 1)}`)}`,
};

/**
 * Enrollment counters are kept per statement instead of per row: a statement that writes thousands of enrollments
 * of one item (a deleted task's withdrawal, a group's enrollment) updated the item's counter row once per row, and
 * each update in one transaction walks the row's versions so far, so 20,000 rows took 7 s; now they take one
 * update per item. Each statement's rows are read from its transition tables. An update of no counted column
 * (progress, score) is seen and left in one small query, as the column list of the row trigger left it.
 * Triggers only: every version of catalog writes through them alike.
 */
export class EnrollmentCountersPerStatement1768300000000 implements MigrationInterface {
  name = 'EnrollmentCountersPerStatement1768300000000';

  async up(q: QueryRunner): Promise<void> {
    // Swapping triggers takes catalog.enrollments for a moment, but waits for every transaction on it first, and
    // every read and write of it queues behind that wait: give up after 10 s (the init container tries again).
    await q.query("SET LOCAL lock_timeout = '10s'");
    for (const [name, body] of Object.entries(FUNCTIONS)) {
      await q.query(`CREATE FUNCTION catalog.${name}() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN ${body} RETURN NULL; END $$`);
    }
    await q.query('DROP TRIGGER enrollments_count ON catalog.enrollments');
    await q.query('DROP FUNCTION catalog.count_enrollment()');
    await q.query(`CREATE TRIGGER enrollments_count_inserted AFTER INSERT ON catalog.enrollments REFERENCING NEW TABLE AS new_rows
                   FOR EACH STATEMENT EXECUTE FUNCTION catalog.count_inserted_enrollments()`);
    await q.query(`CREATE TRIGGER enrollments_count_updated AFTER UPDATE ON catalog.enrollments REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
                   FOR EACH STATEMENT EXECUTE FUNCTION catalog.count_updated_enrollments()`);
    await q.query(`CREATE TRIGGER enrollments_count_deleted AFTER DELETE ON catalog.enrollments REFERENCING OLD TABLE AS old_rows
                   FOR EACH STATEMENT EXECUTE FUNCTION catalog.count_deleted_enrollments()`);
  }

  async down(q: QueryRunner): Promise<void> {
    for (const event of ['inserted', 'updated', 'deleted']) {
      await q.query(`DROP TRIGGER enrollments_count_${event} ON catalog.enrollments`);
      await q.query(`DROP FUNCTION catalog.count_${event}_enrollments()`);
    }
    await q.query(COUNT_ENROLLMENT_FUNCTION);
    await q.query(COUNT_ENROLLMENT_TRIGGER);
  }
}
