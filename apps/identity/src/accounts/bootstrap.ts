import type { Database, Logger, PlatformConfig } from '@lms/platform';
import { ApiToken } from '../auth/api-token.entity.js';
import { hashToken } from '../auth/token.js';
import { User } from '../users/user.entity.js';
import { Account } from './account.entity.js';

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
    const account = await manager.save(manager.create(Account, { subdomain: config.bootstrapAccount, name: config.bootstrapAccount }));
    const admin = await manager.save(
      manager.create(User, { accountId: account.id, uid: 'admin', firstName: 'Admin', lastName: null, email: null, roles: ['admin'] }),
    );
    await manager.save(manager.create(ApiToken, { accountId: account.id, userId: admin.id, name: 'bootstrap', tokenHash: hashToken(token) }));
    logger.info({ accountId: account.id, subdomain: account.subdomain }, 'bootstrap: created the first account and its administrator');
  });
}
