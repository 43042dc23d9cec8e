// The ways the same read and create are served in a run: every deployable in one process, each deployable in
// its own process (as in Kubernetes), the raw node:http + pg floor, and (reads only) the separate processes'
// hops with nothing of ours on them, the bare path.
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { deployedNodeFlags } from '../tools/deploy-facts.mjs';
import { createBenchDatabase, deleteNamespaceStreams, uniqueName } from './infra.mjs';
import { BARE } from './report.mjs';
import { freePort, killAllNow, startChild, stopChildren, waitReady } from './processes.mjs';

/** The node flags every deployable runs with (package.json's config.node_flags, which the start scripts and the image use): measured as deployed. */
export const DEPLOYED_NODE_FLAGS = deployedNodeFlags();
const entry = (name) => fileURLToPath(new URL(`../dist/apps/${name}/main.js`, import.meta.url));
export const RAW_SCRIPT = fileURLToPath(new URL('./raw-baseline.mjs', import.meta.url));
const BARE_SCRIPT = fileURLToPath(new URL('./bare-path.mjs', import.meta.url));

/** Stages of the separate-process start: jobs-worker works in the schema jobs migrates; the gateway is the edge. */
export const SEPARATE_STAGES = [['identity', 'catalog', 'scheduling', 'jobs', 'locking'], ['jobs-worker'], ['gateway']];

export function missingBuildOutputs() {
  return ['all-in-one', ...SEPARATE_STAGES.flat()].map(entry).filter((file) => !existsSync(file));
}

/**
 * @typedef {object} Topology
 * @property {string} name
 * @property {string} baseUrl
 * @property {(id: string|number) => string} readPath
 * @property {string} createPath
 * @property {Record<string,string>} headers   sent with every request (authentication)
 * @property {Array<{ child: import('node:child_process').ChildProcess }>} handles  its processes (for CPU accounting)
 * @property {() => Promise<void>} close
 */

/** Every deployable of a run signs or verifies caller contexts with this key (required with NATS_URL). */
const CONTEXT_SIGNING_KEY = randomBytes(32).toString('base64');

const gatewayPaths = { readPath: (id) => `/api/author/custom_fields/${id}`, createPath: '/api/author/custom_fields' };

/** Starts `handles` (already spawned) to readiness; stops them all if any fails, so nothing is left running. */
async function readyOrStop(handles, probes) {
  try {
    await Promise.all(probes.map(([handle, url]) => waitReady(handle, url)));
  } catch (err) {
    await stopChildren(handles);
    throw err;
  }
}

/** @returns {Promise<Topology>} */
export async function startAllInOne({ databaseUrl, natsUrl, namespace, token, nodeArgs = () => [] }) {
  const started = performance.now();
  const port = await freePort();
  const handle = startChild('all-in-one', entry('all-in-one'), {
    PORT: String(port),
    HOST: '127.0.0.1',
    HEALTH_PORT: String(await freePort()),
    DATABASE_URL: databaseUrl,
    NATS_URL: natsUrl,
    NATS_NAMESPACE: namespace,
    CONTEXT_SIGNING_KEY,
    BOOTSTRAP_ADMIN_TOKEN: token,
    // The limiter runs (its cost is measured) but never refuses the benchmark's one token.
    RATE_LIMIT_PER_TOKEN: '1000000000',
    LOG_LEVEL: 'warn',
  }, [...DEPLOYED_NODE_FLAGS, ...nodeArgs('all-in-one')]);
  const baseUrl = `http://127.0.0.1:${port}`;
  await readyOrStop([handle], [[handle, `${baseUrl}/readyz`]]);
  const readyMs = performance.now() - started;
  return { name: 'all-in-one', baseUrl, ...gatewayPaths, headers: { authorization: `Bearer ${token}` }, handles: [handle], readyMs, close: () => stopChildren([handle]) };
}

/**
 * `npm start` as a user runs it: no DATABASE_URL and no NATS_URL, so an embedded Postgres (under a
 * throw-away DATA_DIR) and the in-process bus. Only started to measure its memory and time to ready.
 */
export async function startEmbedded({ token, dataDir }) {
  const started = performance.now();
  const port = await freePort();
  const env = { PORT: String(port), HOST: '127.0.0.1', HEALTH_PORT: String(await freePort()), DATA_DIR: dataDir, EMBEDDED_POSTGRES_PORT: String(await freePort()), BOOTSTRAP_ADMIN_TOKEN: token, LOG_LEVEL: 'warn', DATABASE_URL: undefined, NATS_URL: undefined };
  const handle = startChild('all-in-one (embedded)', entry('all-in-one'), env, DEPLOYED_NODE_FLAGS);
  const baseUrl = `http://127.0.0.1:${port}`;
  await readyOrStop([handle], [[handle, `${baseUrl}/readyz`]]);
  return { name: 'all-in-one, embedded Postgres', baseUrl, handles: [handle], readyMs: performance.now() - started, close: () => stopChildren([handle]) };
}

/** @returns {Promise<Topology>} */
export async function startSeparate({ databaseUrl, natsUrl, namespace, token, nodeArgs = () => [] }) {
  const startedAt = performance.now();
  const started = [];
  let baseUrl = '';
  try {
    for (const stage of SEPARATE_STAGES) {
      const probes = [];
      for (const name of stage) {
        const port = await freePort();
        const healthPort = await freePort();
        const handle = startChild(name, entry(name), {
          PORT: String(port),
          HOST: '127.0.0.1',
          HEALTH_PORT: String(healthPort),
          DATABASE_URL: databaseUrl,
          NATS_URL: natsUrl,
          NATS_NAMESPACE: namespace,
          CONTEXT_SIGNING_KEY,
          BOOTSTRAP_ADMIN_TOKEN: token,
          RATE_LIMIT_PER_TOKEN: '1000000000',
          LOG_LEVEL: 'warn',
        }, [...DEPLOYED_NODE_FLAGS, ...nodeArgs(name)]);
        started.push(handle);
        // Services serve /readyz on HEALTH_PORT; the gateway on its HTTP port.
        const url = name === 'gateway' ? `http://127.0.0.1:${port}/readyz` : `http://127.0.0.1:${healthPort}/readyz`;
        if (name === 'gateway') baseUrl = `http://127.0.0.1:${port}`;
        probes.push([handle, url]);
      }
      await readyOrStop(started, probes);
    }
  } catch (err) {
    await stopChildren(started);
    throw err;
  }
  const readyMs = performance.now() - startedAt;
  return { name: 'separate processes', baseUrl, ...gatewayPaths, headers: { authorization: `Bearer ${token}` }, handles: started, readyMs, close: () => stopChildren(started) };
}

/** @returns {Promise<Topology>} */
export async function startRaw({ databaseUrl, accountId }) {
  const port = await freePort();
  const handle = startChild('raw-baseline', RAW_SCRIPT, { PORT: String(port), DATABASE_URL: databaseUrl, BENCH_ACCOUNT_ID: String(accountId) });
  const baseUrl = `http://127.0.0.1:${port}`;
  await readyOrStop([handle], [[handle, `${baseUrl}/readyz`]]);
  return {
    name: 'raw node:http + pg',
    baseUrl,
    readPath: (id) => `/raw/custom_fields/${id}`,
    createPath: '/raw/custom_fields',
    headers: {},
    handles: [handle],
    close: () => stopChildren([handle]),
  };
}

/**
 * The separate processes' read path with nothing of ours on it (bench/bare-path.mjs): a bare gateway and a
 * bare service over NATS, reading what identity reads. Reads only. @returns {Promise<Topology>}
 */
export async function startBare({ databaseUrl, natsUrl, namespace, accountId }) {
  const env = { NATS_URL: natsUrl, BARE_SUBJECT: `${namespace}.bare.custom_fields.show` };
  const [servicePort, gatewayPort] = [await freePort(), await freePort()];
  const service = startChild('bare service', BARE_SCRIPT, { ...env, BARE_ROLE: 'service', PORT: String(servicePort), DATABASE_URL: databaseUrl }, DEPLOYED_NODE_FLAGS);
  const gateway = startChild('bare gateway', BARE_SCRIPT, { ...env, BARE_ROLE: 'gateway', PORT: String(gatewayPort), BENCH_ACCOUNT_ID: String(accountId) }, DEPLOYED_NODE_FLAGS);
  const handles = [service, gateway];
  await readyOrStop(handles, [[service, `http://127.0.0.1:${servicePort}/`], [gateway, `http://127.0.0.1:${gatewayPort}/readyz`]]);
  return {
    name: BARE,
    baseUrl: `http://127.0.0.1:${gatewayPort}`,
    readPath: (id) => `/bare/custom_fields/${id}`,
    headers: {},
    handles,
    close: () => stopChildren(handles),
  };
}

/**
 * A bench run on its own (`node bench/<row>.mjs`): a fresh bench database and NATS namespace, the topology
 * `start` starts on them (startAllInOne or startSeparate), `work({ system, database })`, then everything
 * removed however it ends; BENCH_KEEP_DATABASE=1 keeps the database (for EXPLAIN). A failure prints the last
 * output of each process and sets exit code 1; a run past `watchdogMs` is killed with exit code 2.
 */
export async function runAlone(start, { prefix, log, watchdogMs = 15 * 60_000 }, work) {
  const missing = missingBuildOutputs();
  if (missing.length > 0) throw new Error(`build first (npm run build): ${missing.join(', ')}`);
  const watchdog = setTimeout(() => {
    log('watchdog: stopping everything');
    killAllNow();
    process.exit(2);
  }, watchdogMs);
  const natsUrl = process.env.BENCH_NATS_URL || 'nats://127.0.0.1:4222';
  const database = await createBenchDatabase(process.env.BENCH_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres');
  const namespace = uniqueName(prefix);
  let system;
  try {
    system = await start({ databaseUrl: database.url, natsUrl, namespace, token: `bench_${randomBytes(16).toString('hex')}` });
    await work({ system, database });
  } catch (err) {
    log(`failed: ${err.stack ?? err}`);
    for (const handle of system?.handles ?? []) log(`${handle.name}: ${handle.output().slice(-2000)}`);
    process.exitCode = 1;
  } finally {
    clearTimeout(watchdog);
    await system?.close();
    await deleteNamespaceStreams(natsUrl, [namespace]).catch((err) => log(`could not delete the NATS streams: ${err.message}`));
    if (process.env.BENCH_KEEP_DATABASE) log(`kept ${database.url}`);
    else await database.drop();
  }
}
