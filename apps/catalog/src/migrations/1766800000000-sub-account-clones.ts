import type { MigrationInterface, QueryRunner } from 'typeorm';
import { cloneStepTablesDown, cloneStepTablesUp } from '@lms/platform';

/**
 * Sub-account clones (docs/jobs.md): the step records and copy mappings, and an owner on programs (NULL, as
 * for every program made so far, is the root sub-account's), which a clone's copies name.
 */
export class SubAccountClones1766800000000 implements MigrationInterface {
  name = 'SubAccountClones1766800000000';

  async up(q: QueryRunner): Promise<void> {
    await cloneStepTablesUp(q, 'catalog');
    await q.query('ALTER TABLE catalog.programs ADD COLUMN sub_account_id integer');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE catalog.programs DROP COLUMN sub_account_id');
    await cloneStepTablesDown(q, 'catalog');
  }
}
