// What the long-write rows of `npm run bench` share (bench/catalog-enrollments.mjs, bench/scheduling-long-writes.mjs):
// their target, one timed request, and the row its outcome makes.
import { performance } from 'node:perf_hooks';

/** Long writes that must finish within one request: half the gateway's 5 s RPC timeout. */
export const LONG_WRITE_TARGET_MS = 2_500;

/** The outcome of one long write as a bench row: `ms` against `targetMs`, once. */
export function onceRow(topology, operation, ms, targetMs, log) {
  const within = ms <= targetMs;
  log(`${topology.name} / ${operation}: ${ms.toFixed(0)} ms: ${within ? 'within' : 'OVER'} the ${targetMs} ms target`);
  return {
    topology: topology.name,
    operation: `${operation}, once`,
    concurrency: 1,
    ok: 1,
    errors: 0,
    errorsByKind: {},
    elapsedMs: ms,
    rps: 1000 / ms,
    p50Ms: ms,
    p99Ms: ms,
    meanMs: ms,
    maxMs: ms,
    clientCpuPct: NaN,
    serverCpuMsPerRequest: NaN,
    warmupErrors: 0,
    warmupErrorsByKind: {},
    targetP99Ms: targetMs,
    withinTarget: within,
  };
}

/** Sends one request and times it; anything but `status` fails the row. */
export async function timed(topology, method, path, body, status) {
  const started = performance.now();
  const res = await fetch(`${topology.baseUrl}${path}`, {
    method,
    headers: { ...topology.headers, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  const ms = performance.now() - started;
  if (res.status !== status) throw new Error(`${method} ${path} answered ${res.status}: ${text.slice(0, 300)}`);
  return ms;
}
