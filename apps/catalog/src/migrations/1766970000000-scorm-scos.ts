import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * SCORM packages with several SCOs (issue 23; docs/scorm.md): a package lists its SCOs in organization
 * order, each attempt keeps one row of CMI data per SCO it played, and an attempt may be superseded by a
 * newer one (`registration_instancing_option: every_launch`) without being completed. The CMI data of
 * attempts made before this change is the launch SCO's.
 */
export class ScormScos1766970000000 implements MigrationInterface {
  name = 'ScormScos1766970000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE catalog.scorm_packages ADD COLUMN scos jsonb NOT NULL DEFAULT '[]'::jsonb`);
    await q.query(`UPDATE catalog.scorm_packages SET scos = jsonb_build_array(jsonb_build_object('identifier', launch_sco, 'title', title, 'href', launch_href))`);
    await q.query(`
      CREATE TABLE catalog.scorm_sco_states (
        account_id integer NOT NULL,
        registration_id integer NOT NULL REFERENCES catalog.scorm_registrations (id) ON DELETE CASCADE,
        sco text NOT NULL,
        cmi jsonb NULL,
        completion_status text NULL,
        success_status text NULL,
        score numeric NULL,
        progress numeric NULL,
        commits integer NOT NULL DEFAULT 0,
        completed_at timestamptz NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (registration_id, sco)
      )`);
    await q.query('CREATE INDEX scorm_sco_states_account ON catalog.scorm_sco_states (account_id, registration_id)');
    await q.query(`
      INSERT INTO catalog.scorm_sco_states (account_id, registration_id, sco, cmi, completion_status, success_status, score, progress, commits, completed_at, created_at, updated_at)
      SELECT r.account_id, r.id, p.launch_sco, r.cmi, r.completion_status, r.success_status, r.score, r.progress, r.commits, r.completed_at, r.created_at, r.updated_at
        FROM catalog.scorm_registrations r JOIN catalog.scorm_packages p ON p.id = r.package_id
       WHERE r.commits > 0`);
    await q.query('ALTER TABLE catalog.scorm_registrations ADD COLUMN superseded_at timestamptz NULL');
    await q.query('DROP INDEX catalog.scorm_registrations_open');
    // One open attempt per enrollment: neither completed nor superseded.
    await q.query('CREATE UNIQUE INDEX scorm_registrations_open ON catalog.scorm_registrations (account_id, enrollment_id) WHERE completed_at IS NULL AND superseded_at IS NULL');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP INDEX catalog.scorm_registrations_open');
    await q.query('ALTER TABLE catalog.scorm_registrations DROP COLUMN superseded_at');
    await q.query('CREATE UNIQUE INDEX scorm_registrations_open ON catalog.scorm_registrations (account_id, enrollment_id) WHERE completed_at IS NULL');
    await q.query('DROP TABLE catalog.scorm_sco_states');
    await q.query('ALTER TABLE catalog.scorm_packages DROP COLUMN scos');
  }
}
