import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Open enrollment of tasks (issue 15): a task may let learners enroll themselves, by its id or its uuid. */
export class OpenTasks1766100003000 implements MigrationInterface {
  name = 'OpenTasks1766100003000';

  async up(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE catalog.tasks ADD COLUMN open_enrollment boolean NOT NULL DEFAULT false, ADD COLUMN uuid uuid NOT NULL DEFAULT gen_random_uuid()');
    await q.query('CREATE UNIQUE INDEX tasks_uuid ON catalog.tasks (account_id, uuid)');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP INDEX catalog.tasks_uuid');
    await q.query('ALTER TABLE catalog.tasks DROP COLUMN uuid, DROP COLUMN open_enrollment');
  }
}
