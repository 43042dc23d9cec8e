import { tokenHash } from '@lms/contracts';
import { type Database, unlessTaken } from '@lms/platform';
import { ApiToken } from '../auth/api-token.entity.js';
import { generateToken } from '../auth/token.js';
import { User } from '../users/user.entity.js';
import { Account } from './account.entity.js';
import { invalidAccountName, invalidSubdomain, SUBDOMAIN_PATTERN, subdomainTaken } from './account.errors.js';
import { SubAccount } from './sub-account.entity.js';

export interface CreateAccountInput {
  subdomain: string;
  name: string;
  /** The administrator's first token; a fresh random one when omitted (the bootstrap passes its configured one). */
  adminToken?: string;
  tokenName?: string;
}

export interface CreatedAccount {
  account: Account;
  rootSubAccount: SubAccount;
  admin: User;
  /** The administrator's bearer secret; only its hash is stored. */
  token: string;
}

/**
 * The one way an account comes to be (bootstrap and `cli accounts:create`): the account, its root
 * sub-account named after it, its administrator (uid `admin`) and that administrator's token, all in one
 * transaction (joined when the caller already has one).
 */
export async function createAccount(db: Database, input: CreateAccountInput): Promise<CreatedAccount> {
  const subdomain = input.subdomain;
  const name = input.name.trim();
  if (!SUBDOMAIN_PATTERN.test(subdomain)) throw invalidSubdomain(subdomain);
  if (name.length === 0 || name.length > 255) throw invalidAccountName();
  const token = input.adminToken ?? generateToken();
  // Two creations of one subdomain at once: the unique index decides, the loser hears why.
  return unlessTaken(
    () =>
      db.transaction(async (manager) => {
        if (await manager.existsBy(Account, { subdomain })) throw subdomainTaken(subdomain);
        const account = await manager.save(manager.create(Account, { subdomain, name }));
        const rootSubAccount = await manager.save(manager.create(SubAccount, { accountId: account.id, name, isRoot: true }));
        const admin = await manager.save(
          manager.create(User, { accountId: account.id, uid: 'admin', firstName: 'Admin', lastName: null, email: null, roles: ['admin'] }),
        );
        await manager.save(manager.create(ApiToken, { accountId: account.id, userId: admin.id, name: input.tokenName ?? 'first administrator', tokenHash: tokenHash(token) }));
        return { account, rootSubAccount, admin, token };
      }),
    () => subdomainTaken(subdomain),
  );
}
