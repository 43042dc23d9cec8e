// Validates docker/compose.yaml without a Docker engine. dclint (a maintained Compose linter) checks it
// against the Compose schema and its correctness rules (pinned image tags, ports bound to an interface,
// no duplicate ports or container names). Then what no linter knows: parsed with `yaml` (merge keys on)
// and ${VAR:-default} interpolated with the defaults, every deployable is built from the one Dockerfile
// with its own APP, has the configuration it needs and its own NATS user, and waits for healthy
// infrastructure. When the `docker compose` plugin is installed, `docker compose config -q` runs too.
//
//   node tools/validate-compose.mjs [compose.yaml]   (default docker/compose.yaml)
//   node tools/validate-compose.mjs --self-test      (proves each check rejects a bad input)
//
// Exit code 0 when clean, 1 on any problem; the last line printed is a one-line summary.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { DCLinter } from 'dclint';
import { parseDocument, stringify } from 'yaml';
import { configEnvVars, listDeployables, ROOT } from './deploy-facts.mjs';
import { AUTHORIZATION_FILE, checkAuthorizationFile, natsPasswordVariable } from './nats-authorization.mjs';

const DEFAULT_FILE = path.join(ROOT, 'docker/compose.yaml');

/** Deployables that hold no database (the HTTP edge). */
const WITHOUT_DATABASE = new Set(['gateway']);
/** Deployables that may run embedded (no DATABASE_URL/NATS_URL: embedded Postgres, in-process bus). */
const EMBEDDABLE = new Set(['all-in-one']);
/** Deployables that serve HTTP on PORT (the others serve health and metrics on HEALTH_PORT). */
const HTTP_PORT = { gateway: 3000 };
/** Read by Node itself rather than by loadConfig. */
const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];
const INTEGER_VARS = ['PORT', 'HEALTH_PORT', 'RPC_TIMEOUT_MS', 'AUTH_CACHE_TTL_MS'];

/** The deployables are the apps/ folders: a new app cannot be forgotten here. */
/** Compose interpolation with an empty environment: ${X:-d} and ${X-d} give d, ${X} gives "". */
function interpolate(value, problems, where) {
  if (typeof value !== 'string') return value;
  return value.replace(/\$\$|\$\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?[-?])([^}]*))?\}|\$([A-Za-z_][A-Za-z0-9_]*)/g, (token, braced, operator, operand) => {
    if (token === '$$') return '$';
    if (operator === ':?' || operator === '?') {
      problems.push(`${where}: \${${braced}${operator}...} makes \`docker compose up\` fail without a .env; give it a default`);
      return '';
    }
    if (operator === ':-' || operator === '-') return operand;
    return '';
  });
}

/** Environment of a service as a plain object (map or KEY=VALUE list form). */
function environmentOf(service) {
  const env = service.environment ?? {};
  if (Array.isArray(env)) {
    return Object.fromEntries(env.map((item) => {
      const at = String(item).indexOf('=');
      return at < 0 ? [String(item), undefined] : [String(item).slice(0, at), String(item).slice(at + 1)];
    }));
  }
  return env;
}

const dependsOn = (service) => {
  const value = service.depends_on ?? {};
  return Array.isArray(value) ? Object.fromEntries(value.map((name) => [name, { condition: 'service_started' }])) : value;
};

/** Splits an image reference into name, tag and digest. */
function imageReference(ref) {
  const [withoutDigest, digest] = ref.split('@');
  const colon = withoutDigest.lastIndexOf(':');
  const hasTag = colon > withoutDigest.lastIndexOf('/');
  return { name: hasTag ? withoutDigest.slice(0, colon) : withoutDigest, tag: hasTag ? withoutDigest.slice(colon + 1) : null, digest: digest ?? null };
}

/** Published container ports of a service (short "host:container" or long syntax). */
function containerPorts(service) {
  return (service.ports ?? []).map((port) => {
    if (typeof port === 'object' && port !== null) return Number(port.target);
    const spec = String(port).split('/')[0];
    return Number(spec.split(':').at(-1));
  });
}

/**
 * Checks a parsed compose document. `composeDir` resolves build contexts; `deployables` and
 * `configVars` are the apps and the variables loadConfig reads. Returns problem messages.
 */
export function validateCompose(doc, { composeDir, deployables, configVars }) {
  const problems = [];
  if (!doc || typeof doc !== 'object') return ['the file is not a YAML mapping'];
  const services = doc.services ?? {};
  if (Object.keys(services).length === 0) return [...problems, 'no services'];

  for (const [name, service] of Object.entries(services)) {
    if (service.image === undefined && service.build === undefined) problems.push(`service ${name}: neither image nor build`);
    for (const [dependency, spec] of Object.entries(dependsOn(service))) {
      if (!services[dependency]) problems.push(`service ${name}: depends_on unknown service "${dependency}"`);
      else if (spec?.condition === 'service_healthy' && !services[dependency].healthcheck) {
        problems.push(`service ${name}: waits for ${dependency} to be healthy, but ${dependency} has no healthcheck`);
      }
    }
  }

  // Infrastructure: Postgres 16 and NATS 2.10 with JetStream, both with health checks.
  const postgres = services.postgres;
  if (!postgres) problems.push('no "postgres" service');
  else {
    if (!/^postgres:16(\.|-|$)/.test(interpolate(postgres.image ?? '', problems, 'postgres image'))) problems.push(`postgres: image must be postgres:16.x, got "${postgres.image}"`);
    if (!postgres.healthcheck?.test) problems.push('postgres: needs a healthcheck (pg_isready) so apps start after it accepts connections');
  }
  const nats = services.nats;
  if (!nats) problems.push('no "nats" service');
  else {
    if (!/^nats:2\.10(\.|-|$)/.test(interpolate(nats.image ?? '', problems, 'nats image'))) problems.push(`nats: image must be nats:2.10.x, got "${nats.image}"`);
    const command = Array.isArray(nats.command) ? nats.command : String(nats.command ?? '').split(/\s+/);
    if (!command.includes('-js') && !command.includes('--jetstream')) problems.push('nats: command must enable JetStream (-js)');
    const storeAt = command.indexOf('-sd') >= 0 ? command[command.indexOf('-sd') + 1] : command[command.indexOf('--store_dir') + 1];
    const mounts = (nats.volumes ?? []).map((volume) => (typeof volume === 'string' ? volume.split(':')[1] : volume.target));
    if (!storeAt) problems.push('nats: set the JetStream store directory (-sd <dir>) and mount a volume there');
    else if (!mounts.includes(storeAt)) problems.push(`nats: JetStream store ${storeAt} is not on a volume: streams would vanish with the container`);
    if (!nats.healthcheck?.test) problems.push('nats: needs a healthcheck');
    // The deployables' users and permissions: the one rendered file, mounted where -c points.
    const configFlag = command.findIndex((arg) => arg === '-c' || arg === '--config');
    const configAt = configFlag >= 0 ? command[configFlag + 1] : undefined;
    const source = (nats.volumes ?? []).map((volume) => (typeof volume === 'string' ? volume.split(':') : [volume.source, volume.target])).find(([, target]) => target === configAt)?.[0];
    if (!configAt) problems.push(`nats: load the deployables' users and permissions (-c with ${path.relative(ROOT, AUTHORIZATION_FILE)} mounted)`);
    else if (!source || path.resolve(composeDir, source) !== AUTHORIZATION_FILE) problems.push(`nats: -c ${configAt} must be ${path.relative(ROOT, AUTHORIZATION_FILE)} mounted there`);
    else problems.push(...checkAuthorizationFile().map((problem) => `nats: ${problem}`));
  }
  const natsEnv = Object.fromEntries(Object.entries(environmentOf(nats ?? {})).map(([key, value]) => [key, interpolate(value === null || value === undefined ? '' : String(value), problems, `nats ${key}`)]));

  const dockerfile = path.join('docker', 'Dockerfile');
  for (const app of deployables) {
    const service = services[app];
    if (!service) {
      problems.push(`deployable "${app}" has no service`);
      continue;
    }
    const build = typeof service.build === 'string' ? { context: service.build } : service.build;
    if (!build) {
      problems.push(`service ${app}: must be built from ${dockerfile}`);
      continue;
    }
    const context = path.resolve(composeDir, build.context ?? '.');
    const file = path.resolve(context, build.dockerfile ?? 'Dockerfile');
    if (file !== path.join(ROOT, dockerfile)) problems.push(`service ${app}: builds ${path.relative(ROOT, file)}, not the one ${dockerfile}`);
    if (context !== ROOT) problems.push(`service ${app}: build context must be the repository root, got ${context}`);
    if (!existsSync(file)) problems.push(`service ${app}: ${file} does not exist`);
    const args = Array.isArray(build.args)
      ? Object.fromEntries(build.args.map((item) => String(item).split('=')))
      : build.args ?? {};
    if (args.APP !== app) problems.push(`service ${app}: build arg APP is "${args.APP}", must be "${app}"`);
    const image = interpolate(service.image ?? '', problems, `service ${app} image`);
    if (!image) problems.push(`service ${app}: name the built image (image: learning-service/${app}:<tag>)`);
    else if (imageReference(image).name.split('/').at(-1) !== app) problems.push(`service ${app}: built image "${image}" is not named after the deployable`);

    const env = Object.fromEntries(Object.entries(environmentOf(service)).map(([key, value]) => [key, interpolate(value === null || value === undefined ? '' : String(value), problems, `service ${app} ${key}`)]));
    for (const key of Object.keys(env)) {
      if (!configVars.has(key)) problems.push(`service ${app}: environment ${key} is not read by the configuration (typo?)`);
    }
    const needsDatabase = !WITHOUT_DATABASE.has(app) && !EMBEDDABLE.has(app);
    const needsNats = !EMBEDDABLE.has(app);
    if (needsDatabase && !env.DATABASE_URL) problems.push(`service ${app}: DATABASE_URL missing (without it the service would start embedded Postgres)`);
    if (needsNats && !env.NATS_URL) problems.push(`service ${app}: NATS_URL missing (without it the service would use the in-process bus and never meet the others)`);
    if (env.NATS_URL && !env.CONTEXT_SIGNING_KEY) problems.push(`service ${app}: CONTEXT_SIGNING_KEY missing (required with NATS_URL: the gateway signs and services verify caller contexts)`);
    if (WITHOUT_DATABASE.has(app) && env.DATABASE_URL) problems.push(`service ${app}: holds no database, remove DATABASE_URL`);
    if (EMBEDDABLE.has(app) && Boolean(env.DATABASE_URL) !== Boolean(env.NATS_URL)) problems.push(`service ${app}: set both DATABASE_URL and NATS_URL or neither (embedded mode)`);
    if (needsNats) {
      // Its own NATS user, with the password the nats service gives that user.
      if (env.NATS_USER !== app) problems.push(`service ${app}: NATS_USER must be "${app}" (its own NATS user), got ${JSON.stringify(env.NATS_USER ?? null)}`);
      const variable = natsPasswordVariable(app);
      if (!env.NATS_PASSWORD) problems.push(`service ${app}: NATS_PASSWORD missing`);
      else if (env.NATS_PASSWORD !== natsEnv[variable]) problems.push(`service ${app}: NATS_PASSWORD is not the password the nats service has for it (${variable})`);
      else if (!/^[A-Za-z][A-Za-z0-9]*$/.test(env.NATS_PASSWORD)) problems.push(`service ${app}: NATS_PASSWORD must be letters and digits starting with a letter (the NATS server reads it as a config value)`);
    }
    problems.push(...checkEnvValues(env, `service ${app}`));

    const deps = dependsOn(service);
    if (env.DATABASE_URL) {
      let host = null;
      try {
        host = new URL(env.DATABASE_URL).hostname;
      } catch {
        // reported by checkEnvValues
      }
      if (host && services[host] && deps[host]?.condition !== 'service_healthy') problems.push(`service ${app}: depends_on ${host} must use condition service_healthy`);
    }
    if (env.NATS_URL) {
      let host = null;
      try {
        host = new URL(env.NATS_URL).hostname;
      } catch {
        // reported by checkEnvValues
      }
      if (host && services[host] && deps[host]?.condition !== 'service_healthy') problems.push(`service ${app}: depends_on ${host} must use condition service_healthy`);
    }
  }

  for (const [app, port] of Object.entries(HTTP_PORT)) {
    if (services[app] && !containerPorts(services[app]).includes(port)) problems.push(`service ${app}: must publish container port ${port}`);
  }
  return [...new Set(problems)];
}

/** Value checks mirroring loadConfig, so a bad value fails here rather than at container start. */
export function checkEnvValues(env, where) {
  const problems = [];
  const urlWith = (key, protocols) => {
    if (!env[key]) return;
    try {
      const { protocol } = new URL(env[key]);
      if (!protocols.includes(protocol)) problems.push(`${where}: ${key} must use ${protocols.join(' or ')}, got ${protocol}`);
    } catch {
      problems.push(`${where}: ${key} is not a URL: "${env[key]}"`);
    }
  };
  urlWith('DATABASE_URL', ['postgres:', 'postgresql:']);
  urlWith('NATS_URL', ['nats:', 'tls:']);
  for (const key of INTEGER_VARS) {
    if (env[key] !== undefined && env[key] !== '' && !/^\d+$/.test(String(env[key]))) problems.push(`${where}: ${key} must be an integer, got "${env[key]}"`);
  }
  if (env.LOG_LEVEL && !LOG_LEVELS.includes(env.LOG_LEVEL)) problems.push(`${where}: LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}`);
  if (env.CONTEXT_SIGNING_KEY !== undefined && String(env.CONTEXT_SIGNING_KEY).length < 32) problems.push(`${where}: CONTEXT_SIGNING_KEY must be at least 32 characters`);
  if (env.BOOTSTRAP_ADMIN_TOKEN && String(env.BOOTSTRAP_ADMIN_TOKEN).length < 16) problems.push(`${where}: BOOTSTRAP_ADMIN_TOKEN must be at least 16 characters`);
  if (env.NATS_NAMESPACE && !/^[A-Za-z0-9_-]*$/.test(env.NATS_NAMESPACE)) problems.push(`${where}: NATS_NAMESPACE may hold only letters, digits, _ and -`);
  return problems;
}

/** Parses compose YAML strictly: syntax errors and duplicate keys are problems, not warnings. */
export function parseCompose(text) {
  const document = parseDocument(text, { merge: true, uniqueKeys: true });
  const errors = [...document.errors, ...document.warnings].map((error) => `YAML: ${error.message.split('\n')[0]}`);
  return { doc: errors.length > 0 ? null : document.toJS({ maxAliasCount: 1000 }), errors };
}

/** dclint's rules that are about correctness; its ordering and quoting rules are style we do not follow. */
const DCLINT_CONFIG = {
  rules: Object.fromEntries(['service-keys-order', 'services-alphabetical-order', 'top-level-properties-order', 'service-dependencies-alphabetical-order', 'service-ports-alphabetical-order', 'require-quotes-in-ports', 'no-build-and-image'].map((rule) => [rule, 0])),
  quiet: true,
  debug: false,
  exclude: [],
};

/** Schema and correctness errors from dclint (it reads files, so text goes through a temporary one). */
export function dclintProblems(text) {
  const dir = mkdtempSync(path.join(tmpdir(), 'dclint-'));
  try {
    const file = path.join(dir, 'compose.yaml');
    writeFileSync(file, text);
    const [result] = new DCLinter(DCLINT_CONFIG).lintFiles([file], false);
    return (result?.messages ?? []).filter((message) => message.type === 'error').map((message) => `dclint ${message.rule} (line ${message.line}): ${message.message}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Every check of a compose file's text: parse, dclint, then the project's own. */
export function checkCompose(text, options) {
  const { doc, errors } = parseCompose(text);
  if (!doc) return { doc, problems: errors };
  return { doc, problems: [...dclintProblems(text), ...validateCompose(doc, options)] };
}

/** `docker compose config -q` when the plugin exists; null when it does not (no engine needed). */
function dockerComposeConfig(file) {
  const probe = spawnSync('docker', ['compose', 'version'], { encoding: 'utf8' });
  if (probe.error || probe.status !== 0) return null;
  const result = spawnSync('docker', ['compose', '-f', file, 'config', '-q'], { encoding: 'utf8', cwd: ROOT });
  return result.status === 0 ? [] : [`docker compose config: ${(result.stderr || result.stdout).trim()}`];
}

// --- self-test: a small good compose file passes, and each bad variant is rejected.

const SELF_TEST_APPS = ['gateway', 'identity', 'all-in-one'];
const SELF_TEST_VARS = configEnvVars(`env.PORT env.LOG_LEVEL int(env, 'HEALTH_PORT' url(env, 'DATABASE_URL' url(env, 'NATS_URL' env.BOOTSTRAP_ADMIN_TOKEN env.CONTEXT_SIGNING_KEY env.NATS_USER env.NATS_PASSWORD`);

function goodCompose() {
  const build = (app) => ({ context: '..', dockerfile: 'docker/Dockerfile', args: { APP: app } });
  const healthy = { condition: 'service_healthy' };
  return {
    name: 'self-test',
    services: {
      postgres: { image: 'postgres:16.4-alpine', healthcheck: { test: ['CMD-SHELL', 'pg_isready'] } },
      nats: {
        image: 'nats:2.10.22-alpine',
        command: ['-c', '/etc/nats/authorization.conf', '-js', '-sd', '/data'],
        environment: { NATS_PASSWORD_GATEWAY: '${NATS_PASSWORD_GATEWAY:-gatewayLocal}', NATS_PASSWORD_IDENTITY: 'identityLocal' },
        volumes: ['nats-data:/data', '../k8s/base/nats/authorization.conf:/etc/nats/authorization.conf:ro'],
        healthcheck: { test: ['CMD', 'true'] },
      },
      gateway: { build: build('gateway'), image: 'learning-service/gateway:${TAG:-local}', environment: { NATS_URL: 'nats://nats:4222', CONTEXT_SIGNING_KEY: '${CONTEXT_SIGNING_KEY:-local-only-key-of-32-characters!}', NATS_USER: 'gateway', NATS_PASSWORD: '${NATS_PASSWORD_GATEWAY:-gatewayLocal}', PORT: '3000' }, ports: ['127.0.0.1:3000:3000'], depends_on: { nats: healthy } },
      identity: {
        build: build('identity'),
        image: 'learning-service/identity:${TAG:-local}',
        environment: { NATS_URL: 'nats://nats:4222', CONTEXT_SIGNING_KEY: 'local-only-key-of-32-characters!', NATS_USER: 'identity', NATS_PASSWORD: 'identityLocal', DATABASE_URL: 'postgres://u:${PW:-p}@postgres:5432/db', HEALTH_PORT: '9000', LOG_LEVEL: 'info' },
        depends_on: { postgres: healthy, nats: healthy },
      },
      'all-in-one': { profiles: ['all-in-one'], build: build('all-in-one'), image: 'learning-service/all-in-one:local', environment: { PORT: '3000' } },
    },
    volumes: { 'nats-data': null },
  };
}

const mutate = (change) => {
  const doc = goodCompose();
  change(doc);
  return doc;
};

/** Each case: a description, a change to the good file, and a phrase the rejection must contain. */
const BAD_CASES = [
  ['a deployable without a service', (d) => delete d.services.identity, 'has no service'],
  ['build arg APP of another deployable', (d) => (d.services.identity.build.args.APP = 'catalog'), 'build arg APP'],
  ['built from another Dockerfile', (d) => (d.services.identity.build.dockerfile = 'apps/identity/Dockerfile'), 'not the one docker/Dockerfile'],
  ['service without DATABASE_URL', (d) => delete d.services.identity.environment.DATABASE_URL, 'DATABASE_URL missing'],
  ['service without NATS_URL', (d) => delete d.services.gateway.environment.NATS_URL, 'NATS_URL missing'],
  ['gateway with a database', (d) => (d.services.gateway.environment.DATABASE_URL = 'postgres://postgres/db'), 'holds no database'],
  ['DATABASE_URL with the wrong protocol', (d) => (d.services.identity.environment.DATABASE_URL = 'mysql://postgres/db'), 'DATABASE_URL must use'],
  ['misspelled environment variable', (d) => (d.services.identity.environment.NATS_URI = 'nats://nats:4222'), 'NATS_URI is not read'],
  ['LOG_LEVEL not a level', (d) => (d.services.identity.environment.LOG_LEVEL = 'verbose'), 'LOG_LEVEL must be one of'],
  ['no CONTEXT_SIGNING_KEY beside NATS_URL', (d) => delete d.services.gateway.environment.CONTEXT_SIGNING_KEY, 'CONTEXT_SIGNING_KEY missing'],
  ['short CONTEXT_SIGNING_KEY', (d) => (d.services.identity.environment.CONTEXT_SIGNING_KEY = 'short'), 'at least 32 characters'],
  ['NATS user of another deployable', (d) => (d.services.identity.environment.NATS_USER = 'gateway'), 'NATS_USER must be "identity"'],
  ['no NATS password', (d) => delete d.services.gateway.environment.NATS_PASSWORD, 'NATS_PASSWORD missing'],
  ['NATS password the server does not have', (d) => (d.services.identity.environment.NATS_PASSWORD = 'otherPassword'), 'not the password the nats service has'],
  ['NATS password the server would misread', (d) => { d.services.identity.environment.NATS_PASSWORD = '6e10'; d.services.nats.environment.NATS_PASSWORD_IDENTITY = '6e10'; }, 'letters and digits starting with a letter'],
  ['NATS without the users and permissions', (d) => (d.services.nats.command = ['-js', '-sd', '/data']), 'load the deployables\' users and permissions'],
  ['NATS with another permissions file', (d) => (d.services.nats.volumes[1] = './nats.conf:/etc/nats/authorization.conf:ro'), 'must be k8s/base/nats/authorization.conf mounted there'],
  ['short bootstrap token', (d) => (d.services.identity.environment.BOOTSTRAP_ADMIN_TOKEN = 'short'), 'at least 16 characters'],
  ['all-in-one half embedded', (d) => (d.services['all-in-one'].environment.NATS_URL = 'nats://nats:4222'), 'or neither'],
  ['image with tag latest', (d) => (d.services.postgres.image = 'postgres:latest'), 'service-image-require-explicit-tag'],
  ['untagged image', (d) => (d.services.nats.image = 'nats'), 'service-image-require-explicit-tag'],
  ['port published on every interface', (d) => (d.services.gateway.ports = ['3000:3000']), 'no-unbound-port-interfaces'],
  ['postgres not 16', (d) => (d.services.postgres.image = 'postgres:15.8'), 'must be postgres:16'],
  ['NATS without JetStream', (d) => (d.services.nats.command = ['-sd', '/data']), 'enable JetStream'],
  ['JetStream store not on a volume', (d) => (d.services.nats.volumes = []), 'is not on a volume'],
  ['postgres without healthcheck', (d) => delete d.services.postgres.healthcheck, 'postgres: needs a healthcheck'],
  ['depends_on without health condition', (d) => (d.services.identity.depends_on = ['postgres', 'nats']), 'must use condition service_healthy'],
  ['misspelled service key', (d) => (d.services.identity.enviroment = d.services.identity.environment), 'invalid-schema'],
  ['gateway without port 3000', (d) => (d.services.gateway.ports = ['127.0.0.1:8080:8080']), 'port 3000'],
  ['required variable without default', (d) => (d.services.identity.image = 'learning-service/identity:${TAG:?set TAG}'), 'give it a default'],
];

export function selfTest() {
  const failures = [];
  const options = { composeDir: path.join(ROOT, 'docker'), deployables: SELF_TEST_APPS, configVars: SELF_TEST_VARS };
  const good = checkCompose(stringify(goodCompose()), options).problems;
  if (good.length > 0) failures.push(`the good compose file was rejected: ${good.join('; ')}`);
  for (const [description, change, expected] of BAD_CASES) {
    const { problems } = checkCompose(stringify(mutate(change)), options);
    if (!problems.some((problem) => problem.includes(expected))) {
      failures.push(`case "${description}" was not rejected with "${expected}" (got: ${problems.join('; ') || 'no problems'})`);
    }
  }
  const duplicate = parseCompose('services:\n  a: { image: "x:1" }\n  a: { image: "x:2" }\n');
  if (duplicate.errors.length === 0) failures.push('case "duplicate YAML key" was accepted');
  return { failures, cases: BAD_CASES.length + 2 };
}

function main(argv) {
  if (argv.includes('--self-test')) {
    const { failures, cases } = selfTest();
    for (const failure of failures) console.error(`  FAIL ${failure}`);
    console.log(`validate-compose self-test: ${cases - failures.length}/${cases} cases behaved as expected`);
    return failures.length === 0 ? 0 : 1;
  }
  const file = path.resolve(argv.find((arg) => !arg.startsWith('--')) ?? DEFAULT_FILE);
  const label = path.relative(process.cwd(), file) || file;
  let text;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    console.log(`validate-compose: FAILED: cannot read ${label} (${error.code ?? error.message})`);
    return 1;
  }
  const deployables = listDeployables();
  const { doc, problems } = checkCompose(text, { composeDir: path.dirname(file), deployables, configVars: configEnvVars() });
  const composeConfig = doc ? dockerComposeConfig(file) : null;
  if (composeConfig) problems.push(...composeConfig);
  for (const problem of problems) console.error(`${label}: ${problem}`);
  const services = doc ? Object.keys(doc.services ?? {}).length : 0;
  const engine = composeConfig === null ? 'dclint and project checks; docker compose not installed' : 'dclint, project checks and docker compose config';
  console.log(problems.length === 0
    ? `validate-compose: passed: ${label} (${services} services, ${deployables.length} deployables; ${engine})`
    : `validate-compose: FAILED: ${problems.length} problem(s) in ${label}`);
  return problems.length === 0 ? 0 : 1;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  process.exitCode = main(process.argv.slice(2));
}
