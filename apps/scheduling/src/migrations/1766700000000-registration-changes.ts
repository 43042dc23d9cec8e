import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The registration changes of each live course, in an ordered log the live-updates stream reads (issue 10;
 * docs/scheduling.md "Live updates"). A trigger on the outbox writes a row for every registration and
 * waitlist event, in the transaction that made the change: nothing changes without its row, and a rolled
 * back change leaves none. `xid` is the writing transaction: readers take rows of finished transactions
 * only, in (xid, id) order, so a row that commits late can never land behind a reader's cursor.
 */
export class RegistrationChanges1766700000000 implements MigrationInterface {
  name = 'RegistrationChanges1766700000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE scheduling.registration_changes (
        id bigserial PRIMARY KEY,
        xid xid8 NOT NULL DEFAULT pg_current_xact_id(),
        account_id integer NOT NULL,
        live_course_id integer NOT NULL,
        session_id integer NOT NULL,
        event_id uuid NOT NULL,
        type text NOT NULL,
        data jsonb NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query('CREATE INDEX registration_changes_course ON scheduling.registration_changes (account_id, live_course_id, xid, id)');
    await q.query(`
      CREATE FUNCTION scheduling.record_registration_change() RETURNS trigger LANGUAGE plpgsql AS $$
      DECLARE data jsonb := COALESCE(NEW.payload -> 'data', '{}'::jsonb);
      BEGIN
        IF data ? 'live_course_id' AND data ? 'session_id' THEN
          INSERT INTO scheduling.registration_changes (account_id, live_course_id, session_id, event_id, type, data)
          VALUES (NEW.account_id, (data ->> 'live_course_id')::integer, (data ->> 'session_id')::integer, NEW.id, NEW.type, data);
        END IF;
        RETURN NEW;
      END $$`);
    await q.query(`
      CREATE TRIGGER registration_changes AFTER INSERT ON scheduling.outbox
      FOR EACH ROW WHEN (NEW.type LIKE 'scheduling.registration.%' OR NEW.type LIKE 'scheduling.waitlist.%')
      EXECUTE FUNCTION scheduling.record_registration_change()`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TRIGGER registration_changes ON scheduling.outbox');
    await q.query('DROP FUNCTION scheduling.record_registration_change()');
    await q.query('DROP TABLE scheduling.registration_changes');
  }
}
