import type { Database, Logger, PlatformConfig } from '@lms/platform';
import { Account } from './account.entity.js';
import { createAccount } from './create-account.js';

/**
 * First start with BOOTSTRAP_ADMIN_TOKEN: create the first account and its administrator (uid `admin`),
 * who authenticates with that token. Does nothing once any account exists, so every later start is a no-op.
 */
export async function bootstrapFirstAccount(db: Database, config: PlatformConfig, logger: Logger): Promise<void> {
  const token = config.bootstrapAdminToken;
  if (!token) return;
  await db.transaction(async (manager) => {
    // Replicas starting together: one creates, the others then see the account.
    await manager.query('SELECT pg_advisory_xact_lock(hashtext($1))', ['identity:bootstrap']);
    if ((await manager.count(Account)) > 0) return;
    const { account } = await createAccount(db, { subdomain: config.bootstrapAccount, name: config.bootstrapAccount, adminToken: token, tokenName: 'bootstrap' });
    logger.info({ accountId: account.id, subdomain: account.subdomain }, 'bootstrap: created the first account and its administrator');
  });
}
