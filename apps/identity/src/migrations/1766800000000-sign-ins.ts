import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Sign-ins by API token (docs/jobs.md "Admin reports"): a sign-in is a run of a token's use with no gap
 * of 30 minutes or more; `last_seen_at` is moved on at most every few minutes, off the request path.
 */
export class SignIns1766800000000 implements MigrationInterface {
  name = 'SignIns1766800000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE identity.sign_ins (
        id bigserial PRIMARY KEY,
        account_id integer NOT NULL,
        user_id integer NOT NULL,
        token_id integer NOT NULL,
        signed_in_at timestamptz NOT NULL DEFAULT now(),
        last_seen_at timestamptz NOT NULL DEFAULT now()
      )`);
    // The report per user and period; the recorder's look-up of a token's current sign-in.
    await q.query('CREATE INDEX sign_ins_user ON identity.sign_ins (account_id, user_id, signed_in_at)');
    await q.query('CREATE INDEX sign_ins_token ON identity.sign_ins (account_id, token_id, last_seen_at DESC)');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE identity.sign_ins');
  }
}
