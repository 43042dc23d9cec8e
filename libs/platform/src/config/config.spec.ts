import { assertAllInOneConfig, ConfigError, loadConfig } from './config.js';

const KEY = 'k'.repeat(32);
const NATS = 'nats://127.0.0.1:4222';

const errorOf = (fn: () => unknown): string => {
  try {
    fn();
  } catch (err) {
    if (err instanceof ConfigError) return err.message;
    throw err;
  }
  throw new Error('no ConfigError');
};

describe('loadConfig', () => {
  describe('a URL that is set but empty stops the process instead of choosing the embedded default (issue 11, finding 1)', () => {
    it.each(['DATABASE_URL', 'NATS_URL'])('%s', (name) => {
      for (const value of ['', '  ']) expect(errorOf(() => loadConfig({ [name]: value, CONTEXT_SIGNING_KEY: KEY }))).toMatch(new RegExp(`^${name} is set but empty`));
    });

    it('while an unset one still means embedded', () => {
      const config = loadConfig({});
      expect(config.databaseUrl).toBeUndefined();
      expect(config.natsUrl).toBeUndefined();
    });
  });

  it('LOCK_TTL_SECONDS: 900 by default (the original service\'s lifetime), 1 to 86400 accepted, anything else refused', () => {
    expect(loadConfig({}).lockTtlSeconds).toBe(900);
    expect(loadConfig({ LOCK_TTL_SECONDS: '1' }).lockTtlSeconds).toBe(1);
    for (const value of ['0', '-5', '1.5', 'soon', '86401']) expect(errorOf(() => loadConfig({ LOCK_TTL_SECONDS: value }))).toMatch(/^LOCK_TTL_SECONDS must be an integer/);
  });

  it('PUBLIC_URL: unset by default; a base http(s) URL without its trailing slash; anything else refused', () => {
    expect(loadConfig({}).publicUrl).toBeUndefined();
    expect(loadConfig({ PUBLIC_URL: 'https://lms.example.com/' }).publicUrl).toBe('https://lms.example.com');
    expect(loadConfig({ PUBLIC_URL: 'https://example.com/lms/' }).publicUrl).toBe('https://example.com/lms');
    expect(errorOf(() => loadConfig({ PUBLIC_URL: 'lms.example.com' }))).toMatch(/^PUBLIC_URL is not a URL/);
    expect(errorOf(() => loadConfig({ PUBLIC_URL: 'ftp://lms.example.com' }))).toMatch(/^PUBLIC_URL must use http: or https:/);
    expect(errorOf(() => loadConfig({ PUBLIC_URL: 'https://lms.example.com/?a=1' }))).toMatch(/^PUBLIC_URL must be a base URL/);
  });

  it('TRUSTED_PROXIES: none by default; IP addresses and CIDR ranges, comma separated; anything else refused', () => {
    expect(loadConfig({}).trustedProxies).toEqual([]);
    expect(loadConfig({ TRUSTED_PROXIES: '' }).trustedProxies).toEqual([]);
    expect(loadConfig({ TRUSTED_PROXIES: ' 10.0.0.0/8, 192.168.1.7 ,fc00::/7,::1 ' }).trustedProxies).toEqual(['10.0.0.0/8', '192.168.1.7', 'fc00::/7', '::1']);
    for (const value of ['10.0.0.0/33', 'fc00::/129', 'ingress', '10.0.0/8', '10.0.0.0/8/1', '10.0.0.0/x', '*']) {
      expect(errorOf(() => loadConfig({ TRUSTED_PROXIES: value }))).toMatch(/^TRUSTED_PROXIES must list IP addresses or CIDR ranges/);
    }
  });

  it('all-in-one refuses NATS_URL without DATABASE_URL: an embedded database must not serve a shared bus', () => {
    expect(errorOf(() => assertAllInOneConfig(loadConfig({ NATS_URL: NATS, CONTEXT_SIGNING_KEY: KEY })))).toMatch(/^DATABASE_URL must be set when NATS_URL is set/);
    expect(() => assertAllInOneConfig(loadConfig({}))).not.toThrow();
    expect(() => assertAllInOneConfig(loadConfig({ NATS_URL: NATS, DATABASE_URL: 'postgres://h/db', CONTEXT_SIGNING_KEY: KEY }))).not.toThrow();
  });

  describe('CONTEXT_SIGNING_KEY', () => {
    it('is required with NATS_URL, and named in the message', () => {
      expect(errorOf(() => loadConfig({ NATS_URL: NATS }))).toMatch(/^CONTEXT_SIGNING_KEY must be set when NATS_URL is set/);
    });

    it('must be 32 characters or more, empty included', () => {
      for (const value of ['', 'short', 'k'.repeat(31)]) {
        expect(errorOf(() => loadConfig({ NATS_URL: NATS, CONTEXT_SIGNING_KEY: value }))).toBe('CONTEXT_SIGNING_KEY must be at least 32 characters');
        expect(errorOf(() => loadConfig({ CONTEXT_SIGNING_KEY: value }))).toBe('CONTEXT_SIGNING_KEY must be at least 32 characters');
      }
    });

    it('is generated once per process when the bus is in-process', () => {
      const a = loadConfig({}).contextSigningKey;
      const b = loadConfig({}).contextSigningKey;
      expect(a.symmetricKeySize).toBe(32);
      expect(a.equals(b)).toBe(true);
    });

    it('never shows up when the configuration is logged or printed', () => {
      const config = loadConfig({ NATS_URL: NATS, CONTEXT_SIGNING_KEY: `${KEY}-secret-material`, NATS_USER: 'gateway', NATS_PASSWORD: 'nats-secret-password' });
      expect(JSON.stringify(config)).not.toContain('secret-material');
      expect(String(config.contextSigningKey)).not.toContain('secret-material');
      expect(config.contextSigningKey.export().toString()).toBe(`${KEY}-secret-material`);
    });
  });

  describe('NATS_USER and NATS_PASSWORD', () => {
    it('are read together', () => {
      expect(loadConfig({ NATS_URL: NATS, CONTEXT_SIGNING_KEY: KEY, NATS_USER: 'identity', NATS_PASSWORD: 'p' }).natsCredentials).toEqual({ user: 'identity', pass: 'p' });
      expect(loadConfig({ NATS_URL: NATS, CONTEXT_SIGNING_KEY: KEY }).natsCredentials).toBeUndefined();
    });

    it('refuse one without the other, an empty one, or credentials without NATS_URL', () => {
      const both = /^NATS_USER and NATS_PASSWORD go together/;
      expect(errorOf(() => loadConfig({ NATS_URL: NATS, CONTEXT_SIGNING_KEY: KEY, NATS_USER: 'identity' }))).toMatch(both);
      expect(errorOf(() => loadConfig({ NATS_URL: NATS, CONTEXT_SIGNING_KEY: KEY, NATS_PASSWORD: 'p' }))).toMatch(both);
      expect(errorOf(() => loadConfig({ NATS_URL: NATS, CONTEXT_SIGNING_KEY: KEY, NATS_USER: 'identity', NATS_PASSWORD: '' }))).toMatch(both);
      expect(errorOf(() => loadConfig({ NATS_USER: 'identity', NATS_PASSWORD: 'p' }))).toBe('NATS_USER and NATS_PASSWORD are set but NATS_URL is not');
    });
  });
});
