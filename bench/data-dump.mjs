// `npm run bench:dump`: a data dump of an account with BENCH_DUMP_ROWS enrollments (1,000,000), every
// deployable in its own process on real Postgres and NATS: rows per second from the POST to `complete`,
// and jobs-worker's resident memory (sampled every 100 ms, peak reported) while it streams the zip.
// Figures go in docs/performance.md ("Data dump"); targets: >= 50,000 rows/s, worker RSS <= 256 MB.
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { bootstrapAccountId } from './infra.mjs';
import { residentMiB } from './processes.mjs';
import { runAlone, startSeparate } from './topologies.mjs';

const rows = Number(process.env.BENCH_DUMP_ROWS || 1_000_000);
const log = (message) => process.stderr.write(`bench:dump: ${message}\n`);

await runAlone(startSeparate, { prefix: 'benchdump', log }, async ({ system, database }) => {
  const accountId = await bootstrapAccountId(database.url);
  const client = new pg.Client({ connectionString: database.url });
  client.on('error', () => undefined); // the database is dropped with FORCE at the end
  await client.connect();
  const seeded = performance.now();
  // Triggers off while seeding: the dump reads rows, not the enrollment counters.
  await client.query("SET session_replication_role = 'replica'");
  await client.query(
    `INSERT INTO catalog.enrollments (account_id, enrollable_type, enrollable_id, user_id, state, started_at, completed_at, due_at)
     SELECT $1, 'CourseTemplate', 1 + i % 500, i, CASE WHEN i % 3 = 0 THEN 'complete' ELSE 'active' END, now() - i * interval '1 second',
            CASE WHEN i % 3 = 0 THEN now() END, now() + interval '30 days'
     FROM generate_series(1, $2) AS i`,
    [accountId, rows],
  );
  await client.query('VACUUM ANALYZE catalog.enrollments');
  await client.end();
  log(`seeded ${rows} enrollments in ${Math.round(performance.now() - seeded)} ms`);

  const worker = system.handles.find((h) => h.name === 'jobs-worker');
  const headers = { ...system.headers, 'content-type': 'application/json' };
  const idleMiB = residentMiB([worker]);
  const started = performance.now();
  const res = await fetch(`${system.baseUrl}/api/admin/data_dumps`, { method: 'POST', headers, body: JSON.stringify({ only: ['enrollments'] }) });
  if (res.status !== 200) throw new Error(`POST answered ${res.status}: ${await res.text()}`);
  let peakMiB = idleMiB;
  let status = 'pending';
  while (status === 'pending') {
    await sleep(100);
    peakMiB = Math.max(peakMiB, residentMiB([worker]));
    const list = await (await fetch(`${system.baseUrl}/api/admin/data_dumps`, { headers })).json();
    status = list.data_dumps[0].status;
  }
  const seconds = (performance.now() - started) / 1000;
  if (status !== 'complete') throw new Error(`the dump ended ${status}`);
  const redirect = await fetch(`${system.baseUrl}/api/admin/data_dumps/download`, { headers, redirect: 'manual' });
  const file = await fetch(`${system.baseUrl}${redirect.headers.get('location')}`);
  const bytes = (await file.arrayBuffer()).byteLength;
  const result = {
    rows,
    seconds: Number(seconds.toFixed(2)),
    rowsPerSecond: Math.round(rows / seconds),
    workerIdleMiB: Math.round(idleMiB),
    workerPeakMiB: Math.round(peakMiB),
    zipMiB: Number((bytes / 1024 / 1024).toFixed(1)),
    load: (await import('node:os')).loadavg().map((n) => n.toFixed(1)).join(' '),
  };
  console.log(JSON.stringify(result));
  console.log(`| ${rows.toLocaleString('en')} enrollments | ${result.seconds} s | ${result.rowsPerSecond.toLocaleString('en')} rows/s | worker RSS ${result.workerIdleMiB} -> ${result.workerPeakMiB} MiB | zip ${result.zipMiB} MiB |`);
});
