// The floor the service stack is compared with: node:http + a pg Pool doing the same database work as
// identity for a custom field read and create, with the same JSON envelope, and nothing else (no auth,
// no validation, no NATS hop, no framework). Run as its own process by bench/run.mjs:
//   DATABASE_URL=... PORT=... BENCH_ACCOUNT_ID=... node bench/raw-baseline.mjs
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import pg from 'pg';
import { serveUntilStopped } from './serve.mjs';

const port = Number(process.env.PORT ?? 0);
const accountId = Number(process.env.BENCH_ACCOUNT_ID);
if (!process.env.DATABASE_URL || !Number.isInteger(accountId)) {
  process.stderr.write('raw-baseline: DATABASE_URL and BENCH_ACCOUNT_ID are required\n');
  process.exit(1);
}

// BENCH_RAW_PREPARED=1: the same statements prepared once per connection (named), as the services' lookups,
// outbox and relay are; the recorded runs use unnamed statements, the baseline issue 6 names.
const PREPARED = process.env.BENCH_RAW_PREPARED === '1';
const statement = (name, text, values) => (PREPARED ? { name, text, values } : { text, values });

// pg's default pool size, the same as TypeORM's pool in each service (poolSize 10).
const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 10, application_name: 'lms-bench-raw' });

// Its events go to an outbox of its own, a copy of identity's (columns, defaults, indexes): the same write,
// but one no relay publishes. The bench runs this beside a topology, whose relay would otherwise publish
// them during the baseline's own measurement (and charge NATS work to a baseline that has none).
const OUTBOX = 'bench_raw.outbox';
const outboxReady = pool.query(`CREATE SCHEMA IF NOT EXISTS bench_raw; CREATE TABLE IF NOT EXISTS ${OUTBOX} (LIKE identity.outbox INCLUDING ALL)`);

const envelope = (rows) => ({ meta: {}, custom_fields: rows.map((r) => ({ id: String(r.id), name: r.name })) });

function send(res, status, body) {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

function readBody(req) {
  return new Promise((resolve, reject) => {
    let text = '';
    req.setEncoding('utf8');
    req.on('data', (chunk) => (text += chunk));
    req.on('end', () => resolve(text));
    req.on('error', reject);
  });
}

async function show(res, id) {
  const { rows } = await pool.query(statement('raw_show', 'SELECT id, name FROM identity.custom_fields WHERE account_id = $1 AND id = $2', [accountId, id]));
  if (rows.length === 0) return send(res, 404, { status: 404, code: 'CUSTOM_FIELD_NOT_FOUND' });
  send(res, 200, envelope(rows));
}

/** What identity commits for a one-field create: the row and its outbox event, in one transaction. */
async function create(req, res) {
  const input = JSON.parse(await readBody(req));
  const name = String(input.custom_fields[0].name).trim();
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    const { rows } = await client.query(statement('raw_insert', 'INSERT INTO identity.custom_fields (account_id, name) VALUES ($1, $2) RETURNING id, name', [accountId, name]));
    const id = randomUUID();
    const event = { specversion: '1.0', id, source: '/bench-raw', type: 'identity.custom_field.created', time: new Date().toISOString(), datacontenttype: 'application/json', accountid: accountId, data: rows[0] };
    await client.query(
      statement('raw_outbox', `INSERT INTO ${OUTBOX} (id, type, subject, account_id, payload, created_at) VALUES ($1, $2, $3, $4, $5, clock_timestamp())`, [
        id,
        event.type,
        null,
        accountId,
        JSON.stringify(event),
      ]),
    );
    await client.query('COMMIT');
    send(res, 201, envelope(rows));
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    client.release();
  }
}

const server = http.createServer((req, res) => {
  const path = (req.url ?? '/').split('?')[0];
  const match = /^\/raw\/custom_fields(?:\/(\d+))?$/.exec(path);
  let work;
  if (path === '/readyz' && req.method === 'GET') work = outboxReady.then(() => pool.query('SELECT 1')).then(() => send(res, 200, { status: 'ok' }));
  else if (match?.[1] && req.method === 'GET') work = show(res, Number(match[1]));
  else if (match && !match[1] && req.method === 'POST') work = create(req, res);
  else return send(res, 404, { status: 404 });
  work.catch((err) => send(res, 500, { status: 500, detail: err instanceof Error ? err.message : String(err) }));
});
serveUntilStopped(server, port, () => pool.end());
