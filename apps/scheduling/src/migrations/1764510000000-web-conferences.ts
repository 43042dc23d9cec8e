import type { MigrationInterface, QueryRunner } from 'typeorm';

/** A session's web conference (at most one), and each author's saved defaults for new sessions. */
export class WebConferences1764510000000 implements MigrationInterface {
  name = 'WebConferences1764510000000';

  async up(q: QueryRunner): Promise<void> {
    const details = `
        provider text NOT NULL,
        other_provider text,
        meeting_url text,
        access_code text,
        phone text,
        host_key text,
        password text,
        registration_link text,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()`;
    await q.query(`
      CREATE TABLE scheduling.web_conferences (
        id serial PRIMARY KEY,
        account_id integer NOT NULL,
        session_id integer NOT NULL REFERENCES scheduling.sessions (id),
        ${details},
        UNIQUE (account_id, session_id)
      )`);
    await q.query(`
      CREATE TABLE scheduling.web_conference_defaults (
        account_id integer NOT NULL,
        user_id integer NOT NULL,
        ${details},
        PRIMARY KEY (account_id, user_id)
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE scheduling.web_conference_defaults');
    await q.query('DROP TABLE scheduling.web_conferences');
  }
}
