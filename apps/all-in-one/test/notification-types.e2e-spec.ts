import type { CloudEvent } from '@lms/contracts';
import { type ApiClient, eventually, type TestUser } from '@lms/testing';
import { startTestSystem, type TestSystem } from './test-system.js';

const TYPES = '/api/admin/notification_types';


interface TypeView {
  id: string;
  audience: string;
  category: string;
  name: string;
  description: string;
  channels: Record<string, boolean>;
}

describe('notification types, end to end (gateway → NATS → identity → Postgres)', () => {
  let t: TestSystem;
  let admin: ApiClient;
  let accountId: number;
  let author: TestUser;
  let learner: TestUser;
  let stranger: TestUser;

  beforeAll(async () => {
    t = await startTestSystem();
    admin = t.api;
    ({ accountId, author, learner, stranger } = await t.factory.cast());
  });
  afterAll(() => t?.close());

  const typeOf = async (api: ApiClient, id: string): Promise<TypeView> => (await api.get(`${TYPES}/${id}`)).body.notification_types[0];

  describe('authentication and access', () => {
    it('answers 401 without a token', async () => {
      const anonymous = admin.as(undefined);
      for (const res of [await anonymous.get(TYPES), await anonymous.get(`${TYPES}/course_assigned`), await anonymous.patch(`${TYPES}/course_assigned`, { channels: { email: false } })]) {
        expect(res.status).toBe(401);
      }
    });

    it('answers 403 on all three endpoints to callers without access (learners, authors), changing nothing', async () => {
      const before = await typeOf(admin, 'course_assigned');
      for (const token of [learner.token, author.token]) {
        const other = admin.as(token);
        for (const res of [
          await other.get(TYPES),
          await other.get(`${TYPES}/course_assigned`),
          await other.patch(`${TYPES}/course_assigned`, { channels: { email: !before.channels.email } }),
          await other.put(`${TYPES}/course_assigned`, { channels: { email: !before.channels.email } }),
        ]) {
          expect(res.status).toBe(403);
          expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
        }
      }
      expect(await typeOf(admin, 'course_assigned')).toEqual(before);
    });
  });

  describe('list and show', () => {
    it('answers the seeded catalogue in the envelope, each type with audience, category, texts and the channels it offers', async () => {
      const res = await admin.get(TYPES);
      expect(res.status).toBe(200);
      expect(res.body.meta).toEqual({});
      const types: TypeView[] = res.body.notification_types;
      const ids = types.map((x) => x.id);
      for (const id of ['course_assigned', 'course_due_soon', 'course_overdue', 'course_completed', 'course_published', 'live_session_published', 'session_reminder', 'session_cancelled', 'registration_confirmed', 'waitlist_promoted', 'task_approval_requested', 'data_dump_ready']) {
        expect(ids).toContain(id);
      }
      expect(new Set(ids).size).toBe(ids.length);
      for (const type of types) {
        expect(Object.keys(type).sort()).toEqual(['audience', 'category', 'channels', 'description', 'id', 'name']);
        expect(['learner', 'manager', 'author', 'admin']).toContain(type.audience);
        expect(type.name).not.toBe('');
        expect(type.description).not.toBe('');
        for (const [channel, enabled] of Object.entries(type.channels)) {
          expect(['email', 'slack', 'in_app']).toContain(channel);
          expect(typeof enabled).toBe('boolean');
        }
      }
      expect(types.find((x) => x.id === 'course_assigned')).toEqual({
        id: 'course_assigned',
        audience: 'learner',
        category: 'courses',
        name: 'Course assigned',
        description: expect.any(String),
        channels: { email: true, slack: false, in_app: true },
      });
      // A channel that is absent is unavailable: a data dump is only ever e-mailed.
      expect(types.find((x) => x.id === 'data_dump_ready')?.channels).toEqual({ email: true });
      expect(await t.factory.count(`identity.notification_type_settings WHERE account_id = ${accountId}`)).toBe(types.length);
    });

    it('shows one type as a one-element array, and answers 404 for an unknown key and 400 for a malformed one', async () => {
      const res = await admin.get(`${TYPES}/session_reminder`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ meta: {}, notification_types: [expect.objectContaining({ id: 'session_reminder', audience: 'learner', category: 'live_sessions' })] });
      const unknown = await admin.get(`${TYPES}/no_such_type`);
      expect(unknown.status).toBe(404);
      expect(unknown.body.code).toBe('NOTIFICATION_TYPE_NOT_FOUND');
      expect((await admin.get(`${TYPES}/Bad-Key!`)).status).toBe(400);
    });

    it('seeds an account once even when its first requests come together', async () => {
      const fresh = await t.factory.user(await t.factory.account(), ['admin']);
      const api = admin.as(fresh.token);
      const results = await Promise.all([api.get(TYPES), api.get(TYPES), api.get(`${TYPES}/course_overdue`), api.patch(`${TYPES}/course_overdue`, { channels: { slack: true } })]);
      expect(results.map((r) => r.status)).toEqual([200, 200, 200, 200]);
      const catalogueSize = results[0].body.notification_types.length;
      expect(await t.factory.count(`identity.notification_type_settings WHERE account_id = ${fresh.accountId}`)).toBe(catalogueSize);
      expect((await typeOf(api, 'course_overdue')).channels.slack).toBe(true);
    });
  });

  describe('update', () => {
    it.each(['PATCH', 'PUT'])('enables and disables offered channels with %s, answering the updated type', async (method) => {
      const res = await admin.request(method, `${TYPES}/task_approval_requested`, { channels: { email: false, slack: true } });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        meta: {},
        notification_types: [expect.objectContaining({ id: 'task_approval_requested', channels: { email: false, slack: true, in_app: true } })],
      });
      expect((await typeOf(admin, 'task_approval_requested')).channels).toEqual({ email: false, slack: true, in_app: true });
      // Channels left out keep their state.
      await admin.request(method, `${TYPES}/task_approval_requested`, { channels: { email: true } });
      expect((await typeOf(admin, 'task_approval_requested')).channels).toEqual({ email: true, slack: true, in_app: true });
    });

    it.each([
      ['enabling a channel the type does not offer', 'data_dump_ready', { slack: true }, 'channels.slack'],
      ['disabling a channel the type does not offer', 'registration_confirmed', { slack: false }, 'channels.slack'],
      ['an unknown channel', 'course_assigned', { fax: true }, 'channels.fax'],
      // Text that is a boolean ("false") is read as one, as Rails did (docs/compatibility.md); other text is not.
      ['a string value that is no boolean', 'course_assigned', { email: 'maybe' }, 'channels.email'],
      ['a number value', 'course_assigned', { email: 0 }, 'channels.email'],
      ['a null value', 'course_assigned', { email: null }, 'channels.email'],
      ['no channel at all (the spec\'s "required parameter missing")', 'course_assigned', {}, 'channels'],
    ])('answers 422 with field errors for %s, and changes nothing', async (_case, id, channels, field) => {
      const before = await typeOf(admin, id);
      const res = await admin.patch(`${TYPES}/${id}`, { channels: { ...channels } });
      expect(res.status).toBe(422);
      expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(res.body).toMatchObject({ status: 422, code: 'NOTIFICATION_TYPE_INVALID_CHANNELS' });
      expect(res.body.errors).toEqual([expect.objectContaining({ field })]);
      expect(await typeOf(admin, id)).toEqual(before);
    });

    it('applies nothing when one channel of several is invalid', async () => {
      const before = await typeOf(admin, 'course_due_soon');
      expect((await admin.put(`${TYPES}/course_due_soon`, { channels: { email: !before.channels.email, slack: 'maybe' } })).status).toBe(422);
      expect(await typeOf(admin, 'course_due_soon')).toEqual(before);
    });

    it.each([
      ['no channels', {}, 'channels'],
      ['channels that are not an object', { channels: true }, 'channels'],
      ['channels that are an array', { channels: ['email'] }, 'channels'],
      ['an unknown top-level field', { channels: { email: false }, name: 'Renamed' }, 'name'],
      ['an account_id (mass assignment)', { channels: { email: false }, account_id: 1 }, 'account_id'],
      ['an id (mass assignment)', { channels: { email: false }, id: 'course_overdue' }, 'id'],
    ])('answers 422 (the spec\'s "invalid notification type update") for %s, and changes nothing', async (_case, body, field) => {
      const before = await typeOf(admin, 'course_completed');
      const res = await admin.patch(`${TYPES}/course_completed`, body);
      expect([res.status, res.body.code]).toEqual([422, 'VALIDATION_FAILED']);
      expect(res.body.errors).toEqual(expect.arrayContaining([expect.objectContaining({ field })]));
      expect(await typeOf(admin, 'course_completed')).toEqual(before);
    });

    it('answers 404 for an unknown key', async () => {
      expect((await admin.patch(`${TYPES}/no_such_type`, { channels: { email: true } })).status).toBe(404);
    });

    it('publishes identity.notification_type.updated through the outbox when a flag changes', async () => {
      const seen: CloudEvent[] = [];
      const sub = await t.system.bus.events.consume(
        { durable: 'e2e-notification-type-updated', types: ['identity.notification_type.updated'], maxDeliver: 3, backoffMs: [100] },
        async (event) => void seen.push(event),
      );
      try {
        await admin.patch(`${TYPES}/waitlist_promoted`, { channels: { in_app: false } });
        const event = await eventually(async () => seen.find((e) => (e.data as { id: string }).id === 'waitlist_promoted'));
        expect(event).toMatchObject({
          source: '/identity',
          subject: 'waitlist_promoted',
          accountid: accountId,
          data: { id: 'waitlist_promoted', channels: { email: true, slack: false, in_app: false } },
        });
      } finally {
        await sub.unsubscribe();
      }
    });

    it('records no event when nothing changes', async () => {
      await admin.patch(`${TYPES}/session_cancelled`, { channels: { slack: true } });
      const count = async () => Number((await t.db.query<{ n: string }>("SELECT count(*) AS n FROM identity.outbox WHERE type = 'identity.notification_type.updated' AND payload->'data'->>'id' = 'session_cancelled'"))[0].n);
      const before = await count();
      expect((await admin.patch(`${TYPES}/session_cancelled`, { channels: { slack: true } })).status).toBe(200);
      expect(await count()).toBe(before);
    });
  });

  describe('tenant isolation', () => {
    it("keeps each account's settings its own: one account's change never affects another's", async () => {
      const theirs = admin.as(stranger.token);
      await admin.patch(`${TYPES}/course_published`, { channels: { email: true, slack: false } });
      const theirsBefore = await typeOf(theirs, 'course_published');
      await admin.patch(`${TYPES}/course_published`, { channels: { email: false, slack: true } });
      expect(await typeOf(theirs, 'course_published')).toEqual(theirsBefore);
      await theirs.patch(`${TYPES}/course_published`, { channels: { in_app: false } });
      expect((await typeOf(admin, 'course_published')).channels).toEqual({ email: false, slack: true, in_app: true });
      expect((await typeOf(theirs, 'course_published')).channels).toEqual({ ...theirsBefore.channels, in_app: false });
    });
  });
});
