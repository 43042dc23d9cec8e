import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fetchCsv } from './csv-fetch.js';
import { ImportFailure } from './import-failure.js';

/** A real HTTP server on loopback: what the fetch connects to, and what it must refuse without the setting. */
describe('fetchCsv', () => {
  let server: Server;
  let port: number;
  const seen: { host?: string; authorization?: string }[] = [];

  beforeAll(async () => {
    server = createServer((req, res) => {
      seen.push({ host: req.headers.host, authorization: req.headers.authorization });
      if (req.url === '/big') res.end('x'.repeat(5000));
      else if (req.url === '/slow') setTimeout(() => res.end('late'), 2000).unref();
      else if (req.url === '/moved') res.writeHead(302, { location: 'http://169.254.169.254/' }).end();
      else if (req.url === '/down') res.writeHead(503).end();
      else res.end('uid\na\n');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise((resolve) => server.close(resolve)));

  const open = { allowPrivateAddresses: true, maxBytes: 1024, timeoutMs: 1000 };
  const closed = { ...open, allowPrivateAddresses: false };
  const auth = { user: 'u', password: 'p:w' };

  it('fetches with HTTP basic auth when private addresses are allowed', async () => {
    expect((await fetchCsv(`http://127.0.0.1:${port}/ok`, auth, open)).toString()).toBe('uid\na\n');
    expect(seen.at(-1)?.authorization).toBe(`Basic ${Buffer.from('u:p:w').toString('base64')}`);
  });

  it('refuses a loopback address without the setting, and connects nowhere', async () => {
    const before = seen.length;
    await expect(fetchCsv(`http://127.0.0.1:${port}/ok`, auth, closed)).rejects.toThrow(ImportFailure);
    await expect(fetchCsv(`http://[::ffff:127.0.0.1]:${port}/ok`, auth, closed)).rejects.toThrow(/not a public internet address/);
    expect(seen.length).toBe(before);
  });

  it('checks the address a public-looking name resolves to (DNS pointing at 127.0.0.1 or the metadata address)', async () => {
    const before = seen.length;
    const toLoopback = async () => [{ address: '127.0.0.1', family: 4 }];
    await expect(fetchCsv(`http://csv.example.com:${port}/ok`, auth, { ...closed, resolve: toLoopback })).rejects.toThrow(/resolves to 127\.0\.0\.1/);
    const mixed = async () => [{ address: '93.184.215.14', family: 4 }, { address: '169.254.169.254', family: 4 }];
    await expect(fetchCsv(`http://csv.example.com:${port}/ok`, auth, { ...closed, resolve: mixed })).rejects.toThrow(/169\.254\.169\.254/);
    expect(seen.length).toBe(before);
  });

  it('connects to exactly the address it resolved and checked, not to a second DNS answer', async () => {
    const body = await fetchCsv(`http://csv.example.com:${port}/ok`, auth, { ...open, resolve: async () => [{ address: '127.0.0.1', family: 4 }] });
    expect(body.toString()).toBe('uid\na\n');
    expect(seen.at(-1)?.host).toBe(`csv.example.com:${port}`);
  });

  it('stops at the size limit and the time limit, follows no redirect, and retries only a server error', async () => {
    await expect(fetchCsv(`http://127.0.0.1:${port}/big`, auth, open)).rejects.toThrow(/larger than 1024 bytes/);
    await expect(fetchCsv(`http://127.0.0.1:${port}/slow`, auth, { ...open, timeoutMs: 200 })).rejects.toThrow(/longer than 200 ms/);
    await expect(fetchCsv(`http://127.0.0.1:${port}/moved`, auth, open)).rejects.toThrow(/redirects are not followed/);
    const down = fetchCsv(`http://127.0.0.1:${port}/down`, auth, open);
    await expect(down).rejects.toThrow(/503/);
    await expect(down).rejects.not.toBeInstanceOf(ImportFailure);
  });

  it('fetches http and https only', async () => {
    await expect(fetchCsv('sftp://files.example.com/users.csv', auth, closed)).rejects.toThrow(/http and https only/);
  });
});
