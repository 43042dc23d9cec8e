import type { MigrationInterface, QueryRunner } from 'typeorm';
import { cloneStepTablesDown, cloneStepTablesUp } from '@lms/platform';

/**
 * Sub-account clones (docs/jobs.md): the step records and copy mappings, and an owner on live courses (NULL,
 * as for every live course made so far, is the root sub-account's), which a clone's copies name.
 */
export class SubAccountClones1766800000000 implements MigrationInterface {
  name = 'SubAccountClones1766800000000';

  async up(q: QueryRunner): Promise<void> {
    await cloneStepTablesUp(q, 'scheduling');
    await q.query('ALTER TABLE scheduling.live_courses ADD COLUMN sub_account_id integer');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE scheduling.live_courses DROP COLUMN sub_account_id');
    await cloneStepTablesDown(q, 'scheduling');
  }
}
