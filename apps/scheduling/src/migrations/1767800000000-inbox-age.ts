import type { MigrationInterface, QueryRunner } from 'typeorm';
import { inboxAgeIndexDown, inboxAgeIndexUp } from '@lms/platform';

/** The inbox's age index, for the relay's purge of records past the retention (docs/decisions.md). */
export class InboxAge1767800000000 implements MigrationInterface {
  name = 'InboxAge1767800000000';

  async up(q: QueryRunner): Promise<void> {
    await inboxAgeIndexUp(q, 'scheduling');
  }

  async down(q: QueryRunner): Promise<void> {
    await inboxAgeIndexDown(q, 'scheduling');
  }
}
