// HTTP load generator. Closed loop: N workers, each sending its next request when the previous one answers,
// for a fixed time or request count, whichever ends first. Open loop (`ratePerS`): requests leave at a fixed
// rate whatever the answers, as users' requests do, and each latency counts from the moment its request was
// due, so a server that falls behind is charged for the wait it causes (the closed loop would send less
// instead). node:http with a keep-alive agent costs the client less CPU than fetch, which matters on a
// 2-core machine where client and server share the cores.
import http from 'node:http';
import { performance } from 'node:perf_hooks';

/**
 * @typedef {object} LoadOptions
 * @property {string} url                          absolute http:// URL
 * @property {'GET'|'POST'} [method]
 * @property {Record<string,string>} [headers]
 * @property {(seq: number) => string|undefined} [body]  request body for the seq-th request (unique names)
 * @property {number} concurrency                  workers (and sockets); with `ratePerS`, sockets at most
 * @property {number} [ratePerS]                    open loop: requests sent per second, evenly spaced
 * @property {number} durationMs                   stop sending after this long
 * @property {number} [maxRequests]                and after this many requests (also the latency array size)
 * @property {number} [timeoutMs]                  one request's deadline; a timeout counts as an error
 */

/**
 * @typedef {object} LoadResult
 * @property {number} ok            2xx answers
 * @property {number} errors        non-2xx answers, network errors and timeouts
 * @property {Record<string,number>} errorsByKind  e.g. { "429": 3, "timeout": 1 }
 * @property {string|undefined} sampleError        first error's status and body start, to explain it
 * @property {number} elapsedMs
 * @property {number} rps           2xx answers per second
 * @property {number} p50Ms         over 2xx answers
 * @property {number} p99Ms
 * @property {number} meanMs
 * @property {number} maxMs
 * @property {number} clientCpuPct  CPU the load generator itself used, in % of one core (it shares the machine)
 * @property {Float64Array} latencies  every 2xx answer's latency, ascending (to combine windows: `combineLoads`)
 */

/** Nearest-rank percentile of an ascending array. */
export function percentile(sorted, p) {
  if (sorted.length === 0) return NaN;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1];
}

/** Sends one request and reads the whole answer (the socket is reused only once the body is consumed). */
function send(agent, target, method, headers, body, timeoutMs) {
  return new Promise((resolve) => {
    const req = http.request(
      { agent, host: target.hostname, port: target.port, path: target.pathname + target.search, method, headers: body === undefined ? headers : { ...headers, 'content-length': Buffer.byteLength(body) } },
      (res) => {
        const status = res.statusCode ?? 0;
        const failed = status < 200 || status >= 300;
        let head = '';
        res.on('data', (chunk) => {
          if (failed && head.length < 300) head += chunk.toString('utf8');
        });
        res.on('end', () => resolve({ status, detail: failed ? head.slice(0, 300) : undefined }));
        res.on('error', (err) => resolve({ status: 0, kind: 'network', detail: err.message }));
      },
    );
    req.setTimeout(timeoutMs, () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    req.on('error', (err) => resolve({ status: 0, kind: err.message.startsWith('no answer') ? 'timeout' : 'network', detail: err.message }));
    req.end(body);
  });
}

/** @param {LoadOptions} options @returns {Promise<LoadResult>} */
export async function runLoad({ url, method = 'GET', headers = {}, body = () => undefined, concurrency, durationMs, maxRequests = 2_000_000, timeoutMs = 10_000, ratePerS }) {
  const target = new URL(url);
  const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency, maxFreeSockets: concurrency });
  const requestHeaders = { accept: 'application/json', ...headers };
  // Preallocated: recording a latency must not allocate or trigger GC in the middle of a run.
  const latencies = new Float64Array(maxRequests);
  let recorded = 0;
  let issued = 0;
  let errors = 0;
  const errorsByKind = {};
  let sampleError;

  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  const deadline = started + durationMs;
  /** Sends the next request; its latency counts from `due` (now, or when an open loop's schedule wanted it sent). */
  const sendNext = async (due = performance.now()) => {
    const answer = await send(agent, target, method, requestHeaders, body(issued++), timeoutMs);
    const took = performance.now() - due;
    if (answer.status >= 200 && answer.status < 300) {
      latencies[recorded++] = took;
    } else {
      errors++;
      const kind = answer.kind ?? String(answer.status);
      errorsByKind[kind] = (errorsByKind[kind] ?? 0) + 1;
      sampleError ??= `${kind}: ${answer.detail ?? ''}`.trim();
    }
  };
  if (ratePerS) {
    await openLoop(sendNext, 1000 / ratePerS, started, deadline, () => issued < maxRequests);
  } else {
    const worker = async () => {
      while (issued < maxRequests && performance.now() < deadline) await sendNext();
    };
    await Promise.all(Array.from({ length: concurrency }, worker));
  }
  const elapsedMs = performance.now() - started;
  const cpu = process.cpuUsage(cpuBefore);
  agent.destroy();

  return summarise({ latencies: latencies.subarray(0, recorded).sort(), errors, errorsByKind, sampleError, elapsedMs, clientCpuMs: (cpu.user + cpu.system) / 1000 });
}

/**
 * Calls `sendNext(due)` every `intervalMs` from `started` until `deadline` (or until `more()` is false) and
 * resolves when every answer is in. A timer that fires late sends what fell due meanwhile at once.
 */
async function openLoop(sendNext, intervalMs, started, deadline, more) {
  const sent = [];
  let due = started;
  await new Promise((resolve) => {
    const tick = () => {
      const now = performance.now();
      for (; due <= now && due < deadline && more(); due += intervalMs) sent.push(sendNext(due));
      if (due < deadline && more()) setTimeout(tick, Math.max(0, due - performance.now()));
      else resolve();
    };
    tick();
  });
  await Promise.all(sent);
}

function summarise({ latencies, errors, errorsByKind, sampleError, elapsedMs, clientCpuMs }) {
  const recorded = latencies.length;
  let sum = 0;
  for (const value of latencies) sum += value;
  const result = {
    ok: recorded,
    errors,
    errorsByKind,
    sampleError,
    elapsedMs,
    rps: recorded / (elapsedMs / 1000),
    p50Ms: percentile(latencies, 50),
    p99Ms: percentile(latencies, 99),
    meanMs: recorded ? sum / recorded : NaN,
    maxMs: recorded ? latencies[recorded - 1] : NaN,
    clientCpuPct: (clientCpuMs / elapsedMs) * 100,
  };
  // Not enumerable: rows spread a result into the JSON record, which must not carry every latency.
  return Object.defineProperty(result, 'latencies', { value: latencies, enumerable: false });
}

/** Several measured windows of the same load as one result: answers over their summed time, percentiles over all their latencies. */
export function combineLoads(results) {
  const latencies = new Float64Array(results.reduce((n, r) => n + r.latencies.length, 0));
  let at = 0;
  for (const r of results) {
    latencies.set(r.latencies, at);
    at += r.latencies.length;
  }
  const errorsByKind = {};
  for (const r of results) for (const [kind, n] of Object.entries(r.errorsByKind)) errorsByKind[kind] = (errorsByKind[kind] ?? 0) + n;
  const sum = (field) => results.reduce((n, r) => n + r[field], 0);
  return summarise({
    latencies: latencies.sort(),
    errors: sum('errors'),
    errorsByKind,
    sampleError: results.find((r) => r.sampleError)?.sampleError,
    elapsedMs: sum('elapsedMs'),
    clientCpuMs: results.reduce((n, r) => n + (r.clientCpuPct / 100) * r.elapsedMs, 0),
  });
}

/** One request, for setup steps (seeding, checks): the parsed JSON answer and its status. */
export async function requestJson(url, { method = 'GET', headers = {}, body, timeoutMs = 10_000 } = {}) {
  const target = new URL(url);
  const payload = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: target.hostname,
        port: target.port,
        path: target.pathname + target.search,
        method,
        agent: false,
        headers: { accept: 'application/json', ...(payload === undefined ? {} : { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) }), ...headers },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk) => (text += chunk));
        res.on('end', () => {
          let json;
          try {
            json = text ? JSON.parse(text) : undefined;
          } catch {
            json = undefined;
          }
          resolve({ status: res.statusCode ?? 0, json, text });
        });
        res.on('error', reject);
      },
    );
    req.setTimeout(timeoutMs, () => req.destroy(new Error(`${method} ${url}: no answer within ${timeoutMs} ms`)));
    req.on('error', reject);
    req.end(payload);
  });
}
