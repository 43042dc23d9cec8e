import type { MigrationInterface, QueryRunner } from 'typeorm';
import { eventTablesDown, eventTablesUp } from '@lms/platform';

/** The schema starts with its outbox and inbox; features add their tables in later migrations. */
export class InitialLocking1763800000000 implements MigrationInterface {
  name = 'InitialLocking1763800000000';

  async up(q: QueryRunner): Promise<void> {
    await eventTablesUp(q, 'locking');
  }

  async down(q: QueryRunner): Promise<void> {
    await eventTablesDown(q, 'locking');
  }
}
