import { REGISTRATIONS_OF, type SchedulingFixture, startSchedulingFixture } from './scheduling-fixture.js';

interface SseEvent {
  id?: string;
  event?: string;
  data?: string;
}

/**
 * A plain Server-Sent Events client over fetch (the format of the HTML standard, not the gateway's
 * code): it collects events until `until` says stop, then hangs up.
 */
async function readEvents(url: string, until: (events: SseEvent[]) => boolean, headers: Record<string, string> = {}, timeoutMs = 15_000): Promise<SseEvent[]> {
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(), timeoutMs);
  const events: SseEvent[] = [];
  try {
    const res = await fetch(url, { headers: { accept: 'text/event-stream', ...headers }, signal: abort.signal });
    if (res.status !== 200 || !res.body) throw new Error(`the stream answered ${res.status}: ${await res.text()}`);
    const decoder = new TextDecoder();
    let buffer = '';
    for await (const chunk of res.body) {
      buffer += decoder.decode(chunk as Uint8Array, { stream: true });
      let end: number;
      while ((end = buffer.indexOf('\n\n')) >= 0) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const event: SseEvent = {};
        for (const line of block.split('\n')) {
          if (line.startsWith(':') || !line.includes(':')) continue;
          const [field, ...rest] = line.split(':');
          const value = rest.join(':').replace(/^ /, '');
          if (field === 'id' || field === 'event') event[field] = value;
          if (field === 'data') event.data = event.data === undefined ? value : `${event.data}\n${value}`;
        }
        if (event.data !== undefined) events.push(event);
      }
      if (until(events)) break;
    }
    return events;
  } catch (err) {
    if (abort.signal.aborted) throw new Error(`the stream gave ${events.length} events within ${timeoutMs} ms: ${JSON.stringify(events)}`);
    throw err;
  } finally {
    clearTimeout(timer);
    abort.abort();
  }
}

describe('live updates of registrations (Server-Sent Events), end to end', () => {
  let f: SchedulingFixture;

  beforeAll(async () => {
    f = await startSchedulingFixture('e2e-live-updates', { LIVE_UPDATES_RECHECK_MS: '300' });
  });
  afterAll(async () => {
    await f?.close();
  });

  it('streams the registration changes of the course\'s sessions in order, and resumes after Last-Event-ID with exactly the missed ones', async () => {
    const course = await f.createCourse();
    const [s1, s2] = [await f.createSession(course.id, { seats: 10 }), await f.createSession(course.id, { seats: 10 })];
    const [a, b, c] = await f.enrolledLearners(course.id, 3);
    // A change before the subscription is in the log too: a new stream starts from the beginning.
    expect((await f.admin.post(REGISTRATIONS_OF(s1.id), { user_id: a.userId })).status).toBe(204);

    const res = await f.author.get(`/api/author/live_course_sessions/${s1.id}/registrations/subscription`);
    expect(res.status).toBe(200);
    expect(res.body.meta).toEqual({});
    const [subscription] = res.body.subscriptions;
    // Absolute, as the original push server's was: a client subscribes to it as it is.
    expect(subscription).toEqual({ url: `${f.t.api.baseUrl}/live/registrations`, channel: `/live_courses/${course.id}/registrations/*`, token: expect.any(String) });
    const url = `${subscription.url}?token=${encodeURIComponent(subscription.token)}`;

    const first = readEvents(url, (events) => events.length >= 2);
    await new Promise((r) => setTimeout(r, 300));
    // Made after subscribing, in another session of the same course.
    expect((await f.admin.post(REGISTRATIONS_OF(s2.id), { user_id: b.userId })).status).toBe(204);
    const seen = await first;
    expect(seen.map((e) => [e.event, JSON.parse(e.data!).user_id, JSON.parse(e.data!).session_id])).toEqual([
      ['scheduling.registration.created', a.userId, Number(s1.id)],
      ['scheduling.registration.created', b.userId, Number(s2.id)],
    ]);

    // Disconnected: two more changes happen; reconnecting after the last id seen gives exactly those.
    expect((await f.admin.post(REGISTRATIONS_OF(s1.id), { user_id: c.userId })).status).toBe(204);
    const registrationOfA = ((await f.admin.get(REGISTRATIONS_OF(s1.id))).body.registrations as { id: string; user_id: string }[]).find((r) => Number(r.user_id) === a.userId)!;
    expect((await f.admin.delete(`${REGISTRATIONS_OF(s1.id)}/${registrationOfA.id}`)).status).toBe(204);
    const resumed = await readEvents(url, (events) => events.length >= 2, { 'last-event-id': seen[1].id! });
    expect(resumed.map((e) => [e.event, JSON.parse(e.data!).user_id])).toEqual([
      ['scheduling.registration.created', c.userId],
      ['scheduling.registration.deleted', a.userId],
    ]);
    // Nothing repeats: ids only grow.
    const ids = [...seen, ...resumed].map((e) => e.id!);
    expect(new Set(ids).size).toBe(4);
  });

  it('orders changes by transaction as numbers, not as text, when the ids grow a digit', async () => {
    const course = await f.createCourse();
    const session = await f.createSession(course.id);
    // Changes of transactions 99 and 100 (long finished): as text, "100" sorts before "99".
    await f.t.db.query(
      `INSERT INTO scheduling.registration_changes (xid, account_id, live_course_id, session_id, event_id, type, data)
       SELECT x::text::xid8, $1, $2, $3, gen_random_uuid(), 'scheduling.registration.created', jsonb_build_object('user_id', x) FROM unnest($4::int[]) AS x`,
      [f.cast.accountId, course.id, session.id, [100, 99]],
    );
    const { token } = (await f.author.get(`/api/author/live_course_sessions/${session.id}/registrations/subscription`)).body.subscriptions[0];
    const url = `${f.t.api.baseUrl}/live/registrations?token=${encodeURIComponent(token)}`;
    const all = await readEvents(url, (events) => events.length >= 2);
    expect(all.map((e) => [e.id!.split('-')[0], JSON.parse(e.data!).user_id])).toEqual([
      ['99', 99],
      ['100', 100],
    ]);
    const resumed = await readEvents(url, (events) => events.length >= 1, { 'last-event-id': all[0].id! });
    expect(resumed.map((e) => e.id)).toEqual([all[1].id]);
  });

  it('refuses other callers and other uses of the token', async () => {
    const course = await f.createCourse();
    const session = await f.createSession(course.id);
    const path = `/api/author/live_course_sessions/${session.id}/registrations/subscription`;
    expect((await f.learner.get(path)).status).toBe(403);
    expect((await f.stranger.get(path)).status).toBe(404);
    expect((await f.author.get('/api/author/live_course_sessions/999999/registrations/subscription')).status).toBe(404);
    const { token } = (await f.author.get(path)).body.subscriptions[0];
    const stream = (t: string, headers: Record<string, string> = {}) => fetch(`${f.t.api.baseUrl}/live/registrations?token=${encodeURIComponent(t)}`, { headers });
    expect((await stream(token.slice(0, -3) + 'AAA')).status).toBe(403);
    expect((await stream('')).status).toBe(403);
    expect((await stream(token, { 'last-event-id': 'yesterday' })).status).toBe(400);
    // Numbers past what the database's columns hold would fail every read of the stream: refused up front.
    for (const id of ['1-99999999999999999999', '1-9223372036854775808', '18446744073709551616-1']) {
      const res = await stream(token, { 'last-event-id': id });
      expect([id, res.status, ((await res.json()) as { code: string }).code]).toEqual([id, 400, 'LAST_EVENT_ID_INVALID']);
    }
    // The token is no API credential.
    expect((await f.t.api.as(token).get(path)).status).toBe(401);
  });

  it('ends a stream, and refuses to open one (403 SUBSCRIPTION_REVOKED), once its subscriber is no longer an author or is deleted', async () => {
    const course = await f.createCourse();
    const session = await f.createSession(course.id);
    const path = `/api/author/live_course_sessions/${session.id}/registrations/subscription`;
    const [demoted, deleted] = [await f.t.factory.user(f.cast.accountId, ['author']), await f.t.factory.user(f.cast.accountId, ['author'])];
    const urls = [];
    for (const user of [demoted, deleted]) {
      const { url, token } = (await f.t.api.as(user.token).get(path)).body.subscriptions[0];
      urls.push(`${url}?token=${encodeURIComponent(token)}`);
    }
    // Open streams: each reads until it ends (readEvents stops at the end of the body), which only the check can do.
    const [demotedStream, deletedStream] = urls.map((url) => readEvents(url, () => false, {}, 20_000).then(() => 'ended'));
    expect((await f.admin.put(`/api/admin/users/${demoted.userId}/roles`, { roles: ['learner'] })).status).toBe(200);
    expect((await f.admin.delete(`/api/admin/users/${deleted.userId}`)).status).toBe(204);
    expect(await Promise.all([demotedStream, deletedStream])).toEqual(['ended', 'ended']);
    for (const url of urls) {
      const res = await fetch(url);
      expect([res.status, ((await res.json()) as { code: string }).code]).toEqual([403, 'SUBSCRIPTION_REVOKED']);
    }
  });

  it('tells a client that resumes from before the pruned horizon to reload, then goes on from the horizon', async () => {
    const course = await f.createCourse();
    const session = await f.createSession(course.id, { seats: 10 });
    const [a, b, c] = await f.enrolledLearners(course.id, 3);
    for (const learner of [a, b]) expect((await f.admin.post(REGISTRATIONS_OF(session.id), { user_id: learner.userId })).status).toBe(204);
    const { token } = (await f.author.get(`/api/author/live_course_sessions/${session.id}/registrations/subscription`)).body.subscriptions[0];
    const url = `${f.t.api.baseUrl}/live/registrations?token=${encodeURIComponent(token)}`;
    const seen = await readEvents(url, (events) => events.length >= 2);

    // What scheduling's prune does once both changes are past the retention: the horizon first, then the rows.
    await f.t.db.query(
      `INSERT INTO scheduling.registration_changes_pruned (account_id, live_course_id, through) VALUES ($1, $2, pg_snapshot_xmin(pg_current_snapshot()))
       ON CONFLICT (account_id, live_course_id) DO UPDATE SET through = EXCLUDED.through`,
      [f.cast.accountId, course.id],
    );
    await f.t.db.query('DELETE FROM scheduling.registration_changes WHERE live_course_id = $1', [course.id]);
    expect((await f.admin.post(REGISTRATIONS_OF(session.id), { user_id: c.userId })).status).toBe(204);

    const resumed = await readEvents(url, (events) => events.length >= 2, { 'last-event-id': seen[0].id! });
    expect(resumed.map((e) => e.event)).toEqual(['scheduling.registrations.reset', 'scheduling.registration.created']);
    expect(JSON.parse(resumed[0].data!)).toEqual({ live_course_id: Number(course.id), time: expect.any(String) });
    expect(JSON.parse(resumed[1].data!).user_id).toBe(c.userId);
    // The reset's id is a cursor like any other: resuming from it gives what came after, and no second reset.
    const fromReset = await readEvents(url, (events) => events.length >= 1, { 'last-event-id': resumed[0].id! });
    expect(fromReset.map((e) => [e.event, e.id])).toEqual([['scheduling.registration.created', resumed[1].id]]);
    // A new stream starts at the beginning of what is kept.
    const fresh = await readEvents(url, (events) => events.length >= 1);
    expect(fresh.map((e) => e.id)).toEqual([resumed[1].id]);
  });
});
