import type { MigrationInterface, QueryRunner } from 'typeorm';
import { departedUsersDown, departedUsersUp } from '@lms/platform';

/** Users identity deleted, as locking heard it: a lock taken after the news is refused to them. */
export class DepartedUsers1768500000000 implements MigrationInterface {
  name = 'DepartedUsers1768500000000';

  async up(q: QueryRunner): Promise<void> {
    await departedUsersUp(q, 'locking');
  }

  async down(q: QueryRunner): Promise<void> {
    await departedUsersDown(q, 'locking');
  }
}
