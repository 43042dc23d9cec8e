import type { MigrationInterface, QueryRunner } from 'typeorm';

/** The row trigger's function that kept the counters until EnrollmentCountersPerStatement1768300000000 (which restores it on down). */
export const COUNT_ENROLLMENT_FUNCTION = `
      CREATE FUNCTION catalog.count_enrollment() RETURNS trigger LANGUAGE plpgsql AS $$
      DECLARE
        d record;
      BEGIN
        IF TG_OP IN ('UPDATE', 'DELETE') THEN
          d := catalog.enrollment_share(OLD, -1);
          INSERT INTO catalog.enrollment_counters AS c (account_id, enrollable_type, enrollable_id, live, required, finished, not_started, shared)
          VALUES (OLD.account_id, OLD.enrollable_type, OLD.enrollable_id, d.live, d.required, d.finished, d.not_started, d.shared)
          ON CONFLICT (account_id, enrollable_type, enrollable_id) DO UPDATE
            SET live = c.live + d.live, required = c.required + d.required, finished = c.finished + d.finished,
                not_started = c.not_started + d.not_started, shared = c.shared + d.shared;
        END IF;
        IF TG_OP IN ('INSERT', 'UPDATE') THEN
          d := catalog.enrollment_share(NEW, 1);
          INSERT INTO catalog.enrollment_counters AS c (account_id, enrollable_type, enrollable_id, live, required, finished, not_started, shared)
          VALUES (NEW.account_id, NEW.enrollable_type, NEW.enrollable_id, d.live, d.required, d.finished, d.not_started, d.shared)
          ON CONFLICT (account_id, enrollable_type, enrollable_id) DO UPDATE
            SET live = c.live + d.live, required = c.required + d.required, finished = c.finished + d.finished,
                not_started = c.not_started + d.not_started, shared = c.shared + d.shared;
        END IF;
        RETURN NULL;
      END
      $$`;

export const COUNT_ENROLLMENT_TRIGGER = `CREATE TRIGGER enrollments_count AFTER INSERT OR DELETE OR UPDATE OF deleted_at, required, completed_at, started_at, sub_account_id, enrollable_id
                   ON catalog.enrollments FOR EACH ROW EXECUTE FUNCTION catalog.count_enrollment()`;

/**
 * Enrollment figures kept as counters per item, so a course of 100,000 enrollments shows its counts
 * without reading them: a trigger on catalog.enrollments (per row here; per statement since
 * EnrollmentCountersPerStatement1768300000000) adds each row's share when it is inserted,
 * changes state or is removed, in the writing transaction (so the counters are exactly the rows, however
 * the row was written, and concurrent writers queue on the item's counter row). `overdue` and the next
 * due moment depend on the clock, so they are read from a partial index of the open enrollments' due
 * dates instead.
 */
export class EnrollmentCounters1765450000000 implements MigrationInterface {
  name = 'EnrollmentCounters1765450000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE catalog.enrollment_counters (
        account_id integer NOT NULL,
        enrollable_type text NOT NULL,
        enrollable_id integer NOT NULL,
        live integer NOT NULL DEFAULT 0,
        required integer NOT NULL DEFAULT 0,
        finished integer NOT NULL DEFAULT 0,
        not_started integer NOT NULL DEFAULT 0,
        shared integer NOT NULL DEFAULT 0,
        PRIMARY KEY (account_id, enrollable_type, enrollable_id)
      )`);
    await q.query(`
      CREATE FUNCTION catalog.enrollment_share(e catalog.enrollments, sign integer,
                                               OUT live integer, OUT required integer, OUT finished integer, OUT not_started integer, OUT shared integer)
      LANGUAGE sql STABLE AS $$
        SELECT CASE WHEN e.deleted_at IS NULL THEN sign ELSE 0 END,
               CASE WHEN e.deleted_at IS NULL AND e.required THEN sign ELSE 0 END,
               CASE WHEN e.deleted_at IS NULL AND e.completed_at IS NOT NULL THEN sign ELSE 0 END,
               CASE WHEN e.deleted_at IS NULL AND e.completed_at IS NULL AND e.started_at IS NULL THEN sign ELSE 0 END,
               CASE WHEN e.deleted_at IS NULL AND e.sub_account_id IS NOT NULL AND e.sub_account_id IS DISTINCT FROM (
                      CASE e.enrollable_type
                        WHEN 'CourseTemplate' THEN (SELECT c.sub_account_id FROM catalog.course_templates c WHERE c.id = e.enrollable_id)
                        ELSE (SELECT t.sub_account_id FROM catalog.tasks t WHERE t.id = e.enrollable_id) END)
                    THEN sign ELSE 0 END
      $$`);
    await q.query(COUNT_ENROLLMENT_FUNCTION);
    await q.query(COUNT_ENROLLMENT_TRIGGER);
    await q.query(`
      INSERT INTO catalog.enrollment_counters (account_id, enrollable_type, enrollable_id, live, required, finished, not_started, shared)
      SELECT e.account_id, e.enrollable_type, e.enrollable_id, sum(s.live), sum(s.required), sum(s.finished), sum(s.not_started), sum(s.shared)
        FROM catalog.enrollments e, LATERAL catalog.enrollment_share(e, 1) s
       GROUP BY e.account_id, e.enrollable_type, e.enrollable_id`);
    // Open enrollments by due moment: overdue is a range count, the next due moment the first entry ahead.
    await q.query(`CREATE INDEX enrollments_open_due ON catalog.enrollments (account_id, enrollable_type, enrollable_id, due_at)
                   WHERE deleted_at IS NULL AND completed_at IS NULL AND due_at IS NOT NULL`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP INDEX catalog.enrollments_open_due');
    await q.query('DROP TRIGGER enrollments_count ON catalog.enrollments');
    await q.query('DROP FUNCTION catalog.count_enrollment()');
    await q.query('DROP FUNCTION catalog.enrollment_share(catalog.enrollments, integer)');
    await q.query('DROP TABLE catalog.enrollment_counters');
  }
}
