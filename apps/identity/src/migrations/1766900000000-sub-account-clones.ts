import type { MigrationInterface, QueryRunner } from 'typeorm';
import { cloneStepTablesDown, cloneStepTablesUp } from '@lms/platform';

/**
 * Sub-account clones (docs/jobs.md): a sub-account may have a subdomain (unique with the accounts'), and one
 * made by a clone carries the clone's id and stays hidden (`cloning`) until the clone is complete.
 */
export class SubAccountClones1766900000000 implements MigrationInterface {
  name = 'SubAccountClones1766900000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE identity.sub_accounts ADD COLUMN subdomain text, ADD COLUMN clone_id uuid, ADD COLUMN cloning boolean NOT NULL DEFAULT false');
    await q.query('CREATE UNIQUE INDEX sub_accounts_subdomain ON identity.sub_accounts (subdomain) WHERE subdomain IS NOT NULL');
    await q.query('CREATE UNIQUE INDEX sub_accounts_clone ON identity.sub_accounts (clone_id) WHERE clone_id IS NOT NULL');
    await cloneStepTablesUp(q, 'identity');
  }

  async down(q: QueryRunner): Promise<void> {
    await cloneStepTablesDown(q, 'identity');
    await q.query('ALTER TABLE identity.sub_accounts DROP COLUMN subdomain, DROP COLUMN clone_id, DROP COLUMN cloning');
  }
}
