import type { MigrationInterface, QueryRunner } from 'typeorm';
import { secretWithheld } from '@lms/platform';

/**
 * An Idempotency-Key's record of an issued API token kept the answer whole, token included, where the tokens'
 * own table keeps only its hash. The records kept so far get the refusal that new ones keep in its place.
 */
export class IdempotencyTokenReplies1768200000000 implements MigrationInterface {
  name = 'IdempotencyTokenReplies1768200000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`UPDATE identity.idempotency_keys SET reply = $1 WHERE reply LIKE '%"token":"lms\\_%'`, [JSON.stringify(secretWithheld(201))]);
  }

  async down(): Promise<void> {
    // The secrets are gone; nothing to bring back.
  }
}
