import type { MigrationInterface, QueryRunner } from 'typeorm';
import { idempotencyTableDown, idempotencyTableUp } from '@lms/platform';

/** Idempotency-Key records of this service's writes (docs/idempotency.md). */
export class IdempotencyKeys1764350000000 implements MigrationInterface {
  name = 'IdempotencyKeys1764350000000';

  async up(q: QueryRunner): Promise<void> {
    await idempotencyTableUp(q, 'catalog');
  }

  async down(q: QueryRunner): Promise<void> {
    await idempotencyTableDown(q, 'catalog');
  }
}
