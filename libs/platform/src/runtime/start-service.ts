import { type DynamicModule, Global, Module, type Type } from '@nestjs/common';
import { ModulesContainer, NestFactory } from '@nestjs/core';
import type { MixedList, EntitySchema } from 'typeorm';
import { Outbox } from '../events/outbox.js';
import { OutboxRelay } from '../events/outbox-relay.js';
import { IdempotencyGuard } from '../idempotency/idempotency-guard.js';
import { BusTransport, PassThroughRpcFilter } from '../messaging/bus-transport.js';
import { NestLogger } from '../observability/logger.js';
import { contextSealFor } from '../rpc/context-seal.js';
import { directHandlers } from '../rpc/dispatch.js';
import { Database, openDatabase } from '../persistence/database.js';
import type { Deployable, Runtime } from './runtime.js';

export const RUNTIME = Symbol('RUNTIME');
export const MESSAGE_BUS = Symbol('MESSAGE_BUS');
export const LOGGER = Symbol('LOGGER');

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- TypeORM's own signature for entity and migration lists
type Constructor = new (...args: any[]) => any;

export interface ServiceDefinition {
  /** Deployable name; also its NATS queue group and event source. */
  name: string;
  /** Postgres schema the service owns. */
  schema: string;
  module: Type | DynamicModule;
  entities: MixedList<Constructor | EntitySchema>;
  migrations: Constructor[];
  /** Work after migrations and before serving, e.g. the first account's bootstrap. */
  onReady?: (context: ServiceContext) => Promise<void>;
}

export interface ServiceContext {
  runtime: Runtime;
  db: Database;
  outbox: Outbox;
  get<T>(token: Type<T> | symbol | string): T;
}

@Global()
@Module({})
class ServiceCoreModule {
  static for(runtime: Runtime, db: Database, outbox: Outbox): DynamicModule {
    const providers = [
      { provide: RUNTIME, useValue: runtime },
      { provide: MESSAGE_BUS, useValue: runtime.bus },
      { provide: LOGGER, useValue: runtime.logger },
      { provide: Database, useValue: db },
      { provide: Outbox, useValue: outbox },
    ];
    return { module: ServiceCoreModule, providers, exports: providers.map((p) => p.provide) };
  }
}

/**
 * Starts one service: opens and migrates its schema, serves its subjects over the bus,
 * relays its outbox to the event log. The same code runs standalone and in all-in-one mode.
 */
export async function startService(definition: ServiceDefinition, runtime: Runtime): Promise<Deployable> {
  const logger = runtime.logger.child({ service: definition.name });
  const db = await openDatabase({
    url: runtime.databaseUrl,
    schema: definition.schema,
    entities: definition.entities,
    migrations: definition.migrations,
    logger,
  });
  const outbox = new Outbox(db, definition.name);
  const relay = new OutboxRelay(db, runtime.bus.events, logger);
  const serviceRuntime: Runtime = { ...runtime, logger };
  const idempotency = new IdempotencyGuard(db, logger);

  @Module({ imports: [ServiceCoreModule.for(serviceRuntime, db, outbox), definition.module] })
  class ServiceRootModule {}

  const transport = new BusTransport(runtime.bus, definition.name, logger, contextSealFor(runtime.config), (subject, payload, invoke) =>
    idempotency.run(subject, payload, invoke),
  );
  const app = await NestFactory.createMicroservice(ServiceRootModule, { strategy: transport, logger: new NestLogger(logger) });
  app.useGlobalFilters(new PassThroughRpcFilter());
  transport.useDirectHandlers(directHandlers((controller) => controllerInstance(app, controller)));
  await definition.onReady?.({ runtime: serviceRuntime, db, outbox, get: (token) => app.get(token) });
  // listen() initialises the app, then serves. No init() before it: this @nestjs/microservices with this
  // @nestjs/core calls the init and bootstrap hooks again in init(), and every event consumer subscribed twice.
  await app.listen();
  outbox.onAdded(() => relay.nudge());
  relay.start();
  // The schema's owner purges its expired keys (jobs-worker works in the jobs schema and leaves that to jobs).
  if (definition.migrations.length > 0) idempotency.startPurging();
  logger.info({ schema: definition.schema }, `${definition.name} is serving`);

  return {
    name: definition.name,
    indicators: [{ name: `${definition.name}.database`, check: () => db.ping() }],
    async close() {
      await idempotency.stopPurging();
      await app.close();
      await relay.stop();
      await db.close();
    },
  };
}

/**
 * The controller instance this app built, or undefined when the controller is another deployable's or is
 * not a singleton (a request-scoped controller gets a new instance per request from Nest).
 */
export function controllerInstance(app: { get<T>(token: Type<T>): T }, controller: abstract new (...args: never[]) => object): object | undefined {
  for (const module of app.get(ModulesContainer).values()) {
    const wrapper = module.controllers.get(controller as unknown as Type<object>);
    if (wrapper) return wrapper.isDependencyTreeStatic() && wrapper.instance ? (wrapper.instance as object) : undefined;
  }
  return undefined;
}

/** Applies a service's pending migrations and disconnects (`npm run migrate`). */
export async function migrateService(definition: ServiceDefinition, databaseUrl: string, logger: Runtime['logger']): Promise<void> {
  const db = await openDatabase({ url: databaseUrl, schema: definition.schema, entities: definition.entities, migrations: definition.migrations, logger });
  await db.close();
}
