import { loadConfig, type Logger } from '@lms/platform';
import { ApiClient, createTestDatabase, TEST_CONTEXT_SIGNING_KEY, deleteNamespaceStreams, IdentityFactory, testNatsUrl, type TestDatabase, uniqueName } from '@lms/testing';
import { startSystem, type System } from '../src/host.js';

export interface TestSystem {
  system: System;
  db: TestDatabase;
  /** The bootstrap administrator's token. */
  token: string;
  api: ApiClient;
  factory: IdentityFactory;
  close(): Promise<void>;
}

/** The whole system in this process over real Postgres (a fresh database) and real NATS (its own namespace) when available. */
export async function startTestSystem(env: Record<string, string> = {}, existing?: TestDatabase, logger?: Logger): Promise<TestSystem> {
  const db = existing ?? (await createTestDatabase());
  const token = env.BOOTSTRAP_ADMIN_TOKEN ?? `bootstrap_${uniqueName('token')}`;
  const natsUrl = testNatsUrl();
  // A namespace given by the caller may be shared with another system: its streams are the caller's to remove.
  const ownsNamespace = env.NATS_NAMESPACE === undefined;
  const namespace = env.NATS_NAMESPACE ?? uniqueName('e2e');
  const config = loadConfig({
    DATABASE_URL: db.url,
    ...(natsUrl ? { NATS_URL: natsUrl, CONTEXT_SIGNING_KEY: TEST_CONTEXT_SIGNING_KEY } : {}),
    NATS_NAMESPACE: namespace,
    PORT: '0',
    HOST: '127.0.0.1',
    BOOTSTRAP_ADMIN_TOKEN: token,
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    // Specs fire many requests with one token from one address; rate limits have their own spec.
    RATE_LIMIT_PER_TOKEN: '0',
    RATE_LIMIT_PER_ADDRESS: '0',
    ...env,
  });
  const system = await startSystem({ config, logger });
  return {
    system,
    db,
    token,
    api: new ApiClient(system.url, token),
    factory: new IdentityFactory(db.url),
    async close() {
      await system.close();
      if (natsUrl && ownsNamespace) await deleteNamespaceStreams(natsUrl, namespace);
      if (!existing) await db.drop();
    },
  };
}
