import { sweepsTableDown, sweepsTableUp } from '@lms/platform';
import type { MigrationInterface, QueryRunner } from 'typeorm';

/** When each sweep shared by the jobs-worker replicas last ran (docs/jobs.md "Retention": the file sweep). */
export class Sweeps1767500000000 implements MigrationInterface {
  name = 'Sweeps1767500000000';

  up(q: QueryRunner): Promise<void> {
    return sweepsTableUp(q, 'jobs');
  }

  down(q: QueryRunner): Promise<void> {
    return sweepsTableDown(q, 'jobs');
  }
}
