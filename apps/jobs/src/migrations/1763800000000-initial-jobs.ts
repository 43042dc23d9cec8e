import type { MigrationInterface, QueryRunner } from 'typeorm';
import { eventTablesDown, eventTablesUp } from '@lms/platform';

/** The schema starts with its outbox and inbox; features add their tables in later migrations. */
export class InitialJobs1763800000000 implements MigrationInterface {
  name = 'InitialJobs1763800000000';

  async up(q: QueryRunner): Promise<void> {
    await eventTablesUp(q, 'jobs');
  }

  async down(q: QueryRunner): Promise<void> {
    await eventTablesDown(q, 'jobs');
  }
}
