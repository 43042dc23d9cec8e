import type { AuthInvalidation, Principal } from '@lms/contracts';

interface Entry {
  principal: Principal;
  expiresAt: number;
}

/**
 * Token hash -> principal for a short while, so most requests need no round trip to identity.
 * Any invalidation bumps `generation`: a lookup that started before it must not cache what it found,
 * or a revoked token could come back from a reply that was already on its way.
 */
export class PrincipalCache {
  private readonly entries = new Map<string, Entry>();
  private generationCount = 0;

  constructor(
    private readonly ttlMs: number,
    private readonly maxEntries = 10_000,
    private readonly now: () => number = Date.now,
  ) {}

  get generation(): number {
    return this.generationCount;
  }

  get size(): number {
    return this.entries.size;
  }

  get(hash: string): Principal | undefined {
    const entry = this.entries.get(hash);
    if (!entry) return undefined;
    if (entry.expiresAt <= this.now()) {
      this.entries.delete(hash);
      return undefined;
    }
    return entry.principal;
  }

  /** Caches unless disabled (TTL 0) or an invalidation arrived since `generation` was read. */
  set(hash: string, principal: Principal, generation: number): void {
    if (this.ttlMs <= 0 || generation !== this.generationCount) return;
    this.entries.delete(hash);
    if (this.entries.size >= this.maxEntries) {
      // Maps iterate in insertion order: the first key is the oldest entry.
      const oldest = this.entries.keys().next();
      if (!oldest.done) this.entries.delete(oldest.value);
    }
    // An expiring token leaves the cache when it expires, not a TTL later.
    const tokenExpiry = principal.tokenExpiresAt ? Date.parse(principal.tokenExpiresAt) : Infinity;
    this.entries.set(hash, { principal, expiresAt: Math.min(this.now() + this.ttlMs, tokenExpiry) });
  }

  /**
   * Drops the entries of the listed token hashes, and those of the principal the notice names:
   * `userId` and `accountId` together name one user of one account, `accountId` alone a whole account.
   */
  invalidate(notice: AuthInvalidation): number {
    this.generationCount++;
    if (notice.all) {
      const count = this.entries.size;
      this.entries.clear();
      return count;
    }
    const hashes = new Set(notice.tokenHashes ?? []);
    const { userId, accountId } = notice;
    const names = (p: Principal) =>
      (userId !== undefined || accountId !== undefined) &&
      (userId === undefined || p.userId === userId) &&
      (accountId === undefined || p.accountId === accountId);
    let dropped = 0;
    for (const [hash, { principal }] of this.entries) {
      if (hashes.has(hash) || names(principal)) {
        this.entries.delete(hash);
        dropped++;
      }
    }
    return dropped;
  }
}
