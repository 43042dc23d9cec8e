// `npm run test:faults` (issue 17): the system as separate processes on its own Postgres and nats-server,
// a mixed load through the gateway, and during it each fault in turn: kill -9 of every deployable, a
// nats-server restart, a Postgres crash restart, a row lock held past the RPC timeout, a jobs worker
// killed in the middle of a data dump and of a sub-account clone. After each it asserts nothing
// acknowledged was lost, nothing happened twice (summaries, dumps, clones, e-mails: the enrollments the
// load makes notify their learners through a real SMTP server here), nothing hung, no event was stranded,
// and it reports the recovery time. The table goes to docs/reliability.md. Exits 1 when any figure is off.
//
// Settings: FAULTS_SEED (1), FAULTS_LOAD_S (seconds of load around each fault: 4), FAULTS_CONCURRENCY (4),
// FAULTS_RPC_TIMEOUT_MS (2000), FAULTS_SCENARIOS (comma-separated names: all), FAULTS_DUMP_USERS (rows a
// dump must write while its worker dies: 150000), FAULTS_CLONE_COURSES (course templates a clone copies
// while its worker dies: 20000), FAULTS_REPORT (docs/reliability.md; "-" writes none:
// `npm test` prints the table only, so a test run leaves the tree as it was). A soak is one variable
// away: FAULTS_LOAD_S=600. Without a nats-server binary the suite says so and fails, unless
// FAULTS_OPTIONAL=1 (as `npm test` sets it on a machine without one), where it is skipped.
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { Objm } from '@nats-io/obj';
import { connect } from '@nats-io/transport-node';
import pg from 'pg';
import { SMTPServer } from 'smtp-server';
import { freePort, killAllNow, waitReady } from '../bench/processes.mjs';
import { client, newLedger, random, runMixedLoad } from './load.mjs';
import { DEPLOYABLES, NATS_SERVER, startSystem } from './system.mjs';

const setting = (name, fallback) => Number(process.env[name] ?? fallback);
const seed = setting('FAULTS_SEED', 1);
const loadMs = setting('FAULTS_LOAD_S', 4) * 1000;
const concurrency = setting('FAULTS_CONCURRENCY', 4);
const rpcTimeoutMs = setting('FAULTS_RPC_TIMEOUT_MS', 2000);
const dumpUsers = setting('FAULTS_DUMP_USERS', 150_000);
const cloneCourses = setting('FAULTS_CLONE_COURSES', 20000);
const report = process.env.FAULTS_REPORT ?? 'docs/reliability.md';
const only = process.env.FAULTS_SCENARIOS?.split(',').map((s) => s.trim()).filter(Boolean);
/** A request with no answer by then hangs: the gateway must answer 503/504 at the RPC timeout. */
const hangMs = rpcTimeoutMs + 1000;

const log = (line) => process.stdout.write(`faults: ${line}\n`);
if (spawnSync(NATS_SERVER, ['--version']).status !== 0) {
  log(`no nats-server (${NATS_SERVER}): the fault suite needs one of its own${process.env.FAULTS_OPTIONAL === '1' ? '; skipped' : ''}`);
  process.exit(process.env.FAULTS_OPTIONAL === '1' ? 0 : 1);
}
process.on('exit', killAllNow);
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => process.exit(130));

const sql = async (url, text, values) => {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return (await c.query(text, values)).rows;
  } finally {
    await c.end();
  }
};

async function eventually(check, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value.done || Date.now() > deadline) return value;
    await sleep(250);
  }
}

/** Every e-mail the system sends (jobs-worker's notification delivery), by Message-ID: one per delivery. */
const mails = new Map();
const smtp = new SMTPServer({
  authOptional: true,
  disabledCommands: ['AUTH', 'STARTTLS'],
  logger: false,
  onData(stream, session, callback) {
    let text = '';
    stream.setEncoding('utf8');
    stream.on('data', (chunk) => (text += chunk));
    stream.on('end', () => {
      const id = /^Message-ID: (.*)$/im.exec(text)?.[1] ?? `(none ${mails.size})`;
      mails.set(id, (mails.get(id) ?? 0) + 1);
      callback();
    });
  },
});
smtp.on('error', () => undefined); // a client cut mid-session (its worker killed) must not stop the suite
const smtpPort = await freePort();
await new Promise((resolve) => smtp.listen(smtpPort, '127.0.0.1', resolve));

const started = performance.now();
const system = await startSystem({ rpcTimeoutMs, log, env: { SMTP_URL: `smtp://127.0.0.1:${smtpPort}`, SMTP_FROM: 'Faults <faults@example.test>' } });
const api = client({ baseUrl: system.gatewayUrl, token: system.token, hangMs });
/** Checks and set-up: their answers are not part of any scenario's figures. */
const probe = client({ baseUrl: system.gatewayUrl, token: system.token, hangMs: 10_000 });
const must = async (method, path, body) => {
  const res = await probe.call(method, path, body);
  if (res.status < 200 || res.status >= 300) throw new Error(`${method} ${path} answered ${res.status}: ${res.text.slice(0, 300)}`);
  return res.json;
};

const course = (await must('POST', '/api/author/course_templates', { course_templates: [{ title: 'Faults: completions', course_type: 'native', is_published: true, has_unpublished_changes: false, default_days_until_due: 14 }] })).course_templates[0];
const anchorUser = (await must('POST', '/api/admin/users', { users: [{ uid: 'faults-anchor', first_name: 'Anchor', last_name: 'User' }] })).users[0];
const lockVictim = (await must('POST', '/api/admin/users', { users: [{ uid: 'faults-row-lock', first_name: 'Locked', last_name: 'Row' }] })).users[0];
const probeCourse = (await must('POST', '/api/author/course_templates', { course_templates: [{ title: 'Faults: probe', course_type: 'native', is_published: false, has_unpublished_changes: true, default_days_until_due: 14 }] })).course_templates[0];
const shared = { run: seed, serial: 0, courseId: course.id, toUpdate: [], toEnroll: [], toLock: [] };

/** The first 2xx through the gateway of a request the faulted part serves. */
const probes = {
  gateway: ['GET', `/api/admin/users/${anchorUser.id}`],
  identity: ['GET', `/api/admin/users/${anchorUser.id}`],
  catalog: ['GET', `/api/author/course_templates/${probeCourse.id}`],
  scheduling: ['GET', '/api/author/live_courses'],
  locking: ['POST', `/api/author/course_templates/${probeCourse.id}/lock`],
  jobs: ['GET', '/api/admin/data_dumps'],
  write: ['POST', '/api/admin/users'],
};
async function firstSuccess([method, path], since, timeoutMs = 90_000) {
  let n = 0;
  while (performance.now() - since < timeoutMs) {
    const body = method === 'POST' && path === '/api/admin/users' ? { users: [{ uid: `faults-probe-${seed}-${Date.now()}-${(n += 1)}`, first_name: 'Probe', last_name: 'User' }] } : undefined;
    const res = await probe.call(method, path, body);
    if (res.status >= 200 && res.status < 300) return (performance.now() - since) / 1000;
    await sleep(50);
  }
  throw new Error(`${method} ${path} did not succeed within ${timeoutMs} ms`);
}

/** Acknowledged records that are not there, projections that disagree with their source, events left behind. */
async function verify(ledger, mailsBefore, window) {
  let lost = 0;
  const missing = [];
  const expectThere = async (what, path, ok) => {
    const res = await probe.call('GET', path);
    if (!(res.status === 200 && ok(res.json))) {
      lost += 1;
      missing.push(`${what} (${res.status})`);
    }
  };
  for (const [id, uid] of ledger.users) await expectThere(`user ${id}`, `/api/admin/users/${id}`, (b) => b.users[0].uid === uid);
  for (const [id, value] of ledger.updates) await expectThere(`update of user ${id}`, `/api/admin/users/${id}`, (b) => b.users[0].first_name === value);
  for (const [id, title] of ledger.courses) await expectThere(`course ${id}`, `/api/author/course_templates/${id}`, (b) => b.course_templates[0].title === title);
  for (const [id, title] of ledger.liveCourses) await expectThere(`live course ${id}`, `/api/author/live_courses/${id}`, (b) => b.live_courses[0].title === title);
  for (const [id] of ledger.locks) await expectThere(`lock of course ${id}`, `/api/author/course_templates/${id}/lock`, (b) => Boolean(b.lock.holder_id));

  // Catalog's enrollments are the truth; identity's summary is projected from their events, once each.
  const complete = new Set();
  for (let page = 1; ; page += 1) {
    const body = await must('GET', `/api/author/course_templates/${shared.courseId}/enrollments?state=complete&per_page=1000&page=${page}`);
    for (const e of body.enrollments) complete.add(String(e.links.learner.id));
    if (body.enrollments.length < 1000) break;
  }
  for (const [id, acknowledged] of ledger.completions) {
    if (acknowledged && !complete.has(String(id))) {
      lost += 1;
      missing.push(`completion of user ${id}`);
    }
  }
  const projection = await eventually(async () => {
    let duplicates = 0;
    let behind = 0;
    for (const [id] of ledger.completions) {
      const counted = (await must('GET', `/api/admin/users/${id}/summary`)).summary.completed_courses;
      const truth = complete.has(String(id)) ? 1 : 0;
      if (counted > truth) duplicates += counted - truth;
      if (counted < truth) behind += truth - counted;
    }
    return { done: duplicates === 0 && behind === 0, duplicates, behind };
  });

  // Every outbox drained and every JetStream consumer caught up.
  const schemas = (await sql(system.databaseUrl, "SELECT table_schema FROM information_schema.tables WHERE table_name = 'outbox'")).map((r) => r.table_schema);
  const events = await eventually(async () => {
    const behind = [];
    for (const schema of schemas) {
      const n = (await sql(system.databaseUrl, `SELECT count(*)::int AS n FROM "${schema}".outbox WHERE published_at IS NULL`))[0].n;
      if (n > 0) behind.push([`${schema} outbox`, n]);
    }
    const jsz = await fetch(`${system.natsMonitorUrl}/jsz?consumers=true`).then((r) => r.json());
    for (const account of jsz.account_details ?? []) {
      for (const stream of account.stream_detail ?? []) {
        for (const consumer of stream.consumer_detail ?? []) {
          const n = consumer.num_pending + consumer.num_ack_pending;
          if (n > 0) behind.push([`consumer ${consumer.name}`, n]);
        }
      }
    }
    const stranded = behind.reduce((sum, [, n]) => sum + n, 0);
    return { done: stranded === 0, stranded, behind };
  });
  for (const [where, n] of events.behind) missing.push(`${n} event(s) stranded in ${where}`);
  // E-mail: every delivery recorded sent reached the SMTP server, and each once (a resend has its Message-ID).
  const sent = await sql(system.databaseUrl, "SELECT id FROM jobs.notification_deliveries WHERE channel = 'email' AND status = 'sent'");
  const received = new Set([...mails.keys()].map((key) => /^<delivery-([^@]+)@/.exec(key)?.[1]));
  for (const { id } of sent) {
    if (!received.has(String(id))) {
      lost += 1;
      missing.push(`e-mail of delivery ${id}`);
    }
  }
  const mail = await mailResends(mailsBefore, window);
  missing.push(...mail.unexplained);
  return { lost, missing, duplicates: projection.duplicates + mail.duplicates, resent: mail.resent, stranded: events.stranded + projection.behind };
}

/**
 * E-mails received again during this scenario. SMTP has no idempotency key, so a sender killed between the
 * server's acceptance and its commit of `sent` sends that message again (docs/jobs.md, "the window"). Such a
 * resend is counted apart, and only where the fault can open the window (`window`: the scenario killed the
 * worker or Postgres) and the message was received no more often than its delivery was claimed; any other
 * second copy is a duplicate.
 */
async function mailResends(before, window) {
  const again = new Map();
  for (const [key, count] of mails) {
    const n = Math.max(0, count - 1) - Math.max(0, (before.get(key) ?? 0) - 1);
    if (n > 0) again.set(key, n);
  }
  if (again.size === 0) return { resent: 0, duplicates: 0, unexplained: [] };
  const idOf = (key) => /^<delivery-(\d+)@/.exec(key)?.[1];
  const ids = [...again.keys()].map(idOf).filter(Boolean);
  const rows = await sql(system.databaseUrl, 'SELECT id::text AS id, attempts FROM jobs.notification_deliveries WHERE id = ANY($1::bigint[])', [ids]);
  const attempts = new Map(rows.map((r) => [r.id, r.attempts]));
  let resent = 0;
  let duplicates = 0;
  const unexplained = [];
  for (const [key, n] of again) {
    const claims = attempts.get(idOf(key)) ?? 0;
    if (window && mails.get(key) <= claims) resent += n;
    else {
      duplicates += n;
      unexplained.push(`e-mail ${key} received ${mails.get(key)} times, claimed ${claims} times`);
    }
  }
  return { resent, duplicates, unexplained };
}

/** Runs the load for `loadMs`, with `fault` in its middle; answers the scenario's figures. */
async function scenario(name, fault) {
  const ledger = newLedger();
  const mailsBefore = new Map(mails);
  api.nextTally();
  let stopping = false;
  const rand = random(seed + name.length);
  const load = runMixedLoad({ api, ledger, shared, rand, concurrency, stop: () => stopping });
  await sleep(loadMs / 2);
  const extra = {};
  let recovery;
  let failure;
  try {
    recovery = await fault(extra);
  } catch (err) {
    failure = err instanceof Error ? err.message : String(err);
  }
  await sleep(loadMs / 2);
  stopping = true;
  await load;
  const tally = api.nextTally();
  const checked = await verify(ledger, mailsBefore, /jobs-worker|postgres/.test(name));
  const row = { scenario: name, requests: tally.requests, errors: tally.errors() || 'none', lost: checked.lost, duplicates: checked.duplicates + (extra.duplicates ?? 0), resent: checked.resent, hangs: tally.hangs, stranded: checked.stranded, recovery, failure: failure ?? extra.failure, missing: checked.missing };
  log(`${name}: ${row.requests} requests (${row.errors}), lost ${row.lost}, duplicates ${row.duplicates}, e-mails resent ${row.resent}, hangs ${row.hangs}, stranded ${row.stranded}, recovery ${recovery?.toFixed(1) ?? '-'} s${row.failure ? `; FAILED: ${row.failure}` : ''}${row.missing.length ? `; missing: ${row.missing.slice(0, 5).join(', ')}` : ''}`);
  if (process.env.FAULTS_VERBOSE) for (const [kind, sample] of Object.entries(tally.samples)) log(`  ${kind}: ${sample}`);
  // A consumer left behind: the last words of the deployable it belongs to say why.
  for (const where of row.missing) {
    const consumer = /stranded in consumer (\S+)/.exec(where)?.[1];
    const owner = consumer && [...DEPLOYABLES].sort((a, b) => b.length - a.length).find((d) => consumer.startsWith(d));
    if (owner) log(`  ${owner}'s last output:\n${system.output(owner).slice(-3000)}`);
  }
  return row;
}

const killAndRestart = (name) => async () => {
  const since = performance.now();
  await system.kill(name);
  const handle = system.start(name);
  await waitReady(handle, system.readyUrl(name));
  return name === 'jobs-worker' ? (performance.now() - since) / 1000 : firstSuccess(probes[name], since);
};

async function rowLockPastTimeout(extra) {
  const holder = new pg.Client({ connectionString: system.databaseUrl });
  await holder.connect();
  try {
    await holder.query('BEGIN');
    await holder.query('SELECT 1 FROM identity.users WHERE id = $1 FOR UPDATE', [Number(lockVictim.id)]);
    const before = performance.now();
    const answers = await Promise.all([1, 2, 3].map((n) => api.call('PATCH', `/api/admin/users/${lockVictim.id}`, { user: { first_name: `Blocked ${n}` } })));
    const waited = performance.now() - before;
    const statuses = answers.map((a) => a.status);
    if (!statuses.every((s) => s === 503 || s === 504)) extra.failure = `writes behind the row lock answered ${statuses.join(', ')} (expected 503 or 504)`;
    if (waited > hangMs) extra.failure = `writes behind the row lock took ${Math.round(waited)} ms`;
    await sleep(Math.max(0, rpcTimeoutMs + 2000 - (performance.now() - before)));
  } finally {
    await holder.query('ROLLBACK').catch(() => undefined);
    await holder.end();
  }
  const since = performance.now();
  return firstSuccess(['GET', `/api/admin/users/${lockVictim.id}`], since);
}

async function workerKilledMidDump(extra) {
  await sql(
    system.databaseUrl,
    `INSERT INTO identity.users (account_id, uid, first_name, last_name, email)
     SELECT a.id, 'faults-dump-' || n, 'Dump', 'Row' || n, 'dump' || n || '@example.com'
       FROM identity.accounts a, generate_series(1, $1) AS n WHERE a.subdomain = 'default'
     ON CONFLICT DO NOTHING`,
    [dumpUsers],
  );
  const since = performance.now();
  await must('POST', '/api/admin/data_dumps');
  const running = await eventually(async () => {
    const rows = await sql(system.databaseUrl, "SELECT id, status, attempts FROM jobs.jobs WHERE kind = 'data_dump' ORDER BY created_at DESC LIMIT 1");
    return { done: rows[0]?.status === 'running' || rows[0]?.status === 'done', job: rows[0] };
  }, 30_000);
  if (running.job?.status !== 'running') throw new Error(`the dump was ${running.job?.status ?? 'not found'} before its worker could be killed`);
  await system.kill('jobs-worker');
  await waitReady(system.start('jobs-worker'), system.readyUrl('jobs-worker'));
  const finished = await eventually(async () => {
    const rows = await sql(system.databaseUrl, 'SELECT status, attempts, file_key FROM jobs.jobs WHERE id = $1', [running.job.id]);
    return { done: rows[0]?.status === 'done' || rows[0]?.status === 'failed', job: rows[0] };
  }, 120_000);
  const seconds = (performance.now() - since) / 1000;
  if (finished.job?.status !== 'done') throw new Error(`the dump ended ${finished.job?.status ?? 'nowhere'}`);
  if (finished.job.attempts < 2) extra.failure = 'the dump finished in its first attempt: the worker was not killed mid-run';
  // Complete dumps from this POST on (a dump an earlier one replaced stays until the retention sweep).
  const dumps = (
    await sql(system.databaseUrl, "SELECT count(*)::int AS n FROM jobs.jobs WHERE kind = 'data_dump' AND status = 'done' AND created_at >= (SELECT created_at FROM jobs.jobs WHERE id = $1)", [running.job.id])
  )[0].n;
  extra.duplicates = dumps - 1;
  const download = await probe.call('GET', '/api/admin/data_dumps/download');
  if (download.status !== 302) extra.failure = `the dump's download answered ${download.status}`;
  // One file: the one its row names (the killed attempt's, at a key of its own, is not left beside it).
  const files = await filesOfJob(running.job.id);
  if (files.join() !== finished.job.file_key) extra.failure = `the dump left ${files.length} files (${files.join(', ')}), its row names ${finished.job.file_key}`;
  return seconds;
}

/** The job's objects in the system's file bucket. */
async function filesOfJob(id) {
  const nc = await connect({ servers: system.natsUrl });
  try {
    const store = await new Objm(nc).open('FILES');
    return (await store.list()).filter((o) => o.name.startsWith(`jobs/${id}/`)).map((o) => o.name);
  } finally {
    await nc.close();
  }
}

async function workerKilledMidClone(extra) {
  // A sub-account owning enough course templates that copying them outlasts the kill.
  const [{ id: accountId }] = await sql(system.databaseUrl, "SELECT id FROM identity.accounts WHERE subdomain = 'default'");
  const [{ id: sourceId }] = await sql(system.databaseUrl, "INSERT INTO identity.sub_accounts (account_id, name) VALUES ($1, 'Faults clone source') RETURNING id", [accountId]);
  await sql(
    system.databaseUrl,
    `INSERT INTO catalog.course_templates (account_id, sub_account_id, author_id, title, course_type, external_status)
     SELECT $1, $2, $3, 'Faults clone ' || n, 'native', 'inapplicable' FROM generate_series(1, $4) AS n`,
    [accountId, sourceId, Number(anchorUser.id), cloneCourses],
  );
  const since = performance.now();
  const created = await must('POST', '/api/admin/clone_objects', { clone_objects: [{ source_id: sourceId, source_type: 'SubAccount', options: { subdomain: `faults-clone-${seed}`, name: 'Faults clone' } }] });
  const cloneId = created.clone_objects[0].id;
  const running = await eventually(async () => {
    const rows = await sql(system.databaseUrl, "SELECT id, status FROM jobs.jobs WHERE kind = 'clone_object' ORDER BY created_at DESC LIMIT 1");
    return { done: rows[0]?.status === 'running' || rows[0]?.status === 'done', job: rows[0] };
  }, 30_000);
  if (running.job?.status !== 'running') throw new Error(`the clone was ${running.job?.status ?? 'not found'} before its worker could be killed`);
  await system.kill('jobs-worker');
  await waitReady(system.start('jobs-worker'), system.readyUrl('jobs-worker'));
  const finished = await eventually(async () => {
    const clone = (await must('GET', `/api/admin/clone_objects/${cloneId}`)).clone_objects[0];
    return { done: clone.state === 'complete' || clone.state === 'failed', clone };
  }, 120_000);
  const seconds = (performance.now() - since) / 1000;
  if (finished.clone.state !== 'complete') throw new Error(`the clone ended ${finished.clone.state}: ${finished.clone.error_messages.join('; ')}`);
  const [{ attempts }] = await sql(system.databaseUrl, 'SELECT attempts FROM jobs.jobs WHERE id = $1', [running.job.id]);
  if (attempts < 2) extra.failure = 'the clone finished in its first attempt: the worker was not killed mid-run';
  const copies = (await sql(system.databaseUrl, 'SELECT count(*)::int AS n FROM catalog.course_templates WHERE sub_account_id = $1', [Number(finished.clone.destination_id)]))[0].n;
  const subAccounts = (await sql(system.databaseUrl, 'SELECT count(*)::int AS n FROM identity.sub_accounts WHERE subdomain = $1', [`faults-clone-${seed}`]))[0].n;
  extra.duplicates = Math.max(0, copies - cloneCourses) + Math.max(0, subAccounts - 1);
  if (copies < cloneCourses) extra.failure = `the clone holds ${copies} of ${cloneCourses} course templates`;
  return seconds;
}

const scenarios = [
  ...DEPLOYABLES.map((name) => [`kill -9 ${name}`, killAndRestart(name)]),
  ['restart nats-server', async () => {
    const since = performance.now();
    await system.restartNats();
    return firstSuccess(probes.identity, since);
  }],
  ['restart postgres (crash)', async () => {
    const since = performance.now();
    await system.restartPostgres();
    return firstSuccess(probes.write, since);
  }],
  ['row lock past the RPC timeout', rowLockPastTimeout],
  ['kill -9 jobs-worker mid data dump', workerKilledMidDump],
  ['kill -9 jobs-worker mid clone', workerKilledMidClone],
].filter(([name]) => !only || only.some((o) => name.includes(o)));

const rows = [];
let exitCode = 0;
try {
  for (const [name, fault] of scenarios) rows.push(await scenario(name, fault));
} catch (err) {
  console.error(`faults: the suite stopped: ${err instanceof Error ? err.stack : err}`);
  exitCode = 1;
} finally {
  await system.close();
  smtp.close();
}

const failed = rows.filter((r) => r.lost || r.duplicates || r.hangs || r.stranded || r.failure || r.recovery === undefined);
if (failed.length > 0) exitCode = 1;
const seconds = ((performance.now() - started) / 1000).toFixed(0);
log(`${rows.length} scenarios in ${seconds} s, ${failed.length} failed; ${mails.size} e-mails received`);

const TABLE_HEAD = '| scenario | requests | errors by kind | lost | duplicates | e-mails resent | hangs | stranded | recovery s |\n|---|---|---|---|---|---|---|---|---|';
const table = rows.map((r) => `| ${r.scenario} | ${r.requests} | ${r.errors} | ${r.lost} | ${r.duplicates} | ${r.resent} | ${r.hangs} | ${r.stranded} | ${r.recovery?.toFixed(1) ?? '-'} |${r.failure ? ` ${r.failure}` : ''}`);
if (rows.length > 0) log(`\n${TABLE_HEAD}\n${table.join('\n')}`);
if (report !== '-' && rows.length > 0) {
  writeFileSync(
    report,
    `# Reliability under faults

Written by \`npm run test:faults\` (faults/run.mjs), which \`npm test\` runs last: the deployables as separate
processes on their own Postgres (embedded, on a free port) and nats-server (JetStream, file storage), a
mixed load through the gateway (users created, updated and read; courses, live courses and locks created;
enrollments completed, which identity's user summary counts from catalog's events), and during it one
fault at a time. After each, the suite checks every acknowledged (2xx) write through the API, compares
each summary with catalog's enrollments, waits for every outbox and JetStream consumer to drain, and
fails on any loss, duplicate, hang or stranded event.

- **errors**: answers other than 2xx during the scenario, by status; \`refused\` is a connection refused or
  cut (the gateway itself was down). A write answered 503 or 504 may or may not have happened (the caller
  retries with an \`Idempotency-Key\`: docs/idempotency.md); it is never counted as acknowledged.
- **lost**: acknowledged writes missing afterwards, and e-mails recorded sent that never reached the SMTP
  server. **duplicates**: summary counts above the completions made, dumps done more than once (and the
  killed dump must leave one file, the one its row names), clones copied twice, and e-mails received more
  than once outside the window below. **e-mails resent**: messages
  received again because the scenario killed their sender (the worker, or Postgres before the \`sent\`
  commit) after the SMTP server accepted them: SMTP has no idempotency key, so notification e-mail is at
  least once (docs/jobs.md, "the window"); each resend keeps its delivery's Message-ID and was claimed once
  per copy, which the suite checks, and is not a failure. **hangs**: requests with no answer by the RPC timeout plus 1 s.
  **stranded**: events still in an outbox or unacknowledged by a consumer 30 s after the scenario, plus
  completions the summary never counted.
- **recovery**: seconds from the kill or restart to the first 2xx of a request the faulted part serves
  (the jobs worker: to ready; the dump and the clone: to done).

Last run: seed ${seed}, ${loadMs / 1000} s of load around each fault at ${concurrency} connections, RPC timeout
${rpcTimeoutMs} ms, a dump of ${dumpUsers.toLocaleString('en')} extra users, a clone of ${cloneCourses.toLocaleString('en')} course templates;
every enrollment the load makes e-mails its learner through a real SMTP server (${mails.size.toLocaleString('en')} e-mails in this run); ${seconds} s in all, on ${process.env.CI ? 'CI' : 'a developer machine'}.

${TABLE_HEAD}
${table.join('\n')}
`,
  );
  log(`table written to ${report}`);
}
process.exit(exitCode);
