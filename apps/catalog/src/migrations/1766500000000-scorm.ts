import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * SCORM packages (issue 23; docs/scorm.md): a course's packages, each package's files (their place in the
 * file store by path), and registrations, the attempts of one enrollment with the CMI data their
 * runtime committed. A course plays its current package; a registration keeps the one it started with.
 */
export class Scorm1766500000000 implements MigrationInterface {
  name = 'Scorm1766500000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE catalog.scorm_packages (
        id uuid PRIMARY KEY,
        account_id integer NOT NULL,
        course_template_id integer NOT NULL,
        version text NOT NULL CHECK (version IN ('scorm_1_2', 'scorm_2004_3rd', 'scorm_2004_4th')),
        title text NOT NULL,
        launch_href text NOT NULL,
        launch_sco text NOT NULL,
        files_count integer NOT NULL,
        size bigint NOT NULL,
        created_by integer NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query('CREATE INDEX scorm_packages_course ON catalog.scorm_packages (account_id, course_template_id)');
    await q.query(`
      CREATE TABLE catalog.scorm_package_files (
        package_id uuid NOT NULL REFERENCES catalog.scorm_packages (id) ON DELETE CASCADE,
        path text NOT NULL,
        file_key text NOT NULL,
        size bigint NOT NULL,
        PRIMARY KEY (package_id, path)
      )`);
    await q.query('ALTER TABLE catalog.course_templates ADD COLUMN scorm_package_id uuid NULL');
    await q.query(`
      CREATE TABLE catalog.scorm_registrations (
        id serial PRIMARY KEY,
        account_id integer NOT NULL,
        enrollment_id integer NOT NULL,
        user_id integer NOT NULL,
        course_template_id integer NOT NULL,
        package_id uuid NOT NULL REFERENCES catalog.scorm_packages (id),
        cmi jsonb NULL,
        completion_status text NULL,
        success_status text NULL,
        score numeric NULL,
        progress numeric NULL,
        commits integer NOT NULL DEFAULT 0,
        completed_at timestamptz NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    // One open attempt per enrollment: a second launch resumes it.
    await q.query('CREATE UNIQUE INDEX scorm_registrations_open ON catalog.scorm_registrations (account_id, enrollment_id) WHERE completed_at IS NULL');
    await q.query('CREATE INDEX scorm_registrations_course ON catalog.scorm_registrations (account_id, course_template_id)');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE catalog.scorm_registrations');
    await q.query('ALTER TABLE catalog.course_templates DROP COLUMN scorm_package_id');
    await q.query('DROP TABLE catalog.scorm_package_files');
    await q.query('DROP TABLE catalog.scorm_packages');
  }
}
