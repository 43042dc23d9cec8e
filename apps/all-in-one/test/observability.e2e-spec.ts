import { Writable } from 'node:stream';
import { pino } from 'pino';
import { startTestSystem, type TestSystem } from './test-system.js';

const METRICS_TOKEN = 'observability-metrics-token';

describe('observability of the whole system', () => {
  let t: TestSystem;
  const lines: Record<string, unknown>[] = [];

  beforeAll(async () => {
    const sink = new Writable({
      write(chunk, _encoding, done) {
        for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line));
        done();
      },
    });
    t = await startTestSystem({ METRICS_TOKEN }, undefined, pino({ level: 'info' }, sink));
  });
  afterAll(() => t?.close());

  it('carries one request id from the gateway into the log lines of the service that handled the request', async () => {
    const requestId = 'trace-me-0123456789';
    const res = await t.api.get('/api/author/custom_fields', { 'x-request-id': requestId });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-request-id')).toBe(requestId);
    const traced = lines.filter((line) => line.requestId === requestId);
    expect(traced).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ service: 'gateway' }),
        expect.objectContaining({ service: 'identity', subject: 'identity.custom_fields.list', status: 200 }),
      ]),
    );
  });

  it('reports readiness of every dependency, and Prometheus metrics to the metrics token, on the one port', async () => {
    const ready = await fetch(`${t.system.url}/readyz`);
    expect(ready.status).toBe(200);
    const report = JSON.stringify(await ready.json());
    for (const name of ['identity.database', 'catalog.database', 'scheduling.database', 'jobs.database', 'locking.database', 'nats']) expect(report).toContain(name);
    const metrics = await (await fetch(`${t.system.url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })).text();
    expect(metrics).toMatch(/^# TYPE \S+ histogram$/m);
    expect(metrics).toContain('route="/api/author/custom_fields"');
    // The services' side of the same requests, merged in by the gateway of this one process.
    expect(metrics).toMatch(/^rpc_server_duration_seconds_count\{queue="identity",subject="identity\.custom_fields\.list",status="200"\} [1-9]/m);
  });
});
