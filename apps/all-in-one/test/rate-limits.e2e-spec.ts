import { tokenHash } from '@lms/contracts';
import { createBus, createLogger, loadConfig, signFileUrl, signPlayerToken, type Deployable, type MessageBus } from '@lms/platform';
import { ApiClient, TEST_CONTEXT_SIGNING_KEY, testNatsUrl, uniqueName, type ApiResponse, type TestUser } from '@lms/testing';
import { load } from '../src/host.js';
import { startTestSystem, type TestSystem } from './test-system.js';

const PATH = '/api/author/custom_fields';

/** `"token";r=7;t=42` -> { name, r, t }; undefined unless it is exactly the draft's structured-field form. */
function parseRateLimit(value: string | null): { name: string; r: number; t: number } | undefined {
  const match = value ? /^"([a-z]+)";r=(\d+);t=(\d+)$/.exec(value) : null;
  return match ? { name: match[1], r: Number(match[2]), t: Number(match[3]) } : undefined;
}

/**
 * Fixed windows start on multiples of their length: a spec that counts requests must not straddle a
 * boundary, so it starts just after one when the current window is almost over.
 */
async function awayFromWindowEnd(res: { headers: Headers }, marginS = 20): Promise<void> {
  const reset = parseRateLimit(res.headers.get('ratelimit'))?.t;
  if (reset !== undefined && reset < marginS) await new Promise((r) => setTimeout(r, reset * 1000 + 100));
}

describe('rate limits (one gateway, real NATS when available)', () => {
  let t: TestSystem;
  let author: TestUser;
  let other: TestUser;

  beforeAll(async () => {
    // The test client is its own proxy: requests without X-Forwarded-For are the loopback's, as without the setting.
    t = await startTestSystem({ RATE_LIMIT_PER_TOKEN: '20', RATE_LIMIT_PER_ADDRESS: '10', RATE_LIMIT_WINDOW_S: '3600', TRUSTED_PROXIES: '127.0.0.0/8,::1' });
    const accountId = await t.factory.accountIdOf('default');
    author = await t.factory.user(accountId, ['author']);
    other = await t.factory.user(accountId, ['author']);
  });
  afterAll(() => t?.close());

  it('answers RateLimit and RateLimit-Policy on every API answer, then 429 problem+json with Retry-After past the quota', async () => {
    const api = t.api.as(author.token);
    const first = await api.get(PATH);
    expect(first.status).toBe(200);
    expect(first.headers.get('ratelimit-policy')).toBe('"token";q=20;w=3600');
    await awayFromWindowEnd(first);
    const answers: ApiResponse[] = [];
    for (let i = 0; i < 22; i++) answers.push(await api.get(PATH));
    const limited = answers.filter((a) => a.status === 429);
    // The first request above may have been in the previous window: 19 or 20 more are admitted.
    expect(answers.length - limited.length).toBeGreaterThanOrEqual(19);
    expect(answers.length - limited.length).toBeLessThanOrEqual(20);
    const remaining = answers.filter((a) => a.status === 200).map((a) => parseRateLimit(a.headers.get('ratelimit'))!.r);
    expect(remaining).toEqual([...remaining].sort((a, b) => b - a));
    expect(remaining.at(-1)).toBe(0);

    const refused = limited[0];
    expect(refused.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(refused.body).toMatchObject({ status: 429, code: 'RATE_LIMITED', type: expect.stringContaining('rate-limited') });
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 3600).toBe(true);
    expect(parseRateLimit(refused.headers.get('ratelimit'))).toEqual({ name: 'token', r: 0, t: retryAfter });

    // Another token has its own quota.
    expect((await t.api.as(other.token).get(PATH)).status).toBe(200);
  });

  it("holds a new token's first requests, sent together before it is known good, to its quota", async () => {
    const fresh = await t.factory.user(await t.factory.accountIdOf('default'), ['author']);
    const api = t.api.as(fresh.token);
    // Windows are aligned on the epoch: the burst must not straddle a boundary.
    const toBoundary = 3_600_000 - (Date.now() % 3_600_000);
    if (toBoundary < 10_000) await new Promise((r) => setTimeout(r, toBoundary + 100));
    // Connections opened beforehand, so that the burst arrives before the first authentication completes.
    await Promise.all(Array.from({ length: 60 }, async () => (await fetch(`${t.system.url}/healthz`)).arrayBuffer()));
    const burst = await Promise.all(Array.from({ length: 60 }, () => api.get(PATH)));
    expect(burst.filter((a) => a.status !== 200 && a.status !== 429)).toEqual([]);
    // Exactly the quota: none over it (60 were admitted before), and none refused below it.
    expect(burst.filter((a) => a.status === 200).length).toBe(20);
  });

  it('limits requests without a token, and made-up tokens, by client address', async () => {
    const anonymous = t.api.as(undefined);
    const first = await anonymous.get(PATH);
    expect(first.status).toBe(401);
    expect(first.headers.get('ratelimit-policy')).toBe('"address";q=10;w=3600');
    await awayFromWindowEnd(first);
    const statuses: number[] = [];
    // What the gateway tells its peers it counted: a made-up token must not become a key of its own there.
    const reports: { counts: Record<string, Record<string, number>> }[] = [];
    const listening = t.system.bus.listen('gateway.rate_limit.usage', (report) => reports.push(report as (typeof reports)[number]));
    // Each attempt uses a new made-up token: rotating tokens must not escape the limit.
    for (let i = 0; i < 15; i++) statuses.push((await t.api.as(i % 2 ? undefined : `lms_fake_${i}`).get(PATH)).status);
    await new Promise((resolve) => setTimeout(resolve, 300)); // two exchanges
    await listening.unsubscribe();
    expect(reports.length).toBeGreaterThan(0);
    const fakes = new Set(Array.from({ length: 15 }, (_, i) => tokenHash(`lms_fake_${i}`)));
    expect(reports.flatMap((report) => Object.keys(report.counts.token ?? {})).filter((key) => fakes.has(key))).toEqual([]);
    expect(reports.some((report) => Object.keys(report.counts.address ?? {}).length > 0)).toBe(true);
    expect(statuses.filter((s) => s === 429).length).toBeGreaterThanOrEqual(5);
    expect(statuses.filter((s) => s !== 401 && s !== 429)).toEqual([]);
    // A token the gateway already knows good (the first test used it) is still served from the same address.
    expect((await t.api.as(other.token).get(PATH)).status).toBe(200);
  });

  it('limits each signed link by its own quota, and links that do not verify by client address', async () => {
    // The key the system derived from its configuration, as jobs and the player sign with it.
    const natsUrl = testNatsUrl();
    const { fileUrlSigningKey } = loadConfig(natsUrl ? { NATS_URL: natsUrl, CONTEXT_SIGNING_KEY: TEST_CONTEXT_SIGNING_KEY } : {});
    const get = async (path: string) => {
      const res = await fetch(`${t.system.url}${path}`);
      await res.arrayBuffer();
      return res;
    };
    // Invented links spend the address's quota (the previous test may have spent it already).
    const invalid: number[] = [];
    for (let i = 0; i < 12; i++) invalid.push((await get(`/files/jobs/${i}/dump.zip?name=dump.zip&expires=9999999999&signature=made-up`)).status);
    expect(invalid.filter((s) => s !== 403 && s !== 429)).toEqual([]);
    expect(invalid.at(-1)).toBe(429);

    // A link that verifies has a quota of its own, whoever sends it: the file is gone (404), and still counted.
    const link = signFileUrl(fileUrlSigningKey, `jobs/${uniqueName('job')}/dump.zip`, 'dump.zip');
    const first = await get(link);
    expect(first.status).toBe(404);
    expect(first.headers.get('ratelimit-policy')).toBe('"link";q=20;w=3600');
    await awayFromWindowEnd(first);
    const statuses: number[] = [];
    for (let i = 0; i < 21; i++) statuses.push((await get(link)).status);
    expect(statuses.filter((s) => s === 404).length).toBeGreaterThanOrEqual(19);
    expect(statuses.filter((s) => s === 404).length).toBeLessThanOrEqual(20);
    const refused = await get(link);
    expect(refused.status).toBe(429);
    expect(parseRateLimit(refused.headers.get('ratelimit'))?.name).toBe('link');

    // A SCORM player's token is a link of its own: its session is refused by catalog (no such registration), and counted.
    const session = signPlayerToken(fileUrlSigningKey, { kind: 'session', accountId: 1, userId: 1, registrationId: 1, packageId: 'p' });
    const player = await get(`/scorm/s/${session}/scos/0`);
    expect(player.status).toBe(404);
    expect(parseRateLimit(player.headers.get('ratelimit'))).toMatchObject({ name: 'link', r: 19 });
    // The same registration launched again, from a percent-encoded path: one grant, one quota.
    const launch = signPlayerToken(fileUrlSigningKey, { kind: 'launch', accountId: 1, userId: 1, registrationId: 1, packageId: 'p' });
    expect(parseRateLimit((await get(`/%73corm/launch/${launch}`)).headers.get('ratelimit'))).toMatchObject({ name: 'link', r: 18 });
    // The player's own scripts carry no credential and are not limited.
    expect((await get('/scorm/player.js')).status).toBe(200);
  });

  it('behind a trusted proxy, limits each client by the address the proxy forwards, which a client cannot choose', async () => {
    const anonymous = (forwardedFor: string) => fetch(`${t.system.url}${PATH}`, { headers: { 'x-forwarded-for': forwardedFor } });
    const statuses = async (forwardedFor: string, count: number) => {
      const answers: number[] = [];
      for (let i = 0; i < count; i++) answers.push((await anonymous(forwardedFor)).status);
      return answers;
    };
    const first = await anonymous('203.0.113.1');
    expect(first.status).toBe(401);
    await awayFromWindowEnd(first);
    // One client spends its quota; what it sends to the left of the proxy's entry changes nothing.
    expect((await statuses('203.0.113.1', 9)).filter((s) => s === 429)).toEqual([]);
    expect(await statuses('198.51.100.7, 203.0.113.1', 2)).toEqual([429, 429]);
    // Another client behind the same proxy still has all of its own.
    expect(await statuses('203.0.113.2', 10)).toEqual(Array(10).fill(401));
    // A percent-encoded path reaches the API route, and is counted as the API.
    const encoded: number[] = [];
    for (let i = 0; i < 11; i++) encoded.push((await fetch(`${t.system.url}/%61pi/author/custom_fields`, { headers: { 'x-forwarded-for': '203.0.113.3' } })).status);
    expect(encoded).toEqual([...Array(10).fill(401), 429]);
    // So is one that reaches no route.
    expect((await fetch(`${t.system.url}/%61pi/no/such/route`, { headers: { 'x-forwarded-for': '203.0.113.3' } })).status).toBe(429);
    // An IPv6 client is one client across its /64.
    expect(await statuses('2001:db8:1:2::1', 5)).toEqual(Array(5).fill(401));
    expect(await statuses('2001:db8:1:2::ffff', 6)).toEqual([...Array(5).fill(401), 429]);
  });

  it('does not limit health, metrics or the API documentation', async () => {
    for (let i = 0; i < 12; i++) expect((await t.api.as(undefined).get('/healthz')).status).toBe(200);
    expect((await t.api.as(undefined).get('/api/openapi.json')).status).toBe(200);
  });
});

const describeWithNats = testNatsUrl() ? describe : describe.skip;

describeWithNats('rate limits across three gateway replicas sharing one NATS namespace', () => {
  const QUOTA = 100;
  let t: TestSystem;
  const extra: { gateway: Deployable & { url: string }; bus: MessageBus }[] = [];

  beforeAll(async () => {
    const env = { RATE_LIMIT_PER_TOKEN: String(QUOTA), RATE_LIMIT_PER_ADDRESS: '1000', RATE_LIMIT_WINDOW_S: '3600', NATS_NAMESPACE: uniqueName('rl') };
    t = await startTestSystem(env);
    const config = loadConfig({ DATABASE_URL: t.db.url, NATS_URL: testNatsUrl(), CONTEXT_SIGNING_KEY: TEST_CONTEXT_SIGNING_KEY, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'silent', ...env });
    const { start } = await load('gateway');
    for (const name of ['gateway-2', 'gateway-3']) {
      const logger = createLogger('silent');
      const bus = await createBus(config, name, logger);
      const gateway = (await start({ config, databaseUrl: t.db.url, bus, logger })) as Deployable & { url: string };
      extra.push({ gateway, bus });
    }
  });
  afterAll(async () => {
    for (const { gateway, bus } of extra) {
      await gateway.close();
      await bus.close();
    }
    await t?.close();
  });

  it(`admits ${QUOTA} requests of one token within 10 % when they are spread over the replicas`, async () => {
    const author = (await t.factory.cast()).author;
    const clients = [t.system.url, ...extra.map((e) => e.gateway.url)].map((url) => new ApiClient(url, author.token));
    // Every replica has heard from the others before the burst (they report every 100 ms).
    await new Promise((r) => setTimeout(r, 300));
    const first = await clients[0].get(PATH);
    await awayFromWindowEnd(first);
    const statuses: number[] = [first.status];
    let next = 1;
    // 16 requests in flight at a time, round robin over the three replicas: three times the quota.
    await Promise.all(
      Array.from({ length: 16 }, async () => {
        while (next < 3 * QUOTA) {
          const i = next++;
          statuses.push((await clients[i % 3].get(PATH)).status);
        }
      }),
    );
    const admitted = statuses.filter((s) => s === 200).length;
    expect(statuses.filter((s) => s !== 200 && s !== 429)).toEqual([]);
    expect(admitted).toBeGreaterThanOrEqual(QUOTA * 0.9);
    expect(admitted).toBeLessThanOrEqual(QUOTA * 1.1);
  });
});
