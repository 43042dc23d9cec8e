// Turns measurements into the printed table (with each ratio to the raw baseline of the same operation)
// and the JSON record kept in bench/results/.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

export const RAW = 'raw node:http + pg';

/** The CPU per request of the topology's processes, the NATS server and Postgres together. */
const withInfrastructure = (row) => row.serverCpuMsPerRequest + (row.natsCpuMsPerRequest ?? NaN) + (row.postgresCpuMsPerRequest ?? NaN);

/**
 * Adds `rpsVsRaw` (topology req/s ÷ raw req/s), `p50VsRaw`, `p99VsRaw`, `cpuVsRaw` (latency and server CPU per
 * request, topology ÷ raw), `allCpuMsPerRequest` (with the NATS server's and Postgres' CPU) and its `allCpuVsRaw`.
 * A topology's raw row is the one measured beside it (`pairedWith`); a raw row is its own.
 */
export function withRatios(rows) {
  return rows.map((row) => {
    const raw = row.topology === RAW ? row : rows.find((r) => r.topology === RAW && r.operation === row.operation && r.pairedWith === row.topology);
    const allCpuMsPerRequest = withInfrastructure(row);
    return {
      ...row,
      rpsVsRaw: raw ? row.rps / raw.rps : NaN,
      p50VsRaw: raw ? row.p50Ms / raw.p50Ms : NaN,
      p99VsRaw: raw ? row.p99Ms / raw.p99Ms : NaN,
      cpuVsRaw: raw ? row.serverCpuMsPerRequest / raw.serverCpuMsPerRequest : NaN,
      allCpuMsPerRequest,
      allCpuVsRaw: raw ? allCpuMsPerRequest / withInfrastructure(raw) : NaN,
    };
  });
}

const num = (value, digits) => (Number.isFinite(value) ? value.toFixed(digits) : 'n/a');
const ratio = (value) => (Number.isFinite(value) ? `${value >= 10 ? value.toFixed(1) : value.toFixed(2)}x` : 'n/a');

/** Rows grouped by operation (in the order operations were first measured), each topology's row followed by its raw row. */
export function byOperation(rows) {
  const order = [...new Set(rows.map((r) => r.operation))];
  return [...rows].sort((a, b) => order.indexOf(a.operation) - order.indexOf(b.operation));
}

/** A row's topology as printed: a raw row names the topology it was measured beside. */
export const rowLabel = (row) => (row.pairedWith ? `${row.topology} (beside ${row.pairedWith})` : row.topology);

export function formatTable(rows) {
  const header = ['topology', 'operation', 'req/s', 'p50 ms', 'p99 ms', 'errors', 'req/s vs raw', 'p50 vs raw', 'CPU ms/req', 'CPU vs raw', '+NATS+PG ms/req', 'vs raw'];
  const lines = rows.map((r) => [
    rowLabel(r),
    r.operation,
    num(r.rps, 0),
    num(r.p50Ms, 2),
    num(r.p99Ms, 2),
    r.errors === 0 ? '0' : `${r.errors} !!`,
    ratio(r.rpsVsRaw),
    ratio(r.p50VsRaw),
    num(r.serverCpuMsPerRequest, 3),
    ratio(r.cpuVsRaw),
    num(r.allCpuMsPerRequest, 3),
    ratio(r.allCpuVsRaw),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i].length)));
  const format = (cells) => cells.map((c, i) => (i < 2 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ');
  return [format(header), widths.map((w) => '-'.repeat(w)).join('  '), ...lines.map(format)].join('\n');
}

export const BARE = 'bare gateway -> NATS -> service';

/**
 * The separate processes' read against the bare path's (each as a ratio to the raw row measured beside it):
 * how much of the architecture's floor our code keeps. Undefined when either row is missing.
 */
export function againstBare(rows) {
  const [separate, bare] = ['separate processes', BARE].map((topology) => rows.find((r) => r.topology === topology && r.operation === 'read'));
  if (!separate || !bare) return undefined;
  return `read: the bare path ${ratio(bare.rpsVsRaw)} raw, separate processes ${ratio(separate.rpsVsRaw)} raw = ${ratio(separate.rpsVsRaw / bare.rpsVsRaw)} of the bare path's req/s; CPU per read with NATS and Postgres ${ratio(bare.allCpuVsRaw)} and ${ratio(separate.allCpuVsRaw)} raw`;
}

/** Every row that had errors, with what they were: a run with errors is not a clean measurement. */
export function errorSummary(rows) {
  return rows
    .filter((r) => r.errors > 0 || r.warmupErrors > 0)
    .map((r) => `  ${rowLabel(r)} / ${r.operation}: ${r.errors} errors measured, ${r.warmupErrors} in warm-up ${JSON.stringify({ ...r.warmupErrorsByKind, ...r.errorsByKind })}; first: ${r.sampleError ?? r.warmupSampleError}`);
}

export function writeJson(file, record) {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, `${JSON.stringify(record, null, 2)}\n`);
}
