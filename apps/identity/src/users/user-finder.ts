import { Injectable } from '@nestjs/common';
import { IsNull } from 'typeorm';
import { MAX_ID, UID_PREFIX } from '@lms/contracts';
import { InjectTenantRepository, type TenantFindOneOptions, type TenantRepository, type TenantScope } from '@lms/platform';
import { User } from './user.entity.js';
import { userNotFound } from './user.errors.js';

export type UserRef = number | string;

/** `{ id }` or `{ uid }` for an id, numeric text or `uid:<uid>`; null when it can name nobody (beyond integer range). */
export function refWhere(ref: UserRef): { id: number } | { uid: string } | null {
  if (typeof ref === 'string' && ref.startsWith(UID_PREFIX)) return { uid: ref.slice(UID_PREFIX.length) };
  const id = Number(ref);
  return Number.isSafeInteger(id) && id > 0 && id <= MAX_ID ? { id } : null;
}

/** Looks users up by reference. Hidden users are found by nobody: for every endpoint they do not exist. */
@Injectable()
export class UserFinder {
  constructor(@InjectTenantRepository(User) private readonly users: TenantRepository<User>) {}

  /**
   * A user of the account; deleted ones only with `withDeleted`; with `active`, none whose deletion is under
   * way; with `lock`, held until the transaction ends (a concurrent change waits, then sees this one's).
   */
  async find(scope: TenantScope, ref: UserRef, options: TenantFindOneOptions & { active?: boolean } = {}): Promise<User | null> {
    const where = refWhere(ref);
    if (!where) return null;
    const pending = options.active ? { deletionRequestedAt: IsNull() } : {};
    return this.users.findOne(scope, { ...where, ...pending, hiddenAt: IsNull() }, { withDeleted: options.withDeleted ?? false, lock: options.lock });
  }

  async get(scope: TenantScope, ref: UserRef, options: TenantFindOneOptions = {}): Promise<User> {
    return (await this.find(scope, ref, options)) ?? Promise.reject(userNotFound(ref));
  }
}
