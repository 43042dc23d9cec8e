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
  dataDir: string;
  /** TCP port of the embedded Postgres (all-in-one mode without DATABASE_URL). */
  embeddedPostgresPort: number;
  rpcTimeoutMs: number;
  healthPort: number;
  authCacheTtlMs: number;
  bootstrapAdminToken?: string;
  bootstrapAccount: string;
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
}

export class ConfigError extends Error {}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

function int(env: NodeJS.ProcessEnv, name: string, fallback: number, min = 0, max = Number.MAX_SAFE_INTEGER): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) throw new ConfigError(`${name} must be an integer from ${min} to ${max}, got "${raw}"`);
  return value;
}

function url(env: NodeJS.ProcessEnv, name: string, protocols: string[]): string | undefined {
  const raw = env[name];
  if (raw === undefined || raw === '') return undefined;
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new ConfigError(`${name} is not a URL: "${raw}"`);
  }
  if (!protocols.includes(parsed.protocol)) throw new ConfigError(`${name} must use ${protocols.join(' or ')}, got "${parsed.protocol}"`);
  return raw;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): PlatformConfig {
  const logLevel = (env.LOG_LEVEL ?? 'info') as PlatformConfig['logLevel'];
  if (!LOG_LEVELS.includes(logLevel)) throw new ConfigError(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}`);
  const token = env.BOOTSTRAP_ADMIN_TOKEN || undefined;
  if (token !== undefined && token.length < 16) throw new ConfigError('BOOTSTRAP_ADMIN_TOKEN must be at least 16 characters');
  const account = env.BOOTSTRAP_ACCOUNT || 'default';
  if (!/^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/.test(account)) throw new ConfigError('BOOTSTRAP_ACCOUNT must be a subdomain label (a-z, 0-9, -)');
  const namespace = env.NATS_NAMESPACE ?? '';
  if (!/^[A-Za-z0-9_-]*$/.test(namespace)) throw new ConfigError('NATS_NAMESPACE may hold only letters, digits, _ and -');
  return {
    port: int(env, 'PORT', 3000, 0, 65535),
    host: env.HOST || '0.0.0.0',
    databaseUrl: url(env, 'DATABASE_URL', ['postgres:', 'postgresql:']),
    natsUrl: url(env, 'NATS_URL', ['nats:', 'tls:']),
    natsNamespace: namespace,
    dataDir: env.DATA_DIR || '.data',
    embeddedPostgresPort: int(env, 'EMBEDDED_POSTGRES_PORT', 5433, 1, 65535),
    rpcTimeoutMs: int(env, 'RPC_TIMEOUT_MS', 5000, 10, 600_000),
    healthPort: int(env, 'HEALTH_PORT', 9000, 0, 65535),
    authCacheTtlMs: int(env, 'AUTH_CACHE_TTL_MS', 30_000, 0, 3_600_000),
    bootstrapAdminToken: token,
    bootstrapAccount: account,
    logLevel,
  };
}
