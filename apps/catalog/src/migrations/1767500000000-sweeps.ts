import { sweepsTableDown, sweepsTableUp } from '@lms/platform';
import type { MigrationInterface, QueryRunner } from 'typeorm';

/** When each sweep shared by the catalog replicas last ran (the file sweep: docs/scorm.md "Packages"). */
export class Sweeps1767500000000 implements MigrationInterface {
  name = 'Sweeps1767500000000';

  up(q: QueryRunner): Promise<void> {
    return sweepsTableUp(q, 'catalog');
  }

  down(q: QueryRunner): Promise<void> {
    return sweepsTableDown(q, 'catalog');
  }
}
