// The architecture's floor for a read: what the separate processes' path costs with no framework and no
// features. A gateway (node:http, one NATS request per HTTP request, through one reply subscription) and a
// service (one NATS subscription, identity's prepared lookup, the reply) in two processes; no auth, seal,
// validation, rate limit, ETag, metrics or logs. Both write to NATS as the services do (coalesceWrites), so the
// difference between this row and the separate processes' is our code, not the NATS client's defaults.
// Run by bench/run.mjs (startBare in topologies.mjs):
//   BARE_ROLE=service DATABASE_URL=... NATS_URL=... BARE_SUBJECT=... PORT=... node bench/bare-path.mjs
//   BARE_ROLE=gateway NATS_URL=... BARE_SUBJECT=... BENCH_ACCOUNT_ID=... PORT=... node bench/bare-path.mjs
import http from 'node:http';
import { connect, createInbox } from '@nats-io/transport-node';
import pg from 'pg';
import { coalesceWrites } from '@lms/platform';
import { serveUntilStopped } from './serve.mjs';

const { BARE_ROLE: role, BARE_SUBJECT: subject, NATS_URL: natsUrl } = process.env;
const port = Number(process.env.PORT ?? 0);
const encoder = new TextEncoder();
const decoder = new TextDecoder();

const nc = await connect({ servers: natsUrl, name: `bench-bare-${role}` });
if (!coalesceWrites(nc)) process.stderr.write('bare-path: the NATS client writes each message on its own\n');

function send(res, status, text) {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

let server;
let release = () => nc.close();
if (role === 'service') {
  const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 10, application_name: 'lms-bench-bare' });
  const lookup = (accountId, id) => ({ name: 'bare_show', text: 'SELECT id, name FROM identity.custom_fields WHERE account_id = $1 AND id = $2', values: [accountId, id] });
  nc.subscribe(subject, {
    queue: 'bare',
    callback: (err, msg) => {
      if (err) return;
      const { accountId, id } = JSON.parse(decoder.decode(msg.data));
      pool.query(lookup(accountId, id)).then(
        ({ rows }) => msg.respond(encoder.encode(JSON.stringify({ ok: true, body: { meta: {}, custom_fields: rows.map((r) => ({ id: String(r.id), name: r.name })) } }))),
        (error) => msg.respond(encoder.encode(JSON.stringify({ ok: false, error: { status: 500, detail: error.message } }))),
      );
    },
  });
  await nc.flush();
  release = () => Promise.all([nc.close(), pool.end()]);
  server = http.createServer((req, res) => send(res, 200, '{"status":"ok"}'));
} else if (role === 'gateway') {
  const accountId = Number(process.env.BENCH_ACCOUNT_ID);
  const inbox = createInbox();
  const waiting = new Map();
  let nextToken = 0;
  nc.subscribe(`${inbox}.*`, {
    callback: (err, msg) => {
      const token = msg.subject.slice(inbox.length + 1);
      const answer = waiting.get(token);
      waiting.delete(token);
      answer?.(msg);
    },
  });
  server = http.createServer((req, res) => {
    if (req.url === '/readyz') return send(res, 200, '{"status":"ok"}');
    const match = /^\/bare\/custom_fields\/(\d+)$/.exec(req.url ?? '');
    if (!match || req.method !== 'GET') return send(res, 404, '{"status":404}');
    const token = (nextToken++).toString(36);
    const timer = setTimeout(() => waiting.delete(token) && send(res, 504, '{"status":504}'), 5_000);
    waiting.set(token, (msg) => {
      clearTimeout(timer);
      const reply = JSON.parse(decoder.decode(msg.data));
      send(res, reply.ok ? 200 : reply.error.status, JSON.stringify(reply.ok ? reply.body : reply.error));
    });
    nc.publish(subject, encoder.encode(JSON.stringify({ accountId, id: Number(match[1]) })), { reply: `${inbox}.${token}` });
  });
} else {
  process.stderr.write('bare-path: BARE_ROLE must be service or gateway\n');
  process.exit(1);
}
serveUntilStopped(server, port, release);
