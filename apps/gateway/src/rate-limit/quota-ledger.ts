/** A quota of `quota` requests per fixed window of `windowMs`, named in the `RateLimit` headers. */
export interface QuotaPolicy {
  name: string;
  quota: number;
  windowMs: number;
}

/**
 * What one replica admitted since its last report, per key, for one window. Replicas exchange these over
 * the bus; `counts` is empty in a heartbeat, which still tells the others this replica is alive.
 */
export interface UsageReport {
  replica: string;
  /** `policy name` -> window number (time / windowMs) the counts belong to. */
  windows: Record<string, number>;
  /** `policy name` -> key -> requests admitted. */
  counts: Record<string, Record<string, number>>;
}

export type Decision =
  | { kind: 'allow'; remaining: number; resetMs: number }
  /** The quota is spent for this window. */
  | { kind: 'deny'; resetMs: number }
  /** Quota is left, but this replica has admitted its share of it since the last exchange: ask again after the next one. */
  | { kind: 'wait'; remaining: number; resetMs: number };

interface Entry {
  window: number;
  /** Admitted by every replica and already reported (this one's reports included). */
  known: number;
  /** Admitted here since the last report. */
  pending: number;
  /** What the last report carried: peers may not have counted it yet, nor told us what they admitted meanwhile. */
  reported: number;
  /** Admitted here and not yet known to count (their answers will tell): never reported, but they use the quota. */
  held: number;
}

/** A replica not heard from for this long no longer takes a share of the remaining quota. */
export const PEER_TTL_MS = 1_000;

/**
 * Fixed-window request counters that several gateway replicas keep together without a database: each
 * replica counts locally and reports what it admitted every exchange interval; every replica adds the
 * others' reports. Between two exchanges a replica admits at most its fair share of what is left
 * (remaining / live replicas), so the replicas together cannot overshoot the quota by more than
 * replicas - 1 requests (shares round up), whatever the interval; see docs/rate-limits.md for the bound and its assumptions.
 */
export class QuotaLedger {
  private readonly entries = new Map<string, Map<string, Entry>>();
  private readonly peers = new Map<string, number>();
  private lastReportAt = Number.NEGATIVE_INFINITY;

  constructor(
    readonly replica: string,
    private readonly policies: QuotaPolicy[],
    private readonly now: () => number = Date.now,
  ) {}

  /** This replica and the peers heard from within PEER_TTL_MS. */
  get replicas(): number {
    const horizon = this.now() - PEER_TTL_MS;
    let live = 1;
    for (const [peer, seen] of this.peers) {
      if (seen >= horizon) live++;
      else this.peers.delete(peer);
    }
    return live;
  }

  /**
   * Whether every live peer has reported since this replica's last report. Until then a peer may be
   * admitting its own share on counts that do not include ours, so our last report still counts against
   * our share: without this, a replica that reports first starts a fresh share while the others' shares
   * of the same remainder are unreported, and three replicas overshot a quota of 100 by 13.
   */
  private heardFromPeersSinceReport(): boolean {
    const horizon = this.now() - PEER_TTL_MS;
    for (const seen of this.peers.values()) if (seen >= horizon && seen < this.lastReportAt) return false;
    return true;
  }

  private policy(name: string): QuotaPolicy {
    const policy = this.policies.find((p) => p.name === name);
    if (!policy) throw new Error(`unknown rate-limit policy ${name}`);
    return policy;
  }

  private entry(policy: QuotaPolicy, key: string, window: number): Entry {
    let keys = this.entries.get(policy.name);
    if (!keys) this.entries.set(policy.name, (keys = new Map()));
    let entry = keys.get(key);
    if (!entry || entry.window !== window) {
      // A key from an older window is spent: its counts never matter again.
      entry = { window, known: 0, pending: 0, reported: 0, held: 0 };
      keys.set(key, entry);
    }
    return entry;
  }

  private clock(policy: QuotaPolicy): { window: number; resetMs: number } {
    const now = this.now();
    const window = Math.floor(now / policy.windowMs);
    return { window, resetMs: (window + 1) * policy.windowMs - now };
  }

  /** Counts one request against `key` if the quota allows it. */
  take(policyName: string, key: string): Decision {
    const policy = this.policy(policyName);
    const { window, resetMs } = this.clock(policy);
    const entry = this.entry(policy, key, window);
    const used = entry.known + entry.pending + entry.held;
    if (used >= policy.quota) return { kind: 'deny', resetMs };
    const share = Math.ceil((policy.quota - entry.known) / this.replicas);
    const unconfirmed = this.heardFromPeersSinceReport() ? 0 : entry.reported;
    if (entry.pending + unconfirmed >= share) return { kind: 'wait', remaining: policy.quota - used, resetMs };
    entry.pending++;
    return { kind: 'allow', remaining: policy.quota - used - 1, resetMs };
  }

  /** What `take` would answer, without counting anything. */
  peek(policyName: string, key: string): Decision {
    const policy = this.policy(policyName);
    const { window, resetMs } = this.clock(policy);
    const entry = this.entries.get(policy.name)?.get(key);
    const used = entry && entry.window === window ? entry.known + entry.pending + entry.held : 0;
    return used >= policy.quota ? { kind: 'deny', resetMs } : { kind: 'allow', remaining: policy.quota - used, resetMs };
  }

  /**
   * Admits a request whose cost is known only once it is answered, if the quota allows it: it uses the quota
   * until `release` is called, once, with whether it counts; one that does not leaves nothing behind.
   */
  hold(policyName: string, key: string): { decision: Decision; release: (counts: boolean) => void } {
    const decision = this.peek(policyName, key);
    if (decision.kind !== 'allow') return { decision, release: () => undefined };
    const policy = this.policy(policyName);
    const window = this.clock(policy).window;
    this.entry(policy, key, window).held++;
    const release = (counts: boolean) => {
      const keys = this.entries.get(policy.name);
      const entry = keys?.get(key);
      // A hold of a past window went with its entry.
      if (entry?.window === window) entry.held--;
      if (counts) this.charge(policyName, key);
      else if (entry && entry.known + entry.pending + entry.reported + entry.held === 0) keys?.delete(key);
    };
    return { decision: { ...decision, remaining: decision.remaining - 1 }, release };
  }

  /** Counts a request that was already answered (e.g. a failed authentication), whether or not quota was left. */
  charge(policyName: string, key: string): void {
    const policy = this.policy(policyName);
    this.entry(policy, key, this.clock(policy).window).pending++;
  }

  /** This replica's counts since the last report; they become known. Also drops the keys of past windows. */
  report(): UsageReport {
    const out: UsageReport = { replica: this.replica, windows: {}, counts: {} };
    this.lastReportAt = this.now();
    for (const policy of this.policies) {
      const { window } = this.clock(policy);
      out.windows[policy.name] = window;
      const keys = this.entries.get(policy.name);
      if (!keys) continue;
      const counts: Record<string, number> = {};
      for (const [key, entry] of keys) {
        if (entry.window !== window) {
          keys.delete(key);
          continue;
        }
        entry.reported = entry.pending;
        if (entry.pending === 0) continue;
        counts[key] = entry.pending;
        entry.known += entry.pending;
        entry.pending = 0;
      }
      if (Object.keys(counts).length > 0) out.counts[policy.name] = counts;
    }
    return out;
  }

  /** Adds a peer's report; counts for a window other than the current one are dropped. */
  merge(report: UsageReport): void {
    if (report.replica === this.replica) return;
    this.peers.set(report.replica, this.now());
    for (const [name, counts] of Object.entries(report.counts)) {
      const policy = this.policies.find((p) => p.name === name);
      if (!policy) continue;
      const { window } = this.clock(policy);
      if (report.windows[name] !== window) continue;
      for (const [key, count] of Object.entries(counts)) this.entry(policy, key, window).known += count;
    }
  }
}

/** A report as read off the bus: anything else is ignored, never trusted. */
export function parseUsageReport(payload: unknown): UsageReport | undefined {
  if (typeof payload !== 'object' || payload === null) return undefined;
  const r = payload as Partial<UsageReport>;
  if (typeof r.replica !== 'string' || typeof r.windows !== 'object' || r.windows === null || typeof r.counts !== 'object' || r.counts === null) return undefined;
  for (const window of Object.values(r.windows)) if (!Number.isInteger(window)) return undefined;
  for (const counts of Object.values(r.counts)) {
    if (typeof counts !== 'object' || counts === null) return undefined;
    for (const count of Object.values(counts)) if (!Number.isInteger(count) || (count as number) < 0) return undefined;
  }
  return r as UsageReport;
}
