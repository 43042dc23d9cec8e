import { Controller, Module, type INestMicroservice } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Ctx, MessagePattern, Payload } from '@nestjs/microservices';
import { of } from 'rxjs';
import { createSecretKey, randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import type { RpcReply, RpcRequest } from '@lms/contracts';
import { testNatsUrl, uniqueName } from '@lms/testing';
import { CONTEXT_REFUSED, ContextSeal } from '../rpc/context-seal.js';
import { INTERNAL_ERROR, notFound } from '../rpc/rpc-errors.js';
import { BusContext, BusTransport, PassThroughRpcFilter } from './bus-transport.js';
import { InProcessBus } from './in-process-bus.js';
import type { MessageBus } from './message-bus.js';
import { NatsBus } from './nats-bus.js';
import { paged, reply } from './reply.js';

/** Calls of the handler with an effect, so a refused request can be shown to have none. */
const renamed: string[] = [];

@Controller()
class ThingHandlers {
  @MessagePattern('test.things.rename')
  rename(@Payload() request: RpcRequest<{ name: string }>) {
    renamed.push(request.body.name);
    return { renamed: request.body.name, by: request.ctx.userId };
  }

  @MessagePattern('test.things.get')
  get(@Payload() request: RpcRequest<unknown, Record<string, unknown>, { id: string }>, @Ctx() context: BusContext) {
    return { id: request.params.id, subject: context.getSubject() };
  }

  @MessagePattern('test.things.create')
  async create(@Payload() request: RpcRequest<{ name: string }>) {
    return reply({ id: 1, name: request.body.name }, { status: 201, headers: { location: '/things/1' } });
  }

  @MessagePattern('test.things.list')
  list() {
    return of(paged([{ id: 1 }, { id: 2 }], 10));
  }

  @MessagePattern('test.things.missing')
  missing(@Payload() request: RpcRequest<unknown, Record<string, unknown>, { id: string }>) {
    throw notFound('THING_NOT_FOUND', `thing ${request.params.id} not found`);
  }

  @MessagePattern('test.things.broken')
  async broken() {
    throw new Error('password=hunter2 leaked from the database driver');
  }
}

@Module({ controllers: [ThingHandlers] })
class ThingModule {}

interface Buses {
  server: MessageBus;
  client: MessageBus;
}

const natsUrl = testNatsUrl();
const transports: Array<[string, () => Promise<Buses>]> = [
  [
    'the in-process bus',
    async () => {
      const bus = new InProcessBus({ namespace: uniqueName('ns') });
      return { server: bus, client: bus };
    },
  ],
];
// Without a NATS server (TEST_NATS_URL empty) only the in-process bus can be exercised.
if (natsUrl) {
  transports.push([
    'NATS',
    async () => {
      const namespace = uniqueName('ns');
      return {
        server: await NatsBus.connect(natsUrl, { namespace, name: 'transport-server' }),
        client: await NatsBus.connect(natsUrl, { namespace, name: 'transport-client' }),
      };
    },
  ]);
}

const request = (params: Record<string, string>, body: unknown = {}): RpcRequest => ({
  ctx: { requestId: uniqueName('req'), accountId: 1, subAccountId: null, userId: 2, roles: ['admin'] },
  params,
  query: {},
  body,
});

const key = createSecretKey(randomBytes(32));
const seal = new ContextSeal(key, 60_000);

describe.each(transports)('BusTransport over %s', (name, open) => {
  // Two connections through a NATS server; the in-process bus carries requests of this process only.
  const overNetwork = name === 'NATS';
  let buses: Buses;
  let app: INestMicroservice;
  const logs: Array<Record<string, unknown>> = [];

  beforeAll(async () => {
    buses = await open();
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        logs.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
        done();
      },
    });
    const logger = pino({ level: 'debug' }, sink);
    app = await NestFactory.createMicroservice(ThingModule, { strategy: new BusTransport(buses.server, 'things', logger, seal), logger: false });
    app.useGlobalFilters(new PassThroughRpcFilter());
    await app.listen();
    await buses.server.ping(); // subscriptions reached the server
  });

  afterAll(async () => {
    await app.close();
    await buses.server.close();
    if (buses.client !== buses.server) await buses.client.close();
  });

  const send = (subject: string, payload: unknown) => buses.client.request(subject, payload, 5000) as Promise<RpcReply>;
  const call = (subject: string, payload: RpcRequest) => send(subject, seal.sign(subject, payload));


  it('answers a plain value as an ok reply with that body', async () => {
    await expect(call('test.things.get', request({ id: '42' }))).resolves.toEqual({
      ok: true,
      body: { id: '42', subject: 'test.things.get' },
    });
  });

  it('answers a Reply with its status and headers', async () => {
    await expect(call('test.things.create', request({}, { name: 'kettle' }))).resolves.toEqual({
      ok: true,
      status: 201,
      body: { id: 1, name: 'kettle' },
      headers: { location: '/things/1' },
    });
  });

  it('resolves an Observable result and carries the paging total', async () => {
    await expect(call('test.things.list', request({}))).resolves.toEqual({ ok: true, body: [{ id: 1 }, { id: 2 }], total: 10 });
  });

  it('keeps the status and code of a DomainError end to end', async () => {
    await expect(call('test.things.missing', request({ id: '7' }))).resolves.toEqual({
      ok: false,
      error: { status: 404, code: 'THING_NOT_FOUND', title: 'Not Found', detail: 'thing 7 not found' },
    });
  });

  it('turns an unexpected error into a generic 500 and logs it with the request id', async () => {
    const payload = request({});
    const answer = await call('test.things.broken', payload);
    expect(answer).toEqual({ ok: false, error: INTERNAL_ERROR });
    expect(JSON.stringify(answer)).not.toContain('hunter2');

    const logged = logs.find((line) => line.level === 50 && line.requestId === payload.ctx.requestId);
    expect(logged).toMatchObject({ subject: 'test.things.broken', err: { message: expect.stringContaining('hunter2') } });
    expect((logged?.err as { stack?: string }).stack).toContain('broken');
  });

  it('logs one info line per handled request with subject, request id and status', async () => {
    const payload = request({ id: '9' });
    await call('test.things.missing', payload);
    const lines = logs.filter((line) => line.requestId === payload.ctx.requestId && line.msg === 'handled request');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ level: 30, subject: 'test.things.missing', status: 404, durationMs: expect.any(Number) });
  });

  if (!overNetwork) {
    it('serves a request from this process without a seal: it was on no wire', async () => {
      renamed.splice(0);
      const payload: RpcRequest<{ name: string }> = { ...request({}), ctx: { ...request({}).ctx, userId: 1, roles: ['admin'] }, body: { name: 'local' } };
      await expect(send('test.things.rename', payload)).resolves.toEqual({ ok: true, body: { renamed: 'local', by: 1 } });
      expect(renamed).toEqual(['local']);
    });
    return;
  }

  describe('refuses, with a 401 and without running the handler, a request whose caller context', () => {
    const refused = { ok: false, error: expect.objectContaining({ status: 401, code: CONTEXT_REFUSED }) };
    const admin = (name: string): RpcRequest<{ name: string }> => ({ ...request({}), ctx: { ...request({}).ctx, userId: 1, roles: ['admin'] }, body: { name } });

    beforeEach(() => renamed.splice(0));

    it('is not signed', async () => {
      await expect(send('test.things.rename', admin('unsigned'))).resolves.toEqual(refused);
      expect(renamed).toEqual([]);
    });

    it('is signed with another key', async () => {
      const forger = new ContextSeal(createSecretKey(randomBytes(32)), 60_000);
      await expect(send('test.things.rename', forger.sign('test.things.rename', admin('forged')))).resolves.toEqual(refused);
      expect(renamed).toEqual([]);
    });

    it('was changed after signing (roles raised, body swapped)', async () => {
      const signed = seal.sign('test.things.rename', { ...admin('signed'), ctx: { ...admin('x').ctx, roles: ['learner' as const] } });
      await expect(send('test.things.rename', { ...signed, ctx: { ...signed.ctx, roles: ['admin'] } })).resolves.toEqual(refused);
      await expect(send('test.things.rename', { ...signed, body: { name: 'swapped' } })).resolves.toEqual(refused);
      expect(renamed).toEqual([]);
    });

    it('was signed for another subject', async () => {
      const signed = seal.sign('test.things.get', admin('replayed'));
      await expect(send('test.things.rename', signed)).resolves.toEqual(refused);
      expect(renamed).toEqual([]);
    });

    it('was signed too long ago', async () => {
      const old = new ContextSeal(key, 60_000, () => Date.now() - 61_000 - 60_000);
      await expect(send('test.things.rename', old.sign('test.things.rename', admin('stale')))).resolves.toEqual(refused);
      expect(renamed).toEqual([]);
    });

    it('is not an object at all', async () => {
      await expect(send('test.things.rename', 'hello')).resolves.toEqual(refused);
      await expect(send('test.things.rename', undefined)).resolves.toEqual(refused);
    });

    it('and logs the refusal as a warning without the signature', async () => {
      const payload = { ...admin('logged'), seal: { v: 1, at: Date.now(), mac: 'A'.repeat(43) } };
      await send('test.things.rename', payload);
      const line = logs.find((l) => l.requestId === payload.ctx.requestId && l.msg === 'refused a request not signed by the gateway');
      expect(line).toMatchObject({ level: 40, subject: 'test.things.rename', reason: 'mismatch' });
      expect(JSON.stringify(line)).not.toContain('A'.repeat(43));
    });

    it('while a signed one is served', async () => {
      await expect(call('test.things.rename', admin('signed'))).resolves.toEqual({ ok: true, body: { renamed: 'signed', by: 1 } });
      expect(renamed).toEqual(['signed']);
    });
  });
});
