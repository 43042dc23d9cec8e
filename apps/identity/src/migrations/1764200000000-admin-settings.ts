import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Import profile (one per account) and each account's channel settings of the notification catalogue. */
export class AdminSettings1764200000000 implements MigrationInterface {
  name = 'AdminSettings1764200000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE identity.import_profiles (
        id serial PRIMARY KEY,
        account_id integer NOT NULL REFERENCES identity.accounts(id),
        csv_url text,
        csv_user text,
        csv_password_encrypted text,
        has_headers boolean NOT NULL DEFAULT true,
        csv_days boolean[] NOT NULL DEFAULT '{f,f,f,f,f,f,f}' CHECK (cardinality(csv_days) = 7),
        csv_time text CHECK (csv_time ~ '^([01][0-9]|2[0-3]):[0-5][0-9]$'),
        columns jsonb NOT NULL DEFAULT '[]',
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    // One profile per account; the index also lets a lazy create race end in ON CONFLICT DO NOTHING.
    await q.query('CREATE UNIQUE INDEX import_profiles_account ON identity.import_profiles (account_id)');
    await q.query(`
      CREATE TABLE identity.notification_type_settings (
        account_id integer NOT NULL REFERENCES identity.accounts(id),
        notification_type text NOT NULL,
        channels jsonb NOT NULL,
        updated_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (account_id, notification_type)
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE identity.notification_type_settings');
    await q.query('DROP TABLE identity.import_profiles');
  }
}
