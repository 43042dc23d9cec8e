import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Live courses with their enrollments, sessions (and parts), registrations and waitlist places. Every
 * index starts with account_id (design §4). A session's seat count is checked under a lock of the session
 * row, so the registrations table needs no counter of its own.
 */
export class LiveCourses1764500000000 implements MigrationInterface {
  name = 'LiveCourses1764500000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE scheduling.live_courses (
        id serial PRIMARY KEY,
        account_id integer NOT NULL,
        author_id integer NOT NULL,
        title text NOT NULL,
        description text,
        external_course_id text,
        has_certificate boolean NOT NULL DEFAULT false,
        expires boolean NOT NULL DEFAULT false,
        default_days_until_expiration integer,
        auto_re_enroll boolean NOT NULL DEFAULT false,
        re_enrollment_period integer,
        open_enrollment boolean NOT NULL DEFAULT false,
        uuid uuid NOT NULL DEFAULT gen_random_uuid(),
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        deleted_at timestamptz
      )`);
    await q.query('CREATE INDEX live_courses_newest ON scheduling.live_courses (account_id, created_at DESC, id DESC)');
    await q.query(`
      CREATE TABLE scheduling.live_course_enrollments (
        id serial PRIMARY KEY,
        account_id integer NOT NULL,
        live_course_id integer NOT NULL REFERENCES scheduling.live_courses (id),
        user_id integer NOT NULL,
        completed_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        UNIQUE (account_id, live_course_id, user_id)
      )`);
    await q.query('CREATE INDEX live_course_enrollments_user ON scheduling.live_course_enrollments (account_id, user_id)');
    await q.query(`
      CREATE TABLE scheduling.sessions (
        id serial PRIMARY KEY,
        account_id integer NOT NULL,
        live_course_id integer NOT NULL REFERENCES scheduling.live_courses (id),
        parent_id integer REFERENCES scheduling.sessions (id),
        start_at timestamptz,
        end_at timestamptz,
        location text,
        seats integer,
        notes text,
        timezone text,
        instructor_ids integer[] NOT NULL DEFAULT '{}',
        published_at timestamptz,
        concluded_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        deleted_at timestamptz,
        CHECK (end_at IS NULL OR start_at IS NULL OR end_at >= start_at),
        CHECK (seats IS NULL OR seats >= 0)
      )`);
    await q.query('CREATE INDEX sessions_course ON scheduling.sessions (account_id, live_course_id, parent_id, id)');
    await q.query(`
      CREATE TABLE scheduling.registrations (
        id serial PRIMARY KEY,
        account_id integer NOT NULL,
        session_id integer NOT NULL REFERENCES scheduling.sessions (id),
        user_id integer NOT NULL,
        marked_complete_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        deleted_at timestamptz
      )`);
    // One live registration per user and session; unregistered ones stay as history (deleted_at).
    await q.query('CREATE UNIQUE INDEX registrations_live ON scheduling.registrations (account_id, session_id, user_id) WHERE deleted_at IS NULL');
    await q.query('CREATE INDEX registrations_user ON scheduling.registrations (account_id, user_id)');
    await q.query(`
      CREATE TABLE scheduling.waitlist_places (
        id bigserial PRIMARY KEY,
        account_id integer NOT NULL,
        session_id integer NOT NULL REFERENCES scheduling.sessions (id),
        user_id integer NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        UNIQUE (account_id, session_id, user_id)
      )`);
    await q.query('CREATE INDEX waitlist_places_user ON scheduling.waitlist_places (account_id, user_id)');
  }

  async down(q: QueryRunner): Promise<void> {
    for (const table of ['waitlist_places', 'registrations', 'sessions', 'live_course_enrollments', 'live_courses']) await q.query(`DROP TABLE scheduling.${table}`);
  }
}
