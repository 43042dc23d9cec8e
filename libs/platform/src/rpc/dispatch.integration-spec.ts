import { createSecretKey, randomBytes } from 'node:crypto';
import { Controller, Module, type INestMicroservice } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Ctx, Payload } from '@nestjs/microservices';
import { IsString, MaxLength } from 'class-validator';
import { IdParams, type RpcReply, type RpcRequest } from '@lms/contracts';
import { testNatsUrl, uniqueName } from '@lms/testing';
import { BusContext, BusTransport, PassThroughRpcFilter } from '../messaging/bus-transport.js';
import { InProcessBus } from '../messaging/in-process-bus.js';
import type { MessageBus } from '../messaging/message-bus.js';
import { NatsBus } from '../messaging/nats-bus.js';
import { createLogger } from '../observability/logger.js';
import { controllerInstance } from '../runtime/start-service.js';
import { ContextSeal } from './context-seal.js';
import { directHandlers } from './dispatch.js';
import { Handles } from './handles.js';
import { notFound } from './rpc-errors.js';

class RenameBody {
  @IsString() @MaxLength(5)
  name: string;
}

@Controller()
class DirectThings {
  calls = 0;

  @Handles('test.direct.rename', { params: IdParams, body: RenameBody })
  rename(@Payload() request: RpcRequest<RenameBody, object, IdParams>) {
    this.calls++;
    if (request.params.id === 404) throw notFound('THING_NOT_FOUND', 'no such thing');
    return { id: request.params.id, name: request.body.name, dto: request.body instanceof RenameBody };
  }

  /** `@Ctx()` needs Nest's dispatch: it must stay out of the direct map. */
  @Handles('test.direct.subject', { params: IdParams })
  subject(@Payload() request: RpcRequest<unknown, object, IdParams>, @Ctx() context: BusContext) {
    return { id: request.params.id, subject: context.getSubject() };
  }
}

@Module({ controllers: [DirectThings] })
class DirectModule {}

const request = (params: Record<string, unknown>, body: unknown): RpcRequest => ({
  ctx: { requestId: uniqueName('req'), accountId: 1, subAccountId: null, userId: 2, roles: ['admin'] },
  params: params as Record<string, string>,
  query: {},
  body,
});

const seal = new ContextSeal(createSecretKey(randomBytes(32)), 60_000);
// Over NATS (a server and a client connection) when there is one: the seal is checked on what comes over the network.
const natsUrl = testNatsUrl();

describe('direct dispatch of @Handles methods', () => {
  let server: MessageBus;
  let bus: MessageBus;
  let app: INestMicroservice;
  let subjects: string[];

  beforeAll(async () => {
    const namespace = uniqueName('ns');
    server = natsUrl ? await NatsBus.connect(natsUrl, { namespace, name: 'dispatch-server' }) : new InProcessBus({ namespace });
    bus = natsUrl ? await NatsBus.connect(natsUrl, { namespace, name: 'dispatch-client' }) : server;
    const transport = new BusTransport(server, 'things', createLogger('silent'), seal);
    app = await NestFactory.createMicroservice(DirectModule, { strategy: transport, logger: false });
    app.useGlobalFilters(new PassThroughRpcFilter());
    await app.init();
    const direct = directHandlers((controller) => controllerInstance(app, controller));
    subjects = [...direct.keys()];
    transport.useDirectHandlers(direct);
    await app.listen();
    await server.ping();
  });

  afterAll(async () => {
    await app.close();
    await server.close();
    if (bus !== server) await bus.close();
  });

  const call = (subject: string, payload: RpcRequest) => bus.request(subject, payload, 5000, () => seal.sign(subject, payload)) as Promise<RpcReply>;

  it('calls plain @Payload handlers directly and leaves the others to Nest', () => {
    expect(subjects).toContain('test.direct.rename');
    expect(subjects).not.toContain('test.direct.subject');
  });

  it('validates, converts and answers like Nest would', async () => {
    await expect(call('test.direct.rename', request({ id: '7' }, { name: 'kettl' }))).resolves.toEqual({ ok: true, body: { id: 7, name: 'kettl', dto: true } });
  });

  it('refuses what the contract does not allow before the handler runs', async () => {
    const handlers = app.get(DirectThings);
    const before = handlers.calls;
    const answer = await call('test.direct.rename', request({ id: 'x' }, { name: 'too long', role: 'admin' }));
    expect(answer).toMatchObject({ ok: false, error: { status: 400, code: 'VALIDATION_FAILED' } });
    const fields = answer.ok ? [] : [...new Set((answer.error.errors ?? []).map((e) => e.field))].sort();
    expect(fields).toEqual(['id', 'name', 'role']);
    expect(handlers.calls).toBe(before);
  });

  (natsUrl ? it : it.skip)('refuses an unsigned request from the network before validating or calling the handler', async () => {
    const handlers = app.get(DirectThings);
    const before = handlers.calls;
    await expect(bus.request('test.direct.rename', request({ id: '7' }, { name: 'a' }), 5000)).resolves.toMatchObject({ ok: false, error: { status: 401 } });
    expect(handlers.calls).toBe(before);
  });

  it('answers a domain error with its status', async () => {
    await expect(call('test.direct.rename', request({ id: '404' }, { name: 'a' }))).resolves.toMatchObject({ ok: false, error: { status: 404, code: 'THING_NOT_FOUND' } });
  });
});
