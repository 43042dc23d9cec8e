import type { MigrationInterface, QueryRunner } from 'typeorm';
import { departedUsersDown, departedUsersUp } from '@lms/platform';

/** Users identity deleted, as catalog heard it: an enrollment inserted after the news leaves them out. */
export class DepartedUsers1767700000000 implements MigrationInterface {
  name = 'DepartedUsers1767700000000';

  async up(q: QueryRunner): Promise<void> {
    await departedUsersUp(q, 'catalog');
  }

  async down(q: QueryRunner): Promise<void> {
    await departedUsersDown(q, 'catalog');
  }
}
