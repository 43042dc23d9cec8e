import { createTestDatabase, type TestDatabase } from '@lms/testing';
import { PostgresEventLog } from '../events/postgres-event-log.js';
import { createLogger } from '../observability/logger.js';
import { createBus as createBusOn } from './create-bus.js';
import { InProcessBus } from './in-process-bus.js';

const logger = createLogger('silent');

describe('createBus without a NATS URL', () => {
  let testDb: TestDatabase;
  const createBus = (config: { natsNamespace: string }, name: string, log: typeof logger) => createBusOn(config, name, log, testDb.url);

  beforeAll(async () => {
    testDb = await createTestDatabase();
  });

  afterAll(async () => {
    await testDb?.drop();
  });

  it('refuses to run without a database for the event log', async () => {
    await expect(createBusOn({ natsNamespace: 'no-db' }, 'gateway', logger)).rejects.toThrow('needs the database URL');
  });

  it('carries its events in Postgres', async () => {
    const bus = await createBus({ natsNamespace: 'shared-pg' }, 'identity', logger);
    expect(bus.events).toBeInstanceOf(PostgresEventLog);
    await bus.close();
  });
  it('gives every deployable of the process the same in-process bus per namespace', async () => {
    const gateway = await createBus({ natsNamespace: 'shared-a' }, 'gateway', logger);
    const identity = await createBus({ natsNamespace: 'shared-a' }, 'identity', logger);
    const elsewhere = await createBus({ natsNamespace: 'shared-b' }, 'identity', logger);

    expect(gateway).toBeInstanceOf(InProcessBus);
    expect(identity).toBe(gateway);
    expect(elsewhere).not.toBe(gateway);

    identity.serve('identity.users.get', 'identity', async () => 'user');
    await expect(gateway.request('identity.users.get', {}, 1000)).resolves.toBe('user');
    await Promise.all([gateway.close(), identity.close(), elsewhere.close()]);
  });

  it('keeps the shared bus open until the last deployable closes it, then starts a fresh one', async () => {
    const gateway = await createBus({ natsNamespace: 'shared-c' }, 'gateway', logger);
    const catalog = await createBus({ natsNamespace: 'shared-c' }, 'catalog', logger);
    catalog.serve('catalog.items.get', 'catalog', async () => 'item');

    await gateway.close();
    await expect(gateway.request('catalog.items.get', {}, 1000)).resolves.toBe('item');

    await catalog.close();
    await expect(gateway.ping()).rejects.toThrow('closed');

    const next = await createBus({ natsNamespace: 'shared-c' }, 'gateway', logger);
    expect(next).not.toBe(gateway);
    await expect(next.ping()).resolves.toBeUndefined();
    await next.close();
  });
});
