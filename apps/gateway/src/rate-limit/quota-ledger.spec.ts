import { parseUsageReport, PEER_TTL_MS, QuotaLedger, type QuotaPolicy } from './quota-ledger.js';

const POLICY: QuotaPolicy = { name: 'token', quota: 10, windowMs: 60_000 };

describe('QuotaLedger', () => {
  let now: number;
  const clock = () => now;
  beforeEach(() => {
    now = 6_000_000; // the start of a window
  });

  it('admits the quota, then refuses until the window resets', () => {
    const ledger = new QuotaLedger('a', [POLICY], clock);
    const decisions = Array.from({ length: 12 }, () => ledger.take('token', 'k'));
    expect(decisions.filter((d) => d.kind === 'allow')).toHaveLength(10);
    expect(decisions[0]).toEqual({ kind: 'allow', remaining: 9, resetMs: 60_000 });
    expect(decisions[10]).toEqual({ kind: 'deny', resetMs: 60_000 });
    expect(ledger.take('token', 'other').kind).toBe('allow');
    now += 60_000;
    expect(ledger.take('token', 'k')).toEqual({ kind: 'allow', remaining: 9, resetMs: 60_000 });
  });

  it('counts what peers report for the same window, and ignores other windows and its own reports', () => {
    const a = new QuotaLedger('a', [POLICY], clock);
    const b = new QuotaLedger('b', [POLICY], clock);
    for (let i = 0; i < 4; i++) b.take('token', 'k');
    const report = b.report();
    a.merge(report);
    a.merge({ replica: 'c', windows: { token: 99 }, counts: { token: { k: 5 } } });
    b.merge(report);
    expect(a.peek('token', 'k')).toEqual({ kind: 'allow', remaining: 6, resetMs: 60_000 });
    expect(b.peek('token', 'k')).toEqual({ kind: 'allow', remaining: 6, resetMs: 60_000 });
  });

  it('starts no fresh share after its own report until every live peer has reported since: unsynchronised exchanges stay within the quota', () => {
    const policy: QuotaPolicy = { name: 'token', quota: 99, windowMs: 60_000 };
    const [a, b, c] = ['a', 'b', 'c'].map((name) => new QuotaLedger(name, [policy], clock));
    const hello = [a, b, c].map((r) => r.report());
    for (const r of [a, b, c]) for (const report of hello) r.merge(report);
    const admit = (r: QuotaLedger) => {
      let n = 0;
      while (r.take('token', 'k').kind === 'allow') n++;
      return n;
    };
    let admitted = admit(a) + admit(b) + admit(c); // 33 each, none reported yet
    now += 1;
    const fromA = a.report(); // a reports first; b and c have not, and have not heard from a
    b.merge(fromA);
    c.merge(fromA);
    admitted += admit(a); // b's and c's 66 are unknown to a: it must not take a new share of 99 - 33
    now += 1;
    for (const report of [b.report(), c.report()]) for (const r of [a, b, c]) r.merge(report);
    admitted += admit(a) + admit(b) + admit(c);
    expect(admitted).toBeLessThanOrEqual(policy.quota + 2);
  });

  it('admits only its share of what is left between two exchanges, so replicas together stay within the quota', () => {
    const replicas = ['a', 'b', 'c'].map((name) => new QuotaLedger(name, [POLICY], clock));
    const exchange = () => {
      const reports = replicas.map((r) => r.report());
      for (const r of replicas) for (const report of reports) r.merge(report);
    };
    exchange(); // every replica now knows the other two are alive
    let admitted = 0;
    // Each replica is asked far more often than the quota allows between two exchanges.
    for (let round = 0; round < 20; round++) {
      for (const replica of replicas) for (let i = 0; i < 10; i++) if (replica.take('token', 'k').kind === 'allow') admitted++;
      exchange();
    }
    // Shares round up, so each replica but one may admit one request too many: the quota plus replicas - 1 at most.
    expect(admitted).toBeGreaterThanOrEqual(10);
    expect(admitted).toBeLessThanOrEqual(12);
  });

  it('asks a caller to wait, not refuses, when only its share is spent', () => {
    const a = new QuotaLedger('a', [POLICY], clock);
    a.merge({ replica: 'b', windows: { token: 100 }, counts: {} });
    expect(a.replicas).toBe(2);
    for (let i = 0; i < 5; i++) expect(a.take('token', 'k').kind).toBe('allow');
    expect(a.take('token', 'k')).toEqual({ kind: 'wait', remaining: 5, resetMs: 60_000 });
    a.report();
    expect(a.take('token', 'k').kind).toBe('allow');
  });

  it('forgets a peer it has not heard from within the peer TTL', () => {
    const a = new QuotaLedger('a', [POLICY], clock);
    a.merge({ replica: 'b', windows: {}, counts: {} });
    expect(a.replicas).toBe(2);
    now += PEER_TTL_MS + 1;
    expect(a.replicas).toBe(1);
  });

  it('charges a request even past the quota', () => {
    const a = new QuotaLedger('a', [POLICY], clock);
    for (let i = 0; i < 12; i++) a.charge('token', 'k');
    expect(a.peek('token', 'k').kind).toBe('deny');
    expect(a.report().counts).toEqual({ token: { k: 12 } });
  });

  it('holds a place in the quota until released; a hold that does not count leaves nothing, not even in the report', () => {
    const a = new QuotaLedger('a', [POLICY], clock);
    const holds = Array.from({ length: 12 }, () => a.hold('token', 'k'));
    expect(holds.map((h) => h.decision.kind)).toEqual([...Array(10).fill('allow'), 'deny', 'deny']);
    expect(holds[0].decision).toEqual({ kind: 'allow', remaining: 9, resetMs: 60_000 });
    expect(a.take('token', 'k').kind).toBe('deny');
    expect(a.report().counts).toEqual({});
    holds.slice(0, 4).forEach((h) => h.release(true));
    holds.slice(4).forEach((h) => h.release(false));
    expect(a.report().counts).toEqual({ token: { k: 4 } });
    expect(a.peek('token', 'k')).toEqual({ kind: 'allow', remaining: 6, resetMs: 60_000 });

    a.hold('token', 'invented').release(false);
    expect(a.report().counts).toEqual({});
    expect((a as unknown as { entries: Map<string, Map<string, unknown>> }).entries.get('token')?.has('invented')).toBe(false);
  });

  it('drops a hold with its window, and counts its release in the window it ends in', () => {
    const a = new QuotaLedger('a', [POLICY], clock);
    const held = a.hold('token', 'k');
    now += 60_000;
    expect(a.take('token', 'k')).toEqual({ kind: 'allow', remaining: 9, resetMs: 60_000 });
    held.release(true);
    expect(a.peek('token', 'k')).toEqual({ kind: 'allow', remaining: 8, resetMs: 60_000 });
  });

  it('reads only well-formed reports', () => {
    expect(parseUsageReport({ replica: 'b', windows: { token: 1 }, counts: { token: { k: 2 } } })).toBeDefined();
    for (const bad of [null, 'x', { replica: 1, windows: {}, counts: {} }, { replica: 'b', windows: { token: 1.5 }, counts: {} }, { replica: 'b', windows: {}, counts: { token: { k: -1 } } }, { replica: 'b', windows: {}, counts: { token: 3 } }]) {
      expect(parseUsageReport(bad)).toBeUndefined();
    }
  });
});
