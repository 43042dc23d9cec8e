// `npm run bench`: throughput and p50/p99 latency of GET /api/author/custom_fields/:id and of a create,
// through the gateway with every deployable in one process and with each in its own process, beside a raw
// node:http + pg handler doing the same database work, all in one run on the same machine; prints each
// ratio to the raw baseline and writes bench/results/latest.json. Real Postgres and NATS, loopback only.
// Each topology's row and its raw row are measured in alternating windows (measurePaired).
//
// Settings (environment): BENCH_DATABASE_URL, BENCH_NATS_URL, BENCH_CONCURRENCY (8),
// BENCH_DURATION_S (10, per measurement), BENCH_WARMUP_S (3), BENCH_MAX_REQUESTS (1000000 per measurement),
// BENCH_PROBE_S (5: seconds of the extra one-connection latency pass; 0 skips it), BENCH_WINDOWS (4: raw and
// topology windows alternate this many times within a row's duration), BENCH_WIDE_CONCURRENCY (50: connections
// of the p99-under-load read row), BENCH_OPEN_RATE (1000: reads a second of the open-loop row; 0 skips it),
// BENCH_CATALOG_COURSES (100000: course templates the catalog list rows run over; 0 skips them).
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { connect } from '@nats-io/transport-node';
import pg from 'pg';
import { bootstrapAccountId, createBenchDatabase, deleteNamespaceStreams, seedUsers, uniqueName, waitOutboxDrained } from './infra.mjs';
import { checkFloors, readFloors } from './floors.mjs';
import { benchCatalogLists } from './catalog-lists.mjs';
import { benchCourseEnrollments } from './catalog-enrollments.mjs';
import { combineLoads, requestJson, runLoad } from './load.mjs';
import { cpuTimeMs, infrastructureCpuMs, killAllNow, liveChildren, residentMiB, stopChildren, waitQuiet } from './processes.mjs';
import { benchEventDelivery, formatEventTable } from './event-delivery.mjs';
import { againstBare, byOperation, errorSummary, formatTable, rowLabel, withRatios, writeJson } from './report.mjs';
import { missingBuildOutputs, startAllInOne, startBare, startEmbedded, startRaw, startSeparate } from './topologies.mjs';

function intSetting(name, fallback, min, max) {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) throw new Error(`${name} must be an integer from ${min} to ${max}, got "${raw}"`);
  return value;
}

// `--check`: a short run whose ratios must stay above the floors written in docs/performance.md.
const CHECK = process.argv.includes('--check');
const settings = {
  databaseServerUrl: process.env.BENCH_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres',
  natsUrl: process.env.BENCH_NATS_URL || 'nats://127.0.0.1:4222',
  concurrency: intSetting('BENCH_CONCURRENCY', 8, 1, 256),
  durationS: intSetting('BENCH_DURATION_S', CHECK ? 4 : 10, 1, 120),
  warmupS: intSetting('BENCH_WARMUP_S', CHECK ? 2 : 3, 0, 60),
  maxRequests: intSetting('BENCH_MAX_REQUESTS', 1_000_000, 1, 10_000_000),
  probeS: intSetting('BENCH_PROBE_S', CHECK ? 0 : 5, 0, 60),
  /** Alternating pairs of raw and topology windows a paired row's duration is split into (measurePaired). */
  windows: intSetting('BENCH_WINDOWS', CHECK ? 2 : 4, 1, 20),
  /** Connections of the read row that shows p99 under load (0 skips it). */
  wideConcurrency: intSetting('BENCH_WIDE_CONCURRENCY', CHECK ? 0 : 50, 0, 256),
  /** Reads a second of the open-loop row: the latency users see at a given traffic, not at saturation (0 skips it). */
  openRate: intSetting('BENCH_OPEN_RATE', CHECK ? 0 : 1000, 0, 100_000),
  /** Users seeded for the users-list rows (0 skips them), and `next` hops to the deep page. */
  users: intSetting('BENCH_USERS', CHECK ? 0 : 100_000, 0, 1_000_000),
  hops: intSetting('BENCH_HOPS', 1000, 1, 100_000),
  /** Measure idle memory and time to ready of the embedded all-in-one (1) or not (0). */
  memory: intSetting('BENCH_MEMORY', CHECK ? 0 : 1, 0, 1),
  catalogCourses: intSetting('BENCH_CATALOG_COURSES', CHECK ? 0 : 100_000, 0, 1_000_000),
  courseEnrollments: intSetting('BENCH_COURSE_ENROLLMENTS', CHECK ? 0 : 100_000, 0, 1_000_000),
};
const RESULTS_FILE = fileURLToPath(new URL('./results/latest.json', import.meta.url));
// The whole run is bounded: whatever hangs, children are stopped and the run ends. A full run takes 10-15
// minutes on a slow 2-core machine (most of it the list, memory and event-delivery rows).
const WATCHDOG_MS = 25 * 60_000;

const log = (message) => process.stderr.write(`bench: ${message}\n`);

const missing = missingBuildOutputs();
if (missing.length > 0) {
  log(`build outputs missing (run \`npm run build\` first):\n  ${missing.join('\n  ')}`);
  process.exit(1);
}
if (Number(process.versions.node.split('.')[0]) < 22) log(`warning: node ${process.version}; the services need node >= 22 (npm scripts run node_modules/.bin/node)`);

async function serverVersions() {
  const client = new pg.Client({ connectionString: settings.databaseServerUrl });
  await client.connect();
  const postgres = (await client.query('SHOW server_version')).rows[0].server_version;
  await client.end();
  const nc = await connect({ servers: settings.natsUrl, timeout: 5_000 });
  const nats = nc.info?.version;
  await nc.close();
  return { postgres, nats };
}

/** One field created the way the measured creates are, then read back: proves the path answers correctly. */
async function seed(topology, tag) {
  const headers = { ...topology.headers };
  const created = await requestJson(topology.baseUrl + topology.createPath, { method: 'POST', headers, body: { custom_fields: [{ name: `bench-seed-${tag}` }] } });
  if (created.status !== 201) throw new Error(`${topology.name}: seeding create answered ${created.status}: ${created.text.slice(0, 500)}`);
  const field = created.json.custom_fields[0];
  const read = await requestJson(topology.baseUrl + topology.readPath(field.id), { headers });
  if (read.status !== 200) throw new Error(`${topology.name}: reading the seeded field answered ${read.status}: ${read.text.slice(0, 500)}`);
  const expected = JSON.stringify({ meta: {}, custom_fields: [{ id: field.id, name: `bench-seed-${tag}` }] });
  if (JSON.stringify(read.json) !== expected) throw new Error(`${topology.name}: read answered ${read.text}, expected ${expected}`);
  return field.id;
}

/** The load of one pass on one target; `tag` keeps the names a create sends unique across windows. */
const loadOptions = (target, load, pass, tag) => ({
  concurrency: pass.concurrency,
  ratePerS: pass.ratePerS,
  maxRequests: settings.maxRequests,
  headers: target.headers,
  ...load,
  body: (seq) => load.body?.(`${pass.tag}${tag}${seq}`),
});

/** One measured window: the load's result, and the CPU the target's processes, the NATS server and Postgres spent meanwhile. */
async function measureWindow(target, load, pass, tag, durationS) {
  const cpuBefore = cpuTimeMs(target.handles);
  const infraBefore = infrastructureCpuMs();
  const result = await runLoad({ ...loadOptions(target, load, pass, tag), durationMs: durationS * 1000 });
  const cpuAfter = cpuTimeMs(target.handles);
  const infraAfter = infrastructureCpuMs();
  const spent = (after, before) => (before === undefined || after === undefined ? NaN : after - before);
  return { result, cpuMs: spent(cpuAfter, cpuBefore), natsMs: spent(infraAfter.nats, infraBefore.nats), postgresMs: spent(infraAfter.postgres, infraBefore.postgres) };
}

/** The row of a target's measured windows (one or several, combined), with its warm-up's errors. */
function rowOf(target, operation, pass, windows, warmup, extra = {}) {
  const result = combineLoads(windows.map((w) => w.result));
  const perRequest = (field) => (result.ok === 0 ? NaN : windows.reduce((sum, w) => sum + w[field], 0) / result.ok);
  const row = {
    topology: target.name,
    ...extra,
    operation,
    concurrency: pass.concurrency,
    ...result,
    windows: windows.length,
    // Server processes only: Postgres and NATS work is not in it (the raw baseline does the same SQL).
    serverCpuMsPerRequest: perRequest('cpuMs'),
    // What each answer costs the NATS server and Postgres too: on a machine they share, the sum bounds req/s.
    natsCpuMsPerRequest: perRequest('natsMs'),
    postgresCpuMsPerRequest: perRequest('postgresMs'),
    warmupErrors: warmup?.errors ?? 0,
    warmupErrorsByKind: warmup?.errorsByKind ?? {},
    warmupSampleError: warmup?.sampleError,
  };
  log(`${rowLabel(row)} / ${operation}: ${result.rps.toFixed(0)} req/s, p50 ${result.p50Ms.toFixed(2)} ms, p99 ${result.p99Ms.toFixed(2)} ms, ${result.errors} errors; server CPU ${row.serverCpuMsPerRequest.toFixed(3)} ms/request (NATS server ${row.natsCpuMsPerRequest.toFixed(3)}, Postgres ${row.postgresCpuMsPerRequest.toFixed(3)}), load generator ${result.clientCpuPct.toFixed(0)}% of a core`);
  return row;
}

const warmUp = (target, load, pass) => (pass.warmupS > 0 ? runLoad({ ...loadOptions(target, load, pass, 'w'), durationMs: pass.warmupS * 1000 }) : undefined);

/** Warm-up (discarded), then the measurement, of one operation on one topology (rows with no raw counterpart). */
async function measure(topology, operation, load, pass) {
  const warmup = await warmUp(topology, load, pass);
  return rowOf(topology, operation, pass, [await measureWindow(topology, load, pass, 'm', pass.durationS)], warmup);
}

/**
 * A topology's row and the raw baseline's row for the same operation, measured in alternating windows
 * (raw, topology, topology, raw, …; `settings.windows` pairs sharing the pass's duration). This machine's speed
 * drifts by a quarter within a minute or two (raw reads alone: 8,000 to 12,500 a second in consecutive 5 s
 * windows), and a ratio of two rows measured minutes apart carried that drift; interleaved, it weighs on both.
 * A row starts once the machine is quiet (whatever ran before it: seeding, a start-up, the last row), and before
 * each window of a write the topology's relay finishes its backlog and the machine goes quiet again (consumers,
 * autovacuum), so no window pays for another's aftermath.
 */
async function measurePaired(topology, raw, operation, loads, pass, databaseUrl) {
  const handles = [...topology.handles, ...raw.handles];
  if (!(await waitQuiet(handles, { timeoutMs: 30_000 }))) log(`warning: the machine was still busy 30 s before ${topology.name} / ${operation}`);
  const warmups = [await warmUp(topology, loads.topology, pass), await warmUp(raw, loads.raw, pass)];
  const windows = { topology: [], raw: [] };
  const seconds = pass.durationS / settings.windows;
  for (let i = 0; i < settings.windows; i++) {
    for (const side of i % 2 === 0 ? ['raw', 'topology'] : ['topology', 'raw']) {
      if (loads.topology.method === 'POST') {
        const left = await waitOutboxDrained(databaseUrl);
        if (left > 0) log(`warning: ${left} outbox events still unpublished before ${topology.name} / ${operation}`);
        if (!(await waitQuiet(handles))) log(`warning: the machine was still busy before a window of ${operation}`);
      }
      const target = side === 'raw' ? raw : topology;
      windows[side].push(await measureWindow(target, loads[side], pass, `${side[0]}${i}m`, seconds));
    }
  }
  return [rowOf(topology, operation, pass, windows.topology, warmups[0]), rowOf(raw, operation, pass, windows.raw, warmups[1], { pairedWith: topology.name })];
}

/**
 * The loaded pass (N connections: throughput, and latency under saturation), then, unless disabled, one
 * connection (latency of the path itself, without queueing); the topology is already warm by then.
 */
const passes = () => [
  { tag: 'n', suffix: '', concurrency: settings.concurrency, durationS: settings.durationS, warmupS: settings.warmupS, operations: ['read', 'create'] },
  ...(settings.probeS > 0 ? [{ tag: 'p', suffix: ', 1 conn', concurrency: 1, durationS: settings.probeS, warmupS: 0, operations: ['read', 'create'] }] : []),
  ...(settings.wideConcurrency > 0
    ? [{ tag: 'w', suffix: `, ${settings.wideConcurrency} conns`, concurrency: settings.wideConcurrency, durationS: settings.durationS, warmupS: 2, operations: ['read'] }]
    : []),
  // Open loop: the same rate for every topology and raw; up to 64 sockets, so a slow answer does not hold the next request back.
  ...(settings.openRate > 0
    ? [{ tag: 'f', suffix: `, ${settings.openRate}/s open loop`, concurrency: 64, ratePerS: settings.openRate, durationS: settings.durationS, warmupS: 2, operations: ['read'] }]
    : []),
];

const USERS_PATH = `/api/admin/users?per_page=50`;

/** The `next` URL of a Link header (absolute), as a path of the topology's base URL. */
const nextLink = (link) => {
  const url = /<([^>]*)>; rel="next"/.exec(link ?? '')?.[1];
  if (!url) return undefined;
  const { pathname, search } = new URL(url, 'http://base.invalid');
  return pathname + search;
};

/** Follows `next` from the first page of the users list `hops` times; answers the page reached. */
async function deepUsersPage(topology, hops) {
  let path = USERS_PATH;
  for (let i = 0; i < hops; i++) {
    const answer = await fetch(topology.baseUrl + path, { headers: topology.headers });
    if (answer.status !== 200) throw new Error(`${topology.name}: ${path} answered ${answer.status}: ${(await answer.text()).slice(0, 300)}`);
    await answer.arrayBuffer();
    const next = nextLink(answer.headers.get('link'));
    if (!next) throw new Error(`${topology.name}: no next link after ${i + 1} pages of ${USERS_PATH}`);
    path = next;
  }
  return path;
}

/** The users list, 1 connection: its first page, and the page reached after `hops` next links. */
async function benchUsersList(topology) {
  const rows = [];
  const deep = await deepUsersPage(topology, settings.hops);
  for (const [operation, path] of [['users list p1', USERS_PATH], [`users list, ${settings.hops} nexts deep`, deep]]) {
    rows.push(await measure(topology, operation, { url: topology.baseUrl + path, method: 'GET' }, { tag: 'u', concurrency: 1, durationS: settings.probeS || 5, warmupS: 1 }));
  }
  return rows;
}

/** The read and create of a target (`tag` keeps its creates' names apart), on the field `id`. */
const operationsOf = (target, tag, id) => ({
  read: { url: target.baseUrl + target.readPath(id), method: 'GET' },
  create: {
    url: target.baseUrl + target.createPath,
    method: 'POST',
    headers: { ...target.headers, 'content-type': 'application/json' },
    body: (seq) => `{"custom_fields":[{"name":"bench-${tag}-${seq}"}]}`,
  },
});

/** Every pass of the read and the create on `topology`, each beside the raw baseline (measurePaired), then its users list. */
async function benchTopology(topology, tag, raw, databaseUrl) {
  const ops = operationsOf(topology, tag, await seed(topology, tag));
  const rawOps = operationsOf(raw, `raw-${tag}`, await seed(raw, `raw-${tag}`));
  const rows = [];
  for (const pass of passes()) {
    for (const operation of ['read', 'create'].filter((name) => pass.operations.includes(name))) {
      rows.push(...(await measurePaired(topology, raw, operation + pass.suffix, { topology: ops[operation], raw: rawOps[operation] }, pass, databaseUrl)));
    }
  }
  if (settings.users > 0) rows.push(...(await benchUsersList(topology)));
  return rows;
}

/**
 * The read on the bare path (startBare: the separate processes' hops with nothing of ours on them) beside the
 * raw baseline, at the loaded pass's connections: the floor the separate processes' read is measured against.
 */
async function benchBare(raw, databaseUrl, namespace) {
  const bare = await startBare({ databaseUrl, natsUrl: settings.natsUrl, namespace, accountId: await bootstrapAccountId(databaseUrl) });
  try {
    const id = await seed(raw, 'raw-bare');
    const read = await requestJson(bare.baseUrl + bare.readPath(id));
    const expected = JSON.stringify({ meta: {}, custom_fields: [{ id: String(id), name: 'bench-seed-raw-bare' }] });
    if (read.status !== 200 || JSON.stringify(read.json) !== expected) throw new Error(`${bare.name}: read answered ${read.status} ${read.text}, expected ${expected}`);
    const loads = { topology: { url: bare.baseUrl + bare.readPath(id), method: 'GET' }, raw: { url: raw.baseUrl + raw.readPath(id), method: 'GET' } };
    return await measurePaired(bare, raw, 'read', loads, passes()[0], databaseUrl);
  } finally {
    await bare.close();
  }
}

/**
 * Quiet time before idle memory is read: every deployable gives a load peak's memory back after six quiet
 * 5 s windows in a row (trimHeapWhenIdle), so idle is what a process holds 38 s after its last request (the
 * window the last request fell in, six quiet ones, and a margin).
 */
const IDLE_AFTER_MS = 38_000;

/** CPU an idle process still uses (timers, pollers, metrics), measured after its memory was read. */
const IDLE_CPU_MS = 10_000;

/**
 * Idle resident memory of each process of a topology (after its load and IDLE_AFTER_MS of quiet), then
 * their CPU over IDLE_CPU_MS more of quiet (ms a second), and the topology's time to ready.
 */
async function idleMemory(topology) {
  await sleep(IDLE_AFTER_MS);
  const processes = topology.handles.map((handle) => ({ name: handle.name, rssMiB: residentMiB([handle]) }));
  const totalMiB = residentMiB(topology.handles);
  const totalPssMiB = residentMiB(topology.handles, 'pss');
  const cpuBefore = topology.handles.map((handle) => cpuTimeMs([handle]));
  await sleep(IDLE_CPU_MS);
  topology.handles.forEach((handle, i) => {
    const after = cpuTimeMs([handle]);
    processes[i].idleCpuMsPerS = after === undefined || cpuBefore[i] === undefined ? undefined : ((after - cpuBefore[i]) * 1000) / IDLE_CPU_MS;
  });
  return { topology: topology.name, readyMs: topology.readyMs, processes, totalMiB, totalPssMiB };
}

const started = new Date();
// Other work on the machine moves the numbers; the load averages say how quiet it was.
const loadBefore = os.loadavg();
const token = `bench_${randomBytes(24).toString('hex')}`;
const runId = uniqueName('bench');
const namespaces = { allInOne: `${runId}_aio`, separate: `${runId}_sep`, bare: `${runId}_bare` };
let database;
let exitCode = 0;

// Nothing the run started may outlive it, however it ends: processes, the database, the NATS streams.
let cleaning;
const cleanup = () =>
  (cleaning ??= (async () => {
    await stopChildren(liveChildren());
    await database?.drop().catch((err) => log(`could not drop ${database.name}: ${err.message}`));
    await deleteNamespaceStreams(settings.natsUrl, Object.values(namespaces)).catch((err) => log(`could not delete the run's NATS streams: ${err.message}`));
  })());
process.on('exit', killAllNow);
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.once(signal, () => {
    log(`${signal}: stopping the run`);
    void cleanup().finally(() => process.exit(130));
  });
}
setTimeout(() => {
  log(`the run exceeded ${WATCHDOG_MS / 60_000} minutes: stopping it`);
  void cleanup().finally(() => process.exit(1));
}, WATCHDOG_MS).unref();

let current;
let raw;
try {
  const versions = await serverVersions();
  database = await createBenchDatabase(settings.databaseServerUrl);
  log(`database ${database.name}, NATS namespaces ${Object.values(namespaces).join(', ')}; ${settings.concurrency} connections, ${settings.warmupS} s warm-up + ${settings.durationS} s per loaded measurement`);
  const infra = { databaseUrl: database.url, natsUrl: settings.natsUrl, token };
  const rows = [];
  const memory = [];

  log('starting all-in-one');
  current = await startAllInOne({ ...infra, namespace: namespaces.allInOne });
  // The raw baseline runs the whole time beside each topology (on the schema the all-in-one migrated): see measurePaired.
  log('starting raw baseline');
  raw = await startRaw({ databaseUrl: database.url, accountId: await bootstrapAccountId(database.url) });
  if (settings.users > 0) {
    const seeding = performance.now();
    const users = await seedUsers(database.url, settings.users);
    log(`seeded the bootstrap account: ${users} users in ${((performance.now() - seeding) / 1000).toFixed(1)} s`);
  }
  rows.push(...(await benchTopology(current, 'aio', raw, database.url)));
  memory.push(await idleMemory(current));
  // Catalog lists over 100,000 course templates (issue 7); BENCH_CATALOG_COURSES=0 skips them.
  if (settings.catalogCourses > 0) rows.push(...(await benchCatalogLists(current, database.url, { count: settings.catalogCourses, durationS: settings.probeS || settings.durationS, warmupS: 1, log })));
  // A course with 100,000 enrollments: its pages and counts (issue 8); BENCH_COURSE_ENROLLMENTS=0 skips it.
  if (settings.courseEnrollments > 0) rows.push(...(await benchCourseEnrollments(current, database.url, { count: settings.courseEnrollments, durationS: settings.probeS || settings.durationS, warmupS: 1, log })));
  await current.close();

  log('starting separate processes');
  current = await startSeparate({ ...infra, namespace: namespaces.separate });
  rows.push(...(await benchTopology(current, 'sep', raw, database.url)));
  memory.push(await idleMemory(current));
  await current.close();
  current = undefined;

  log('starting the bare path');
  rows.push(...(await benchBare(raw, database.url, namespaces.bare)));

  if (settings.memory) {
    const dataDir = fileURLToPath(new URL(`../.data/bench-${runId}`, import.meta.url));
    log(`starting all-in-one with embedded Postgres in ${dataDir}`);
    try {
      current = await startEmbedded({ token, dataDir });
      memory.push(await idleMemory(current));
      await current.close();
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  }

  await raw.close();
  raw = undefined;
  current = undefined;

  const eventDelivery = CHECK ? undefined : await benchEventDelivery({ databaseServerUrl: settings.databaseServerUrl, natsUrl: settings.natsUrl, log });

  const results = byOperation(withRatios(rows));
  const load = (averages) => averages.map((n) => n.toFixed(2)).join(' ');
  const machine = {
    cpus: os.cpus().length,
    cpuModel: os.cpus()[0]?.model,
    memoryGiB: Math.round(os.totalmem() / 2 ** 30),
    platform: `${os.platform()} ${os.release()}`,
    node: process.version,
    ...versions,
    loadAverageBefore: load(loadBefore),
    loadAverageAfter: load(os.loadavg()),
  };
  const resultsFile = CHECK ? RESULTS_FILE.replace('latest.json', 'check.json') : RESULTS_FILE;
  writeJson(resultsFile, { date: started.toISOString(), machine, settings: { ...settings, databaseServerUrl: undefined }, results, eventDelivery, memory });

  process.stdout.write(`\nlearning service bench, ${started.toISOString()}, ${machine.cpus} cores (${machine.cpuModel}), node ${process.version}, Postgres ${versions.postgres}, NATS ${versions.nats}\n`);
  process.stdout.write(`${settings.concurrency} keep-alive connections, ${settings.warmupS} s warm-up + ${settings.durationS} s per loaded row, ${settings.probeS} s per "1 conn" row; ratios are to the raw row of the same operation\n`);
  process.stdout.write(`CPU ms/req: user+system CPU of the topology's own processes per 2xx answer (Postgres and NATS not included); +NATS+PG: with this machine's NATS server and Postgres\n`);
  process.stdout.write(`load average (1/5/15 min) before: ${machine.loadAverageBefore}, after: ${machine.loadAverageAfter}\n\n`);
  process.stdout.write(`${formatTable(results)}\n\n`);
  const floor = againstBare(results);
  if (floor) process.stdout.write(`${floor}\n\n`);
  for (const m of memory) {
    process.stdout.write(`${m.topology}: ready ${(m.readyMs / 1000).toFixed(1)} s after start; idle RSS ${m.totalMiB.toFixed(0)} MiB (${m.processes.map((p) => `${p.name} ${p.rssMiB.toFixed(0)}`).join(', ')}; descendants such as Postgres included), PSS ${m.totalPssMiB.toFixed(0)} MiB (shared pages counted once)\n`);
    const idleCpu = m.processes.filter((p) => p.idleCpuMsPerS !== undefined);
    if (idleCpu.length > 0) process.stdout.write(`${m.topology}: idle CPU, ms a second: ${idleCpu.map((p) => `${p.name} ${p.idleCpuMsPerS.toFixed(1)}`).join(', ')}\n`);
  }
  if (memory.length > 0) process.stdout.write('\n');
  if (eventDelivery) process.stdout.write(`${formatEventTable(eventDelivery)}\n\n`);
  const errors = errorSummary(results);
  if (errors.length > 0) {
    process.stdout.write(`!! ERRORS: these rows are not clean measurements:\n${errors.join('\n')}\n\n`);
    exitCode = 1;
  }
  process.stdout.write(`results: ${resultsFile}\n`);
  if (CHECK) {
    const failures = checkFloors(readFloors(), results);
    process.stdout.write(failures.length === 0 ? 'check: every ratio is at or above its floor in docs/performance.md\n' : `!! check: below the floors of docs/performance.md:\n${failures.join('\n')}\n`);
    if (failures.length > 0) exitCode = 1;
  }
} catch (err) {
  log(`failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
  exitCode = 1;
} finally {
  await current?.close().catch(() => undefined);
  await raw?.close().catch(() => undefined);
  await cleanup();
}
process.exit(exitCode);
