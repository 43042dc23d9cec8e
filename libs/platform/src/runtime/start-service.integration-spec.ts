import { Injectable, Module, type OnApplicationBootstrap, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { createTestDatabase, TEST_CONTEXT_SIGNING_KEY, type TestDatabase, uniqueName } from '@lms/testing';
import type { MigrationInterface, QueryRunner } from 'typeorm';
import { loadConfig } from '../config/config.js';
import { eventTablesUp } from '../events/event-tables.js';
import { idempotencyTableUp } from '../idempotency/idempotency-table.js';
import { createBus } from '../messaging/create-bus.js';
import type { MessageBus } from '../messaging/message-bus.js';
import { createLogger } from '../observability/logger.js';
import type { Deployable } from './runtime.js';
import { startService } from './start-service.js';

const SCHEMA = 'hooktest';

class HookTestSchema1700000000000 implements MigrationInterface {
  name = 'HookTestSchema1700000000000';
  async up(q: QueryRunner): Promise<void> {
    await eventTablesUp(q, SCHEMA);
    await idempotencyTableUp(q, SCHEMA);
  }
  async down(): Promise<void> {}
}

const calls: string[] = [];

/** Where services subscribe their event consumers and start their timers. */
@Injectable()
class Hooks implements OnModuleInit, OnApplicationBootstrap, OnModuleDestroy {
  onModuleInit(): void {
    calls.push('init');
  }
  onApplicationBootstrap(): void {
    calls.push('bootstrap');
  }
  onModuleDestroy(): void {
    calls.push('destroy');
  }
}

@Module({ providers: [Hooks] })
class HooksModule {}

describe('startService', () => {
  let testDb: TestDatabase;
  let bus: MessageBus;
  let service: Deployable | undefined;
  const logger = createLogger('silent');

  beforeAll(async () => {
    testDb = await createTestDatabase();
    bus = await createBus(loadConfig({ NATS_NAMESPACE: uniqueName('hooks'), CONTEXT_SIGNING_KEY: TEST_CONTEXT_SIGNING_KEY }), 'hooks', logger, testDb.url);
  });

  afterAll(async () => {
    await service?.close();
    await bus?.close();
    await testDb?.drop();
  });

  it('runs each lifecycle hook once: a consumer subscribed in a hook is subscribed once, and unsubscribed at close', async () => {
    const config = loadConfig({ CONTEXT_SIGNING_KEY: TEST_CONTEXT_SIGNING_KEY });
    service = await startService(
      { name: 'hooks', schema: SCHEMA, module: HooksModule, entities: [], migrations: [HookTestSchema1700000000000] },
      { config, databaseUrl: testDb.url, bus, logger },
    );
    expect(calls).toEqual(['init', 'bootstrap']);
    await service.close();
    service = undefined;
    expect(calls).toEqual(['init', 'bootstrap', 'destroy']);
  });
});
