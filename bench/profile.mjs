// `npm run bench:profile`: where the CPU of a read (or a create) goes. Starts the all-in-one and the
// separate processes with `node --cpu-prof`, drives the bench's read (GET /api/author/custom_fields/:id) or
// create (POST /api/author/custom_fields) at them on 8 connections, stops them (the profiles are written at
// exit), and prints each process's CPU by stage.
//
//   npm run build && node bench/profile.mjs [all-in-one|separate|both] [seconds] [read|create]
//
// Profiles land in bench/results/profiles/ (open one in Chrome DevTools for the flame chart).
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { randomBytes } from 'node:crypto';
import { createBenchDatabase, deleteNamespaceStreams, uniqueName } from './infra.mjs';
import { requestJson, runLoad } from './load.mjs';
import { liveChildren, stopChildren } from './processes.mjs';
import { startAllInOne, startSeparate } from './topologies.mjs';
import { breakdown, formatBreakdown } from './profile-stages.mjs';

const which = process.argv[2] ?? 'both';
const seconds = Number(process.argv[3] ?? 10);
const operation = process.argv[4] ?? 'read';
if (!['read', 'create'].includes(operation)) throw new Error(`operation must be read or create, got "${operation}"`);
const databaseServerUrl = process.env.BENCH_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres';
const natsUrl = process.env.BENCH_NATS_URL || 'nats://127.0.0.1:4222';
const DIR = fileURLToPath(new URL('./results/profiles/', import.meta.url));
const log = (message) => process.stderr.write(`profile: ${message}\n`);

const token = `bench_${randomBytes(24).toString('hex')}`;
const runId = uniqueName('prof');
const database = await createBenchDatabase(databaseServerUrl);
const namespaces = [];
let exitCode = 0;
try {
  for (const [name, start] of [['all-in-one', startAllInOne], ['separate', startSeparate]]) {
    if (which !== 'both' && which !== name) continue;
    const dir = join(DIR, name);
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    const namespace = `${runId}_${name === 'all-in-one' ? 'aio' : 'sep'}`;
    namespaces.push(namespace);
    // Only the processes on the read path are profiled: the gateway and identity.
    const nodeArgs = (process) => (['all-in-one', 'gateway', 'identity'].includes(process) ? ['--cpu-prof', `--cpu-prof-dir=${dir}`, `--cpu-prof-name=${process}.cpuprofile`] : []);
    const topology = await start({ databaseUrl: database.url, natsUrl, namespace, token, nodeArgs });
    const created = await requestJson(topology.baseUrl + topology.createPath, { method: 'POST', headers: topology.headers, body: { custom_fields: [{ name: `profiled-${name}` }] } });
    if (created.status !== 201) throw new Error(`create answered ${created.status}: ${created.text}`);
    const load = (tag, durationMs) =>
      operation === 'read'
        ? runLoad({ url: topology.baseUrl + topology.readPath(created.json.custom_fields[0].id), headers: topology.headers, concurrency: 8, durationMs })
        : runLoad({
            url: topology.baseUrl + topology.createPath,
            method: 'POST',
            headers: { ...topology.headers, 'content-type': 'application/json' },
            body: (seq) => `{"custom_fields":[{"name":"profiled-${tag}-${seq}"}]}`,
            concurrency: 8,
            durationMs,
          });
    await load(`${name}-warm`, 2000);
    const loadAverage = os.loadavg()[0].toFixed(2);
    // CLOCK_MONOTONIC, the clock of the profiles' timestamps: only samples of the measured window count.
    const window = { fromUs: Number(process.hrtime.bigint() / 1000n) };
    const result = await load(name, seconds * 1000);
    window.toUs = Number(process.hrtime.bigint() / 1000n);
    writeFileSync(join(dir, 'window.json'), JSON.stringify({ ...window, requests: result.ok }));
    log(`${name}: ${result.rps.toFixed(0)} ${operation}s/s over ${seconds} s, ${result.errors} errors, load average ${loadAverage}`);
    await topology.close();
    for (const file of readdirSync(dir).filter((f) => f.endsWith('.cpuprofile'))) {
      const profile = JSON.parse(readFileSync(join(dir, file), 'utf8'));
      process.stdout.write(`\n${name}: ${file} (${result.ok} ${operation}s answered, load average ${loadAverage})\n${formatBreakdown(breakdown(profile, window), result.ok)}\n`);
    }
  }
} catch (err) {
  log(`failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
  exitCode = 1;
} finally {
  await stopChildren(liveChildren());
  await database.drop().catch(() => undefined);
  await deleteNamespaceStreams(natsUrl, namespaces).catch(() => undefined);
}
process.exit(exitCode);
