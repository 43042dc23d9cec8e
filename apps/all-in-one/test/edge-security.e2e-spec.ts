import { Writable } from 'node:stream';
import { request as httpRequest } from 'node:http';
import { createLogger } from '@lms/platform';
import type { ApiClient, ApiResponse } from '@lms/testing';
import { startTestSystem, type TestSystem } from './test-system.js';

// Issue 11, finding 9: what the edge shows and logs.

const METRICS_TOKEN = 'metrics-token-0123456789abcdef';

/** A GET with one huge header, over a raw socket: fetch refuses to send what Node's parser refuses to read. */
function getWithHugeHeader(url: string): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${url}/api/author/custom_fields`, { headers: { 'x-padding': 'a'.repeat(20_000) } }, (res) => {
      let body = '';
      res.on('data', (chunk) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('the edge: headers, metrics, logs, server-side requests', () => {
  let t: TestSystem;
  let admin: ApiClient;
  const lines: Record<string, unknown>[] = [];

  beforeAll(async () => {
    const sink = new Writable({
      write(chunk, _encoding, done) {
        for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line));
        done();
      },
    });
    t = await startTestSystem({ METRICS_TOKEN }, undefined, createLogger('info', { mode: 'all-in-one' }, sink));
    admin = t.api;
  });
  afterAll(() => t?.close());

  const expectSecurityHeaders = (res: ApiResponse) => {
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('x-frame-options')).toBe('DENY');
    expect(res.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(res.headers.get('referrer-policy')).toBe('no-referrer');
  };

  it('puts the security headers on every answer: success, errors, unknown paths, docs', async () => {
    const answers = [
      await admin.get('/api/author/custom_fields'),
      await admin.as(undefined).get('/api/author/custom_fields'),
      await admin.get('/api/nothing-here'),
      await admin.post('/api/author/custom_fields', '{bad json'),
      await admin.get('/healthz'),
      await admin.get('/api/openapi.json'),
      await admin.get('/api/docs'),
    ];
    expect(answers.map((res) => res.status)).toEqual([200, 401, 404, 400, 200, 200, 200]);
    for (const res of answers) expectSecurityHeaders(res);
    expect(answers[0].headers.get('content-security-policy')).toContain("default-src 'none'");
  });

  it('gives the Swagger page a policy that lets it load its own scripts, styles and the OpenAPI document, and nothing else', async () => {
    const page = await admin.get('/api/docs');
    const csp = page.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toMatch(/script-src[^;]*unsafe-(inline|eval)/);
    expect(csp).toContain("connect-src 'self'");
    expect(csp).toContain("style-src 'self'");
    // Every script and stylesheet the page names is served from this origin, and no script is inline.
    const sources = [...page.text.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]);
    expect(sources.length).toBeGreaterThan(3);
    for (const source of sources) {
      expect(source.startsWith('/api/docs/')).toBe(true);
      const asset = await admin.get(source);
      expect(asset.status).toBe(200);
      expectSecurityHeaders(asset);
    }
    expect(page.text).not.toMatch(/<script>(?!<\/script>)/);
  });

  it('answers headers too large with a 431 problem', async () => {
    const res = await getWithHugeHeader(t.system.url);
    expect(res.status).toBe(431);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(JSON.parse(res.body)).toEqual(expect.objectContaining({ status: 431, code: 'REQUEST_HEADERS_TOO_LARGE', request_id: expect.any(String) }));
  });

  it('serves /metrics on the public port only to the metrics token', async () => {
    const anonymous = await fetch(`${t.system.url}/metrics`);
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect((await admin.get('/metrics')).status).toBe(401); // an administrator's API token is not the metrics token
    const scraped = await fetch(`${t.system.url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
    expect(scraped.status).toBe(200);
    expect(await scraped.text()).toContain('http_request_duration_seconds');
  });

  it('keeps secrets out of the access log and every other line', async () => {
    const secret = 'lms_supersecretvalue0123456789abcdef';
    await admin.get(`/api/author/custom_fields?access_token=${secret}&includes[]=name`, { 'x-request-id': 'redact-me-1' });
    await fetch(`${t.system.url}/api/author/custom_fields?token=${secret}`, { headers: { authorization: `Bearer ${secret}`, 'x-request-id': 'redact-me-2' } });
    const logged = lines.filter((line) => line.requestId === 'redact-me-1' || line.requestId === 'redact-me-2');
    expect(logged.length).toBeGreaterThanOrEqual(2);
    const access = logged.find((line) => line.requestId === 'redact-me-1' && line.msg === 'request');
    expect(access?.url).toBe('/api/author/custom_fields?access_token=[redacted]&includes[]=name');
    expect(JSON.stringify(lines)).not.toContain(secret);
    expect(JSON.stringify(lines)).not.toContain(t.token);
  });

  describe('csv_url must not reach inside the network (server-side request forgery)', () => {
    it.each([
      'http://169.254.169.254/latest/meta-data/',
      'http://127.0.0.1:5432/',
      'https://localhost/users.csv',
      'http://[::1]/x.csv',
      'http://[::ffff:10.0.0.1]/x.csv',
      'http://2130706433/x.csv',
      'http://0x7f.0.0.1/x.csv',
      'sftp://10.1.2.3/export.csv',
      'http://192.168.1.10/export.csv',
      'http://100.64.0.1/export.csv',
      'http://metadata.google.internal/computeMetadata/v1/',
      'http://postgres:5432/',
      'http://[fe80::1]/x.csv',
      'http://[fd00::1]/x.csv',
    ])('refuses %s', async (csvUrl) => {
      const res = await admin.patch('/api/admin/import_profile', { csv_url: csvUrl });
      expect(res.status).toBe(400);
      expect(res.body.errors.map((e: { field: string }) => e.field)).toContain('csv_url');
      expect(res.body.errors.every((e: { field: string }) => e.field === 'csv_url')).toBe(true);
    });

    it('takes a public host name or address', async () => {
      for (const csvUrl of ['https://hr.example.com/export.csv', 'sftp://files.example.org/users.csv', 'http://93.184.215.14/x.csv']) {
        const res = await admin.patch('/api/admin/import_profile', { csv_url: csvUrl });
        expect(res.status).toBe(200);
        expect(res.body.csv_url).toBe(csvUrl);
      }
    });
  });
});
