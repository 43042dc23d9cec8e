import { createSecretKey } from 'node:crypto';
import { EventEmitter } from 'node:events';
import type { PassThrough } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { LIVE_UPDATES_TOKEN_PURPOSE, type LiveUpdatesClaims } from '@lms/contracts';
import { signToken } from '@lms/platform';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { GatewayDeps } from '../gateway-deps.js';
import { ProblemError } from '../http/problem.js';
import type { ServiceClient } from '../http/service-client.js';
import { LiveUpdatesController, MAX_STREAMS_PER_USER } from './live-updates.controller.js';

const key = createSecretKey(Buffer.alloc(32, 7));
const claims: LiveUpdatesClaims = { accountId: 1, userId: 2, liveCourseId: 3, channel: '/live_courses/3/registrations/*' };
const token = signToken(key, LIVE_UPDATES_TOKEN_PURPOSE, claims, 900);

/** Every stream a test opened, left after it whatever it asserted, so none polls on after a failure. */
const opened: (() => void)[] = [];
afterEach(() => opened.splice(0).forEach((leave) => leave()));

/**
 * The stream's own rules, with scheduling's answers made up: a log that never ends (a full page each time),
 * so how many pages the stream asks for shows how far it runs ahead of its client.
 */
function setUp() {
  let pages = 0;
  const services = {
    request: async () => {
      await new Promise((answered) => setImmediate(answered)); // an answer comes from the network, in a later turn
      pages += 1;
      const changes = Array.from({ length: 100 }, (_, i) => ({ id: `${pages}-${i}`, type: 'scheduling.registration.created', data: { user_id: i, note: 'x'.repeat(100) }, time: '2026-11-28T00:00:00.000Z' }));
      return { ok: true, status: 200, body: { changes } };
    },
  } as unknown as ServiceClient;
  const deps = { runtime: { config: { fileUrlSigningKey: key, liveUpdatesRecheckMs: 30_000 }, logger: { warn: () => undefined } }, lifecycle: { closing: false } } as unknown as GatewayDeps;
  const controller = new LiveUpdatesController(deps, services);
  const open = async () => {
    const raw = Object.assign(new EventEmitter(), { socket: Object.assign(new EventEmitter(), { setTimeout: () => undefined, destroy: () => undefined }) });
    const request = { id: 'r', query: { token }, headers: {}, raw } as unknown as FastifyRequest;
    let body: PassThrough | undefined;
    const reply = { raw: new EventEmitter(), header: () => reply, send: (out: PassThrough) => ((body = out), reply) } as unknown as FastifyReply;
    await controller.stream(request, reply);
    const leave = () => raw.emit('close');
    opened.push(leave);
    return { body: body!, leave };
  };
  return { open, pages: () => pages };
}

describe('live updates stream', () => {
  it('runs no further ahead of a client that does not read than its buffers hold', async () => {
    const { open, pages } = setUp();
    const stream = await open();
    await sleep(200);
    const asked = pages();
    // What the stream buffers (its two sides, 64 KiB each) and one page more, then it waits: without the
    // wait it would have asked for thousands of pages by now.
    expect(asked).toBeLessThan(10);
    expect(stream.body.writableLength + stream.body.readableLength).toBeLessThan(stream.body.writableHighWaterMark + stream.body.readableHighWaterMark + 25_000);
    await sleep(200);
    expect(pages()).toBe(asked);
    // Once read, it goes on (however busy the machine: this waits for it, not for a time).
    stream.body.resume();
    for (const deadline = Date.now() + 10_000; pages() <= asked + 3 && Date.now() < deadline; ) await sleep(10);
    expect(pages()).toBeGreaterThan(asked + 3);
    stream.leave();
    await sleep(50);
    const left = pages();
    await sleep(100);
    expect(pages()).toBe(left);
  });

  it(`opens at most ${MAX_STREAMS_PER_USER} streams at once for one user, and another once one ends`, async () => {
    const { open } = setUp();
    const streams = [];
    for (let i = 0; i < MAX_STREAMS_PER_USER; i++) streams.push(await open());
    let refusal: unknown;
    try {
      await open();
    } catch (err) {
      refusal = err;
    }
    expect(refusal).toBeInstanceOf(ProblemError);
    expect(refusal).toMatchObject({ status: 429, code: 'TOO_MANY_STREAMS', headers: { 'retry-after': expect.any(String) } });
    streams[0].leave();
    await sleep(20);
    await open();
  });

  it('holds no stream, nor a place among the user\'s, for a client that left while its subscriber was checked', async () => {
    const raw = Object.assign(new EventEmitter(), { destroyed: false, socket: Object.assign(new EventEmitter(), { setTimeout: () => undefined, destroy: () => undefined }) });
    let polls = 0;
    const services = {
      request: async () => {
        polls += 1;
        raw.destroyed = true; // the client hangs up during the check
        return { ok: true, status: 200, body: { changes: [] } };
      },
    } as unknown as ServiceClient;
    const deps = { runtime: { config: { fileUrlSigningKey: key, liveUpdatesRecheckMs: 30_000 }, logger: { warn: () => undefined } }, lifecycle: { closing: false } } as unknown as GatewayDeps;
    const controller = new LiveUpdatesController(deps, services);
    let sent = false;
    const reply = { raw: new EventEmitter(), header: () => reply, send: () => ((sent = true), reply) } as unknown as FastifyReply;
    await controller.stream({ id: 'r', query: { token }, headers: {}, raw } as unknown as FastifyRequest, reply);
    await sleep(50);
    expect([sent, polls]).toEqual([false, 1]);
  });
});
