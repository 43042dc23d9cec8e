import { createSecretKey, hkdfSync, randomBytes, type KeyObject } from 'node:crypto';
import { isIP } from 'node:net';
import { LOG_FORMATS } from '../observability/logger.js';

/** Typed configuration read once at start; a bad value stops the process with a clear message. */
export interface PlatformConfig {
  port: number;
  host: string;
  /** Unset in all-in-one mode: embedded Postgres under `dataDir`. */
  databaseUrl?: string;
  /** Unset in all-in-one mode: the in-process bus. */
  natsUrl?: string;
  /** Prefix of every subject and stream, so several systems can share one NATS server. */
  natsNamespace: string;
  /** This deployable's NATS user (`NATS_USER` + `NATS_PASSWORD`); unset when the server needs none. */
  natsCredentials?: NatsCredentials;
  /** Copies JetStream keeps of each stream and of the file store: the cluster's node count, up to 5. */
  natsStreamReplicas: number;
  /**
   * Signs (gateway) and verifies (services) the caller context of every bus request. A KeyObject, so
   * logging the configuration cannot print it. Generated per process when there is no NATS_URL.
   */
  contextSigningKey: KeyObject;
  /**
   * Signs (jobs) and verifies (gateway) the URLs files are served at: FILE_URL_SIGNING_KEY, else derived
   * from the context signing key (HKDF, its own label), so no deployment needs one more secret.
   */
  fileUrlSigningKey: KeyObject;
  dataDir: string;
  /** TCP port of the embedded Postgres (all-in-one mode without DATABASE_URL). */
  embeddedPostgresPort: number;
  /** Lifetime of an edit lock (locking service); a renewal starts it again. */
  lockTtlSeconds: number;
  rpcTimeoutMs: number;
  /** How often an open live-updates stream has its subscriber checked again (gateway). */
  liveUpdatesRecheckMs: number;
  /** Largest file body an upload route takes (SCORM packages), in bytes. */
  uploadMaxBytes: number;
  /** How long a service may take over an uploaded file (a SCORM package's check and unpacking) before the gateway answers 504. */
  uploadTimeoutMs: number;
  /** How long a request body (an upload's or a JSON one) may send nothing before the gateway gives up on it (408). */
  uploadIdleMs: number;
  /** How often catalog looks for expired completions of courses that re-enroll automatically. */
  enrollmentSweepIntervalMs: number;
  healthPort: number;
  authCacheTtlMs: number;
  /** Requests per window for one bearer token, and for one client address without a valid token; 0 turns a limit off. */
  rateLimitPerToken: number;
  rateLimitPerAddress: number;
  rateLimitWindowS: number;
  /**
   * Addresses and CIDR ranges of the proxies in front of the gateway (an ingress controller's pods), whose
   * `X-Forwarded-For` is believed: the client is its right-most address outside them. Empty: the TCP peer is
   * the client. The client address is what the per-address rate limit counts.
   */
  trustedProxies: string[];
  bootstrapAdminToken?: string;
  bootstrapAccount: string;
  /** Unset: the gateway's public port does not serve `/metrics` (the health port does); set: it does, to this bearer token only. */
  metricsToken?: string;
  /**
   * The API's public base URL (PUBLIC_URL, `https://lms.example.com`, a path prefix allowed), without a
   * trailing slash: `Link` URLs are absolute against it. Unset: against the request's own Host.
   */
  publicUrl?: string;
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
}

export interface NatsCredentials {
  user: string;
  pass: string;
}

export class ConfigError extends Error {}

/** Shortest accepted CONTEXT_SIGNING_KEY: 32 characters, e.g. `openssl rand -base64 32`. */
export const MIN_CONTEXT_SIGNING_KEY_LENGTH = 32;

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

/** A comma-separated list of IP addresses and CIDR ranges (`10.0.0.0/8`, `fc00::/7`); unset or empty: none. */
export function addressesSetting(env: NodeJS.ProcessEnv, name: string): string[] {
  const entries = (env[name] ?? '').split(',').map((entry) => entry.trim()).filter((entry) => entry !== '');
  for (const entry of entries) {
    const [address, prefix, extra] = entry.split('/');
    const family = isIP(address);
    const bits = family === 4 ? 32 : 128;
    const prefixOk = prefix === undefined || (/^\d{1,3}$/.test(prefix) && Number(prefix) <= bits);
    if (family === 0 || !prefixOk || extra !== undefined) throw new ConfigError(`${name} must list IP addresses or CIDR ranges (10.0.0.0/8), comma separated; got "${entry}"`);
  }
  return entries;
}

/** An integer setting: `fallback` when unset or empty, a ConfigError naming it when out of [min, max] or not an integer. */
export function intSetting(env: NodeJS.ProcessEnv, name: string, fallback: number, min = 0, max = Number.MAX_SAFE_INTEGER): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) throw new ConfigError(`${name} must be an integer from ${min} to ${max}, got "${raw}"`);
  return value;
}

/**
 * Unset means the embedded default; set but empty is a mistake (a secret that did not resolve), never a
 * request for the default: that once started an embedded Postgres beside the real NATS (issue 11).
 */
function url(env: NodeJS.ProcessEnv, name: string, protocols: string[]): string | undefined {
  const raw = env[name];
  if (raw === undefined) return undefined;
  if (raw.trim() === '') throw new ConfigError(`${name} is set but empty: give a ${protocols.join(' or ')}// URL, or unset it to run embedded (all-in-one only)`);
  parsedUrl(name, raw, protocols);
  return raw;
}

function parsedUrl(name: string, raw: string, protocols: string[]): URL {
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new ConfigError(`${name} is not a URL: "${raw}"`);
  }
  if (!protocols.includes(parsed.protocol)) throw new ConfigError(`${name} must use ${protocols.join(' or ')}, got "${parsed.protocol}"`);
  return parsed;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): PlatformConfig {
  const logLevel = (env.LOG_LEVEL ?? 'info') as PlatformConfig['logLevel'];
  if (!LOG_LEVELS.includes(logLevel)) throw new ConfigError(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}`);
  if (env.LOG_FORMAT !== undefined && !(LOG_FORMATS as readonly string[]).includes(env.LOG_FORMAT)) {
    throw new ConfigError(`LOG_FORMAT must be one of ${LOG_FORMATS.join(', ')} (unset: pretty on a terminal, json otherwise)`);
  }
  const token = env.BOOTSTRAP_ADMIN_TOKEN || undefined;
  if (token !== undefined && token.length < 16) throw new ConfigError('BOOTSTRAP_ADMIN_TOKEN must be at least 16 characters');
  const metricsToken = env.METRICS_TOKEN || undefined;
  if (metricsToken !== undefined && metricsToken.length < 16) throw new ConfigError('METRICS_TOKEN must be at least 16 characters');
  const account = env.BOOTSTRAP_ACCOUNT || 'default';
  if (!/^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/.test(account)) throw new ConfigError('BOOTSTRAP_ACCOUNT must be a subdomain label (a-z, 0-9, -)');
  const namespace = env.NATS_NAMESPACE ?? '';
  if (!/^[A-Za-z0-9_-]*$/.test(namespace)) throw new ConfigError('NATS_NAMESPACE may hold only letters, digits, _ and -');
  const natsUrl = url(env, 'NATS_URL', ['nats:', 'tls:']);
  const signingKey = contextSigningKey(env, natsUrl);
  return {
    port: intSetting(env, 'PORT', 3000, 0, 65535),
    host: env.HOST || '0.0.0.0',
    databaseUrl: url(env, 'DATABASE_URL', ['postgres:', 'postgresql:']),
    natsUrl,
    natsNamespace: namespace,
    natsCredentials: natsCredentials(env, natsUrl),
    natsStreamReplicas: intSetting(env, 'NATS_STREAM_REPLICAS', 1, 1, 5),
    contextSigningKey: signingKey,
    fileUrlSigningKey: fileUrlSigningKey(env, signingKey),
    dataDir: env.DATA_DIR || '.data',
    embeddedPostgresPort: intSetting(env, 'EMBEDDED_POSTGRES_PORT', 5433, 1, 65535),
    lockTtlSeconds: intSetting(env, 'LOCK_TTL_SECONDS', 900, 1, 86_400),
    rpcTimeoutMs: intSetting(env, 'RPC_TIMEOUT_MS', 5000, 10, 600_000),
    liveUpdatesRecheckMs: intSetting(env, 'LIVE_UPDATES_RECHECK_MS', 30_000, 100, 900_000),
    uploadMaxBytes: intSetting(env, 'UPLOAD_MAX_BYTES', 200 * 1024 * 1024, 1024, 4 * 1024 * 1024 * 1024),
    uploadTimeoutMs: intSetting(env, 'UPLOAD_TIMEOUT_MS', 300_000, 10, 3_600_000),
    uploadIdleMs: intSetting(env, 'UPLOAD_IDLE_MS', 60_000, 10, 3_600_000),
    enrollmentSweepIntervalMs: intSetting(env, 'ENROLLMENT_SWEEP_INTERVAL_MS', 300_000, 100, 86_400_000),
    healthPort: intSetting(env, 'HEALTH_PORT', 9000, 0, 65535),
    authCacheTtlMs: intSetting(env, 'AUTH_CACHE_TTL_MS', 30_000, 0, 3_600_000),
    rateLimitPerToken: intSetting(env, 'RATE_LIMIT_PER_TOKEN', 1200, 0, 1_000_000_000),
    rateLimitPerAddress: intSetting(env, 'RATE_LIMIT_PER_ADDRESS', 300, 0, 1_000_000_000),
    rateLimitWindowS: intSetting(env, 'RATE_LIMIT_WINDOW_S', 60, 1, 86_400),
    trustedProxies: addressesSetting(env, 'TRUSTED_PROXIES'),
    bootstrapAdminToken: token,
    bootstrapAccount: account,
    metricsToken,
    publicUrl: publicUrl(env),
    logLevel,
  };
}

function publicUrl(env: NodeJS.ProcessEnv): string | undefined {
  const raw = env.PUBLIC_URL;
  if (raw === undefined || raw.trim() === '') return undefined;
  const parsed = parsedUrl('PUBLIC_URL', raw, ['http:', 'https:']);
  if (parsed.search || parsed.hash || parsed.username || parsed.password) throw new ConfigError('PUBLIC_URL must be a base URL: no query, fragment or credentials');
  return `${parsed.origin}${parsed.pathname}`.replace(/\/+$/, '');
}

function natsCredentials(env: NodeJS.ProcessEnv, natsUrl: string | undefined): NatsCredentials | undefined {
  const user = env.NATS_USER;
  const pass = env.NATS_PASSWORD;
  if (user === undefined && pass === undefined) return undefined;
  if (!user || !pass) throw new ConfigError('NATS_USER and NATS_PASSWORD go together: set both (non-empty) or neither');
  if (!natsUrl) throw new ConfigError('NATS_USER and NATS_PASSWORD are set but NATS_URL is not');
  return { user, pass };
}

/** One random key per process, for a process whose bus is in-process: nothing outside it can sign or verify. */
let processKey: KeyObject | undefined;

function contextSigningKey(env: NodeJS.ProcessEnv, natsUrl: string | undefined): KeyObject {
  const raw = env.CONTEXT_SIGNING_KEY;
  if (raw === undefined && !natsUrl) return (processKey ??= createSecretKey(randomBytes(32)));
  if (raw === undefined) {
    throw new ConfigError('CONTEXT_SIGNING_KEY must be set when NATS_URL is set: the gateway signs and every service verifies caller contexts with it (the same value everywhere, 32+ characters, e.g. openssl rand -base64 32)');
  }
  if (raw.length < MIN_CONTEXT_SIGNING_KEY_LENGTH) throw new ConfigError(`CONTEXT_SIGNING_KEY must be at least ${MIN_CONTEXT_SIGNING_KEY_LENGTH} characters`);
  return createSecretKey(Buffer.from(raw, 'utf8'));
}

function fileUrlSigningKey(env: NodeJS.ProcessEnv, contextKey: KeyObject): KeyObject {
  const raw = env.FILE_URL_SIGNING_KEY;
  if (raw === undefined) return createSecretKey(Buffer.from(hkdfSync('sha256', contextKey.export(), Buffer.alloc(0), 'lms file urls', 32)));
  if (raw.length < MIN_CONTEXT_SIGNING_KEY_LENGTH) throw new ConfigError(`FILE_URL_SIGNING_KEY must be at least ${MIN_CONTEXT_SIGNING_KEY_LENGTH} characters`);
  return createSecretKey(Buffer.from(raw, 'utf8'));
}

/**
 * All-in-one: the embedded database must not join a shared bus. With NATS_URL set and no DATABASE_URL the
 * process would join the real queue groups and answer real traffic from empty tables (issue 11).
 */
export function assertAllInOneConfig(config: Pick<PlatformConfig, 'natsUrl' | 'databaseUrl'>): void {
  if (config.natsUrl && !config.databaseUrl) {
    throw new ConfigError('DATABASE_URL must be set when NATS_URL is set: an embedded database must not serve a shared bus (unset both to run everything embedded)');
  }
}
