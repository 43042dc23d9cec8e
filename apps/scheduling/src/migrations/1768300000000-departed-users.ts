import type { MigrationInterface, QueryRunner } from 'typeorm';
import { departedUsersDown, departedUsersUp } from '@lms/platform';

/** Users identity deleted, as scheduling heard it: a live-course enrollment inserted after the news leaves them out. */
export class DepartedUsers1768300000000 implements MigrationInterface {
  name = 'DepartedUsers1768300000000';

  async up(q: QueryRunner): Promise<void> {
    await departedUsersUp(q, 'scheduling');
  }

  async down(q: QueryRunner): Promise<void> {
    await departedUsersDown(q, 'scheduling');
  }
}
