import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * LTI 1.1 content items (issue 15): a tool link of a course, launched with its consumer key and secret.
 * The secret is kept to sign launches and never answered.
 */
export class LtiContentItems1766100002000 implements MigrationInterface {
  name = 'LtiContentItems1766100002000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE catalog.lti_content_items (
        id serial PRIMARY KEY,
        account_id integer NOT NULL,
        course_template_id integer NOT NULL,
        title text NOT NULL,
        description text NOT NULL DEFAULT '',
        launch_url text NOT NULL,
        consumer_key text NOT NULL,
        consumer_secret text NOT NULL,
        custom_field text NOT NULL DEFAULT '',
        created_by integer NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query('CREATE INDEX lti_content_items_course ON catalog.lti_content_items (account_id, course_template_id)');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE catalog.lti_content_items');
  }
}
