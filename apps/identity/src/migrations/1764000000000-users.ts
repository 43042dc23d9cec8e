import type { MigrationInterface, QueryRunner } from 'typeorm';

/** User attributes of the spec's UserRequest, custom field values, deletion and hiding, and the completion projection. */
export class Users1764000000000 implements MigrationInterface {
  name = 'Users1764000000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE identity.users
        ADD COLUMN full_name text,
        ADD COLUMN sortable_name text,
        ADD COLUMN locale text,
        ADD COLUMN hire_date date,
        ADD COLUMN job_title text,
        ADD COLUMN department text,
        ADD COLUMN hris_id text,
        ADD COLUMN manager_id integer REFERENCES identity.users(id),
        ADD COLUMN avatar_url text,
        ADD COLUMN deletion_requested_at timestamptz,
        ADD COLUMN hidden_at timestamptz`);
    // Unique per account like uid; the index settles concurrent creates.
    await q.query('CREATE UNIQUE INDEX users_account_hris_id ON identity.users (account_id, hris_id) WHERE hris_id IS NOT NULL');
    await q.query('CREATE INDEX users_account_manager ON identity.users (account_id, manager_id) WHERE manager_id IS NOT NULL');
    await q.query(`
      CREATE TABLE identity.user_custom_field_values (
        account_id integer NOT NULL REFERENCES identity.accounts(id),
        user_id integer NOT NULL REFERENCES identity.users(id),
        custom_field_id integer NOT NULL REFERENCES identity.custom_fields(id) ON DELETE CASCADE,
        value text NOT NULL,
        updated_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (account_id, user_id, custom_field_id)
      )`);
    // Deleting a custom field cascades here; this index keeps that cascade from scanning the table.
    await q.query('CREATE INDEX user_custom_field_values_field ON identity.user_custom_field_values (account_id, custom_field_id)');
    // A projection of other services' events: no foreign key to users, whose rows may be written in another order.
    await q.query(`
      CREATE TABLE identity.user_completions (
        account_id integer NOT NULL REFERENCES identity.accounts(id),
        kind text NOT NULL CHECK (kind IN ('course', 'program', 'live_course')),
        enrollment_id integer NOT NULL,
        user_id integer NOT NULL,
        source_id integer NOT NULL,
        completed_at timestamptz NOT NULL,
        due_at timestamptz,
        event_id uuid NOT NULL,
        PRIMARY KEY (account_id, kind, enrollment_id)
      )`);
    await q.query('CREATE INDEX user_completions_account_user ON identity.user_completions (account_id, user_id, completed_at)');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE identity.user_completions');
    await q.query('DROP TABLE identity.user_custom_field_values');
    await q.query('DROP INDEX identity.users_account_manager');
    await q.query('DROP INDEX identity.users_account_hris_id');
    await q.query(`
      ALTER TABLE identity.users
        DROP COLUMN full_name, DROP COLUMN sortable_name, DROP COLUMN locale, DROP COLUMN hire_date, DROP COLUMN job_title,
        DROP COLUMN department, DROP COLUMN hris_id, DROP COLUMN manager_id, DROP COLUMN avatar_url,
        DROP COLUMN deletion_requested_at, DROP COLUMN hidden_at`);
  }
}
