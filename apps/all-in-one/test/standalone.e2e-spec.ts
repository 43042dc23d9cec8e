import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { ApiClient, createTestDatabase, deleteNamespaceStreams, eventually, freePortBlock, TEST_CONTEXT_SIGNING_KEY, testNatsUrl, type TestDatabase, uniqueName } from '@lms/testing';
import { SERVICES } from '../src/host.js';

// Each deployable as its own process (the Kubernetes shape), from the build that `npm test` makes first.
const natsUrl = testNatsUrl();
const built = existsSync('dist/apps/gateway/main.js');
const describeWithNats = natsUrl && built ? describe : describe.skip;

interface Proc {
  name: string;
  child: ChildProcess;
  exited: Promise<number | null>;
}

describeWithNats('every deployable in its own process, talking over NATS only', () => {
  let db: TestDatabase;
  const procs: Proc[] = [];
  const token = `bootstrap_${uniqueName('token')}`;
  const namespace = uniqueName('standalone');
  let basePort: number;
  let gatewayPort: number;
  let gatewayHealthPort: number;
  let env: NodeJS.ProcessEnv;

  const launch = (name: string, extra: NodeJS.ProcessEnv = {}): Proc => {
    const child = spawn(process.execPath, [`dist/apps/${name}/main.js`], { env: { ...env, ...extra }, stdio: ['ignore', 'ignore', 'inherit'] });
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    const proc = { name, child, exited };
    procs.push(proc);
    return proc;
  };

  /** Ready (its /readyz answers 200), or a failure naming the deployable at once when it exits first (its stderr is shown). */
  const ready = async (proc: Proc, port: number) => {
    let settled = false;
    const died = proc.exited.then((code) => {
      if (!settled) throw new Error(`${proc.name} exited with code ${code} before it was ready`);
    });
    const up = eventually(async () => ((await fetch(`http://127.0.0.1:${port}/readyz`).catch(() => undefined))?.status === 200 ? true : undefined), 60_000, 200).catch(() => {
      throw new Error(`${proc.name} was not ready on port ${port} within 60 s`);
    });
    try {
      await Promise.race([up, died]);
    } finally {
      settled = true;
    }
  };

  beforeAll(async () => {
    db = await createTestDatabase();
    basePort = await freePortBlock(SERVICES.length + 2);
    gatewayPort = basePort + SERVICES.length;
    gatewayHealthPort = gatewayPort + 1;
    env = { PATH: process.env.PATH, DATABASE_URL: db.url, NATS_URL: natsUrl, NATS_NAMESPACE: namespace, CONTEXT_SIGNING_KEY: TEST_CONTEXT_SIGNING_KEY, BOOTSTRAP_ADMIN_TOKEN: token, LOG_LEVEL: 'warn', HOST: '127.0.0.1', RPC_TIMEOUT_MS: '3000' };
    const services = SERVICES.map((name, i) => launch(name, { HEALTH_PORT: String(basePort + i) }));
    await Promise.all(services.map((proc, i) => ready(proc, basePort + i)));
    await ready(launch('gateway', { PORT: String(gatewayPort), HEALTH_PORT: String(gatewayHealthPort) }), gatewayPort);
  }, 90_000);

  afterAll(async () => {
    for (const p of procs) p.child.kill('SIGKILL');
    await Promise.all(procs.map((p) => p.exited));
    await deleteNamespaceStreams(natsUrl!, namespace);
    await db?.drop();
  });

  it('serves custom fields through the gateway process and the identity process', async () => {
    const api = new ApiClient(`http://127.0.0.1:${gatewayPort}`, token);
    const created = await api.post('/api/author/custom_fields', { custom_fields: [{ name: 'Across processes' }] });
    expect(created.status).toBe(201);
    const id = created.body.custom_fields[0].id;
    expect((await api.get(`/api/author/custom_fields/${id}`)).body.custom_fields[0].name).toBe('Across processes');
  });

  it('keeps the gateway\'s metrics off its public port and serves them on its health port', async () => {
    const api = new ApiClient(`http://127.0.0.1:${gatewayPort}`, token);
    await api.get('/api/author/custom_fields');
    expect((await fetch(`http://127.0.0.1:${gatewayPort}/metrics`)).status).toBe(404);
    const scraped = await fetch(`http://127.0.0.1:${gatewayHealthPort}/metrics`);
    expect(scraped.status).toBe(200);
    expect(await scraped.text()).toMatch(/http_request_duration_seconds_count\{method="GET",route="\/api\/author\/custom_fields",status="200"\} [1-9]/);
    expect((await fetch(`http://127.0.0.1:${gatewayHealthPort}/readyz`)).status).toBe(200);
  });

  it('answers 503 at once while identity is down, and drains every process on SIGTERM with exit code 0', async () => {
    const api = new ApiClient(`http://127.0.0.1:${gatewayPort}`, token);
    await api.get('/api/author/custom_fields'); // principal cached
    const identity = procs.find((p) => p.name === 'identity')!;
    identity.child.kill('SIGTERM');
    expect(await identity.exited).toBe(0);
    const res = await api.get('/api/author/custom_fields');
    expect(res.status).toBe(503);
    expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    for (const p of procs.filter((x) => x !== identity)) p.child.kill('SIGTERM');
    expect(await Promise.all(procs.filter((x) => x !== identity).map((p) => p.exited))).toEqual(procs.filter((x) => x !== identity).map(() => 0));
  }, 60_000);
});
