// Sorts the samples of a V8 CPU profile (`node --cpu-prof`) into the stages of the request path. Each
// sample counts for the function it was in; a function of no stage (a builtin, a Node internal) counts for
// the stage of its nearest caller that has one. Which side a shared library runs on (Nest, the validator)
// follows from its callers: under the microservice transport it is the service's.

/** [stage, test of a frame's URL], first match wins. */
const BY_URL = [
  ['logging', /\/node_modules\/(pino|sonic-boom|thread-stream|fast-redact|quick-format-unescaped|atomic-sleep|on-exit-leak-free|pino-std-serializers)\//],
  ['metrics', /\/node_modules\/(prom-client|tdigest|bintrees)\/|\/observability\/rpc-metrics\.js|\/metrics\/http-metrics\.js/],
  ['validation', /\/node_modules\/(class-validator|class-transformer|validator|libphonenumber-js)\/|\/contracts\/dist\/common\/(validate|query|compiled-validator)\.js/],
  ['NATS client', /\/node_modules\/@nats-io\/|\/messaging\/nats-bus\.js/],
  ['TypeORM', /\/node_modules\/typeorm\//],
  ['pg', /\/node_modules\/(pg|pg-protocol|pg-pool|pg-types|pgpass|postgres-array|postgres-date|postgres-interval|postgres-bytea|pg-int8|buffer-writer|packet-reader)\//],
  ['Nest microservice dispatch', /\/node_modules\/(@nestjs\/microservices|rxjs)\/|\/messaging\/bus-transport\.js|\/rpc\/handles\.js|\/rpc\/dispatch\.js/],
  ['Nest core', /\/node_modules\/@nestjs\/(core|common)\//],
  ['HTTP: Fastify', /\/node_modules\/(fastify|@nestjs\/platform-fastify|find-my-way|avvio|light-my-request|@fastify\/[^/]+|fast-json-stringify|fast-querystring|safe-regex2|toad-cache|fast-decode-uri-component|secure-json-parse|abstract-logging|process-warning|rfdc|fast-uri|ret)\//],
  ['auth + principal cache', /\/apps\/gateway\/auth\//],
  ['gateway: request input', /\/apps\/gateway\/http\/(request-input|query-normaliser)\.js/],
  ['gateway: forwarder, ETag, reply', /\/apps\/gateway\//],
  ['persistence helpers', /\/platform\/dist\/persistence\//],
  ['service handler code', /\/dist\/apps\/(identity|catalog|scheduling|jobs|locking)\//],
  ['HTTP: node', /^node:(_http_|http$|internal\/http)/],
];

const JSON_BUILTINS = new Set(['stringify', 'parse', 'JSONSerialize', 'JSONParse']);

function ownStage({ functionName, url }) {
  if (!url) {
    if (functionName === '(garbage collector)') return 'GC';
    if (functionName === '(idle)') return 'idle';
    if (functionName === '(program)') return 'V8 (program)';
    if (JSON_BUILTINS.has(functionName)) return 'serialisation (JSON)';
    return undefined;
  }
  for (const [stage, test] of BY_URL) if (test.test(url)) return stage;
  return undefined;
}

/** Which side a frame runs on, from the frames above it. */
function sideOf(url, parentSide) {
  if (/\/node_modules\/@nestjs\/microservices\/|\/messaging\/bus-transport\.js|\/rpc\/(handles|dispatch)\.js|\/dist\/apps\/identity\//.test(url)) return 'service';
  if (/\/apps\/gateway\/|\/node_modules\/(fastify|@nestjs\/platform-fastify)\//.test(url)) return 'gateway';
  return parentSide;
}

function label(stage, side) {
  if (stage === 'validation') return side === 'service' ? 'service re-validation' : 'gateway validation';
  if (stage === 'Nest core') return side === 'service' ? 'Nest microservice dispatch' : 'Nest (HTTP side)';
  if (stage === 'serialisation (JSON)') return `serialisation (JSON), ${side ?? 'other'}`;
  return stage;
}

/**
 * Milliseconds of CPU per stage (idle excluded), from a parsed .cpuprofile; with `window` ({ fromUs, toUs }
 * on the profile's clock, CLOCK_MONOTONIC), only the samples taken inside it.
 */
export function breakdown(profile, window = { fromUs: -Infinity, toUs: Infinity }) {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const selfMs = new Map();
  let at = profile.startTime;
  for (let i = 0; i < profile.samples.length; i++) {
    const delta = profile.timeDeltas[i] ?? 0;
    at += delta;
    if (at < window.fromUs || at > window.toUs) continue;
    const id = profile.samples[i];
    selfMs.set(id, (selfMs.get(id) ?? 0) + delta / 1000);
  }
  const totals = new Map();
  const root = profile.nodes[0];
  // Iterative walk: profiles of deep async stacks would overflow a recursive one.
  const stack = [[root, undefined, undefined]];
  while (stack.length > 0) {
    const [node, parentStage, parentSide] = stack.pop();
    const side = sideOf(node.callFrame.url, parentSide);
    const own = ownStage(node.callFrame);
    const stage = own ? label(own, side) : (parentStage ?? 'node: event loop, sockets, timers');
    const ms = selfMs.get(node.id) ?? 0;
    if (ms > 0) totals.set(stage, (totals.get(stage) ?? 0) + ms);
    // A stage-less child keeps the caller's stage; GC and (program) do not pass theirs on.
    for (const childId of node.children ?? []) stack.push([byId.get(childId), own && own !== 'idle' ? stage : parentStage, side]);
  }
  totals.delete('idle');
  return totals;
}

export function formatBreakdown(totals, requests) {
  const sum = [...totals.values()].reduce((a, b) => a + b, 0);
  const rows = [...totals].sort((a, b) => b[1] - a[1]);
  const width = Math.max(...rows.map(([stage]) => stage.length), 5);
  const lines = rows.map(([stage, ms]) => `  ${stage.padEnd(width)}  ${((ms / sum) * 100).toFixed(1).padStart(5)} %  ${((ms * 1000) / requests).toFixed(1).padStart(6)} µs/req`);
  return [...lines, `  ${'total'.padEnd(width)}  100.0 %  ${((sum * 1000) / requests).toFixed(1).padStart(6)} µs/req (busy CPU ${sum.toFixed(0)} ms)`].join('\n');
}
