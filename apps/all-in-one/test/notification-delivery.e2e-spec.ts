import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { jetstream } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import pg from 'pg';
import { SMTPServer } from 'smtp-server';
import type { CloudEvent } from '@lms/contracts';
import { deleteNamespaceStreams, eventually, queryDatabase, testNatsUrl, type TestUser, uniqueName } from '@lms/testing';
import { COURSES } from './catalog-fixture.js';
import { type EnrollmentFixture, startEnrollmentFixture } from './enrollment-fixture.js';
import { LIVE_COURSES, REGISTRATIONS_OF, SESSIONS_OF } from './scheduling-fixture.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- specs read arbitrary JSON
type Json = Record<string, any>;

interface Mail {
  to: string[];
  subject: string;
  body: string;
}

const DELIVERIES = '/api/admin/notification_deliveries';
const welcomeOf = (userId: number) => `/api/author/notifications/${userId}/welcome`;
const FINAL = new Set(['sent', 'failed', 'skipped']);

describe('notification delivery, end to end (real SMTP server and Slack webhook)', () => {
  let f: EnrollmentFixture;
  let smtp: SMTPServer;
  let slack: Server;
  const namespace = uniqueName('e2e_notify');
  const mails: Mail[] = [];
  const slackPosts: string[] = [];
  /** Addresses the SMTP server refuses: once with 451 (then accepts), or always with 550. */
  const refuseOnce = new Set<string>();
  const refuseAlways = new Set<string>();
  /** What happens, by address, while the SMTP server is about to refuse it once: the refusal waits for it. */
  const whileRefusing = new Map<string, () => Promise<unknown>>();
  let slackFailures = 0;
  const saved: Record<string, string | undefined> = {};

  beforeAll(async () => {
    smtp = new SMTPServer({
      authOptional: true,
      disabledCommands: ['AUTH', 'STARTTLS'],
      logger: false,
      onRcptTo(address, _session, callback) {
        const to = address.address.toLowerCase();
        if (refuseAlways.has(to)) return callback(Object.assign(new Error('mailbox unavailable'), { responseCode: 550 }));
        if (refuseOnce.delete(to)) {
          const meanwhile = whileRefusing.get(to) ?? (async () => undefined);
          void meanwhile().finally(() => callback(Object.assign(new Error('try again later'), { responseCode: 451 })));
          return;
        }
        callback();
      },
      onData(stream, session, callback) {
        let text = '';
        stream.setEncoding('utf8');
        stream.on('data', (chunk: string) => (text += chunk));
        stream.on('end', () => {
          const subject = /^Subject: (.*(?:\r\n[ \t].*)*)/m.exec(text)?.[1].replace(/\r\n[ \t]/g, ' ') ?? '';
          mails.push({ to: session.envelope.rcptTo.map((r) => r.address.toLowerCase()), subject, body: text });
          callback();
        });
      },
    });
    smtp.on('error', () => {}); // a client's ECONNRESET must not crash the test process
    await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
    slack = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk) => (body += chunk));
      req.on('end', () => {
        if (slackFailures > 0) {
          slackFailures -= 1;
          res.writeHead(500).end('busy');
          return;
        }
        slackPosts.push(JSON.parse(body).text as string);
        res.writeHead(200).end('ok');
      });
    });
    await new Promise<void>((resolve) => slack.listen(0, '127.0.0.1', resolve));

    const env = {
      SMTP_URL: `smtp://127.0.0.1:${(smtp.server.address() as AddressInfo).port}`,
      SMTP_FROM: 'Learning <learning@example.test>',
      SLACK_WEBHOOK_URL: `http://127.0.0.1:${(slack.address() as AddressInfo).port}/hooks/test`,
    };
    // jobs-worker reads its channels from the environment (notification.config.ts), like a deployment gives them.
    for (const [key, value] of Object.entries(env)) {
      saved[key] = process.env[key];
      process.env[key] = value;
    }
    f = await startEnrollmentFixture('e2e-notification-delivery', { NATS_NAMESPACE: namespace });
  });

  afterAll(async () => {
    await f?.close();
    const natsUrl = testNatsUrl();
    if (natsUrl) await deleteNamespaceStreams(natsUrl, namespace);
    for (const [key, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
    await new Promise<void>((resolve) => smtp.close(() => resolve()));
    await new Promise<void>((resolve) => slack.close(() => resolve()));
  });

  const emailOf = (u: TestUser) => `${u.uid}@example.test`.toLowerCase();
  const mailsTo = (u: TestUser, subject: string) => mails.filter((m) => m.to.includes(emailOf(u)) && m.subject.includes(subject));

  /** The deliveries matching the query once every one is settled and there are `count` of them. */
  const settled = (query: string, count: number, timeoutMs = 15_000) =>
    eventually(async () => {
      const res = await f.admin.get(`${DELIVERIES}?per_page=1000&${query}`);
      expect(res.status).toBe(200);
      const rows = res.body.notification_deliveries as Json[];
      return rows.length === count && rows.every((r) => FINAL.has(r.status)) ? rows : undefined;
    }, timeoutMs);

  async function publishTo(title: string, learners: number, body: Json) {
    const course = await f.publishedCourse({ title });
    const users = await Promise.all(Array.from({ length: learners }, () => f.newLearner()));
    await f.enroll(course.id, users.map((u) => ({ user_id: u.userId })));
    await f.admin.post(`${COURSES}/${course.id}/authors`, { users: [{ user_id: f.cast.author.userId }] });
    expect((await f.author.post(`${COURSES}/${course.id}/publish`, body)).status).toBe(200);
    const event = await f.eventOf('catalog.course_template.published', (d) => d.id === Number(course.id) && d.notify_message === body.notify_message);
    return { course, users, event };
  }

  it('publishing with notify_filter sends exactly one e-mail per recipient; the disabled Slack channel sends nothing and is recorded skipped', async () => {
    const outsider = await f.newLearner();
    const { users, event } = await publishTo('Fire safety', 3, { notify_filter: 'all', notify_message: 'New chapter on exits' });
    const rows = await settled(`event_id=${event.id}`, 6);
    expect(rows.filter((r) => r.channel === 'email').map((r) => [r.user_id, r.status, r.attempts, r.notification_type])).toEqual(
      expect.arrayContaining(users.map((u) => [u.userId, 'sent', 1, 'course_published'])),
    );
    expect(rows.filter((r) => r.channel === 'slack').every((r) => r.status === 'skipped' && /slack is disabled/.test(r.error))).toBe(true);
    for (const u of users) {
      const got = mailsTo(u, 'Course published: Fire safety');
      expect(got).toHaveLength(1);
      expect(got[0].body).toContain('New chapter on exits');
      expect(got[0].body).toMatch(/^From: Learning <learning@example\.test>/m);
    }
    expect(mailsTo(outsider, 'Fire safety')).toHaveLength(0);
    expect(slackPosts.filter((p) => p.includes('Fire safety'))).toHaveLength(0);
  });

  it('a disabled e-mail channel sends nothing; an enabled Slack channel posts once per recipient, retrying a webhook failure without sending any e-mail twice', async () => {
    const patch = (channels: Json) => f.admin.patch('/api/admin/notification_types/course_published', { channels });
    expect((await patch({ email: false, slack: true })).status).toBe(200);
    try {
      slackFailures = 1; // the first post fails: the event is handled again, the rest must not repeat
      const { users, event } = await publishTo('Ladders', 2, { notify_filter: 'all', notify_message: 'Read this' });
      const rows = await settled(`event_id=${event.id}`, 4);
      expect(rows.filter((r) => r.channel === 'email').every((r) => r.status === 'skipped' && /email is disabled/.test(r.error))).toBe(true);
      const slackRows = rows.filter((r) => r.channel === 'slack');
      expect(slackRows.map((r) => r.status)).toEqual(['sent', 'sent']);
      expect(slackRows.map((r) => r.attempts).sort()).toEqual([1, 2]);
      expect(slackRows.find((r) => r.attempts === 2)?.error).toMatch(/Slack webhook answered 500/);
      for (const u of users) {
        expect(mailsTo(u, 'Ladders')).toHaveLength(0);
        expect(slackPosts.filter((p) => p.includes('Ladders') && p.includes(u.uid))).toHaveLength(1);
      }
    } finally {
      expect((await patch({ email: true, slack: false })).status).toBe(200);
    }
  });

  /** Publishes the very same CloudEvent again with a fresh Nats-Msg-Id, so JetStream delivers it once more. */
  async function republish(event: CloudEvent, natsUrl: string) {
    const nc = await connect({ servers: natsUrl });
    try {
      await jetstream(nc).publish(`${namespace}.events.${event.type}`, JSON.stringify(event), { msgID: randomUUID() });
    } finally {
      await nc.close();
    }
  }

  it('a redelivered event (same event id, published again past de-duplication) sends nothing twice', async () => {
    const natsUrl = testNatsUrl();
    const { users, event } = await publishTo('Redelivered', 2, { notify_filter: 'all', notify_message: 'Once only' });
    await settled(`event_id=${event.id}`, 4);
    expect(users.map((u) => mailsTo(u, 'Redelivered').length)).toEqual([1, 1]);
    if (!natsUrl) return; // the in-process bus has no second publish path; the claims are covered above
    await republish(event, natsUrl);
    // The catalog fixture's own consumer sees it twice too: the redelivery did happen.
    await eventually(async () => (f.events.filter((e) => e.id === event.id).length > 1 ? true : undefined));
    // Give the worker time to handle it, then nothing more was sent and no row was added.
    await new Promise((r) => setTimeout(r, 1500));
    await settled(`event_id=${event.id}`, 4);
    expect(users.map((u) => mailsTo(u, 'Redelivered').length)).toEqual([1, 1]);
  });

  it('a delivery a live worker is sending is not sent by another; one left sending by a dead worker is sent again at once, with its Message-ID: the documented at-least-once window', async () => {
    const natsUrl = testNatsUrl();
    if (!natsUrl) return;
    const { users, event } = await publishTo('Claimed', 2, { notify_filter: 'all', notify_message: 'Claims' });
    await settled(`event_id=${event.id}`, 4);
    const [live, dead] = users;
    const rowOf = async (user: TestUser) =>
      (await queryDatabase<{ id: string }>(f.t.db.url, `SELECT id FROM jobs.notification_deliveries WHERE event_id = $1 AND user_id = $2 AND channel = 'email'`, [event.id, user.userId]))[0].id;
    // Both left `sending` by another worker; the live one still holds its row's lock on its own session.
    await queryDatabase(
      f.t.db.url,
      `UPDATE jobs.notification_deliveries SET status = 'sending', claimed_by = 'another-worker', claimed_at = now() WHERE event_id = $1 AND channel = 'email'`,
      [event.id],
    );
    const liveWorker = new pg.Client({ connectionString: f.t.db.url });
    await liveWorker.connect();
    try {
      await liveWorker.query('SELECT pg_advisory_lock(hashtext($1))', [`notification-delivery:${await rowOf(live)}`]);
      await republish(event, natsUrl);
      const [resent] = await settled(`event_id=${event.id}&user_id=${dead.userId}&channel=email`, 1);
      expect(resent).toMatchObject({ status: 'sent', attempts: 2 });
      expect(mailsTo(dead, 'Claimed')).toHaveLength(2);
      // The resend is the same message to mail systems: one Message-ID, the delivery's.
      const ids = mailsTo(dead, 'Claimed').map((m) => /^Message-ID: (.*)$/im.exec(m.body)?.[1]);
      expect(ids[0]).toBe(`<delivery-${resent.id}@example.test>`);
      expect(ids[1]).toBe(ids[0]);
      await new Promise((r) => setTimeout(r, 1500));
      const held = (await f.admin.get(`${DELIVERIES}?event_id=${event.id}&user_id=${live.userId}&channel=email`)).body.notification_deliveries;
      expect(held).toEqual([expect.objectContaining({ status: 'sending', attempts: 1 })]);
      expect(mailsTo(live, 'Claimed')).toHaveLength(1);
    } finally {
      // The live worker dies: its lock goes with its session, and the event's next try sends its row.
      await liveWorker.end();
    }
    const [taken] = await settled(`event_id=${event.id}&user_id=${live.userId}&channel=email`, 1);
    expect(taken).toMatchObject({ status: 'sent', attempts: 2 });
  });

  it('an SMTP refusal with 451 is retried and then sent; a 550 refusal ends failed at once; both are recorded', async () => {
    const [later, never] = [await f.newLearner(), await f.newLearner()];
    refuseOnce.add(emailOf(later));
    refuseAlways.add(emailOf(never));
    expect((await f.author.post(welcomeOf(later.userId))).status).toBe(202);
    expect((await f.author.post(welcomeOf(never.userId))).status).toBe(202);
    const [laterMail] = await settled(`user_id=${later.userId}&notification_type=welcome&channel=email`, 1);
    expect(laterMail).toMatchObject({ status: 'sent', attempts: 2, address: emailOf(later), sent_at: expect.any(String) });
    expect(laterMail.error).toMatch(/451/);
    expect(mailsTo(later, 'Welcome')).toHaveLength(1);
    const [neverMail] = await settled(`user_id=${never.userId}&notification_type=welcome&channel=email`, 1);
    expect(neverMail).toMatchObject({ status: 'failed', attempts: 1, sent_at: null });
    expect(neverMail.error).toMatch(/550/);
    expect(mailsTo(never, 'Welcome')).toHaveLength(0);
  });

  it('a retry after a 451 sends nothing to a user deleted, or on a channel switched off, since the first try: skipped', async () => {
    const [deleted, switchedOff] = [await f.newLearner(), await f.newLearner()];
    for (const user of [deleted, switchedOff]) refuseOnce.add(emailOf(user));
    whileRefusing.set(emailOf(deleted), () => f.admin.delete(`/api/admin/users/${deleted.userId}`));
    whileRefusing.set(emailOf(switchedOff), () => f.admin.patch('/api/admin/notification_types/welcome', { channels: { email: false } }));
    try {
      expect((await f.author.post(welcomeOf(deleted.userId))).status).toBe(202);
      const [gone] = await settled(`user_id=${deleted.userId}&notification_type=welcome&channel=email`, 1);
      expect(gone).toMatchObject({ status: 'skipped', attempts: 1, error: 'the user is deleted', sent_at: null });
      expect((await f.author.post(welcomeOf(switchedOff.userId))).status).toBe(202);
      const [off] = await settled(`user_id=${switchedOff.userId}&notification_type=welcome&channel=email`, 1);
      expect(off).toMatchObject({ status: 'skipped', attempts: 1, error: 'email is disabled for the welcome notification type', sent_at: null });
      expect([...mailsTo(deleted, 'Welcome'), ...mailsTo(switchedOff, 'Welcome')]).toEqual([]);
    } finally {
      whileRefusing.clear();
      await f.admin.patch('/api/admin/notification_types/welcome', { channels: { email: true } });
    }
  });

  it('the welcome endpoint: 202 and one e-mail; 404 for an unknown or another account\'s user; 403 for a learner; skipped when disabled', async () => {
    const user = await f.newLearner();
    const res = await f.author.post(welcomeOf(user.userId));
    expect(res.status).toBe(202);
    expect(res.text).toBe('');
    const rows = await settled(`user_id=${user.userId}&notification_type=welcome`, 2);
    expect(Object.fromEntries(rows.map((r) => [r.channel, r.status]))).toEqual({ email: 'sent', slack: 'skipped' });
    expect(mailsTo(user, 'Welcome to the learning platform')).toHaveLength(1);
    expect(mailsTo(user, 'Welcome')[0].body).toContain(user.uid);

    for (const [id, status] of [[999_999, 404], [f.cast.stranger.userId, 404]] as const) {
      const answer = await f.author.post(welcomeOf(id));
      expect([answer.status, answer.body.code]).toEqual([status, 'USER_NOT_FOUND']);
    }
    expect((await f.author.post(welcomeOf(0))).status).toBe(400);
    expect((await f.learner.post(welcomeOf(user.userId))).status).toBe(403);

    expect((await f.admin.patch('/api/admin/notification_types/welcome', { channels: { email: false } })).status).toBe(200);
    try {
      const quiet = await f.newLearner();
      expect((await f.author.post(welcomeOf(quiet.userId))).status).toBe(202);
      const [email] = await settled(`user_id=${quiet.userId}&notification_type=welcome&channel=email`, 1);
      expect(email).toMatchObject({ status: 'skipped', attempts: 0 });
      expect(mailsTo(quiet, 'Welcome')).toHaveLength(0);
    } finally {
      await f.admin.patch('/api/admin/notification_types/welcome', { channels: { email: true } });
    }
  });

  it('a published session reaches its registered users, and a waitlist promotion the promoted user', async () => {
    const course = (await f.admin.post(LIVE_COURSES, { live_courses: [{ title: 'Live drills' }] })).body.live_courses[0];
    const session = (await f.admin.post(SESSIONS_OF(course.id), { sessions: [{ seats: 1, start_at: '2035-01-01T10:00:00Z' }] })).body.sessions[0];
    const [a, b] = [await f.newLearner(), await f.newLearner()];
    expect((await f.admin.post(`${LIVE_COURSES}/${course.id}/learners`, { learners: [{ user_id: a.userId }, { user_id: b.userId }] })).status).toBe(201);
    expect((await f.admin.post(REGISTRATIONS_OF(session.id), { user_id: a.userId })).status).toBe(204);
    expect((await f.admin.post(`/api/author/live_course_sessions/${session.id}/waitlist_enrollments`, { user_id: b.userId })).status).toBe(204);
    expect((await f.admin.post(`${SESSIONS_OF(course.id)}/${session.id}/publish`)).status).toBe(200);

    const [published] = await settled(`user_id=${a.userId}&notification_type=live_session_published&channel=email`, 1);
    expect(published.status).toBe('sent');
    expect(mailsTo(a, 'A live session was published')).toHaveLength(1);
    expect(mailsTo(b, 'A live session was published')).toHaveLength(0);

    const [registration] = (await f.admin.get(REGISTRATIONS_OF(session.id))).body.registrations;
    expect((await f.admin.delete(`${REGISTRATIONS_OF(session.id)}/${registration.id}`)).status).toBe(204);
    const [promoted] = await settled(`user_id=${b.userId}&notification_type=waitlist_promoted&channel=email`, 1);
    expect(promoted.status).toBe('sent');
    expect(mailsTo(b, 'moved off the waitlist')).toHaveLength(1);
    // Enrolling in the live course told both (course_assigned), once each.
    await settled(`user_id=${a.userId}&notification_type=course_assigned&channel=email`, 1);
    expect(mailsTo(a, 'A live course was assigned to you')).toHaveLength(1);
  });

  it('administrators page and filter the deliveries; others get 403; bad filters are 400', async () => {
    const first = await f.admin.get(`${DELIVERIES}?per_page=2`);
    expect(first.status).toBe(200);
    expect(first.body.notification_deliveries).toHaveLength(2);
    const [newer, older] = first.body.notification_deliveries;
    expect(newer.id).toBeGreaterThan(older.id);
    const next = /<([^>]+)>; rel="next"/.exec(first.headers.get('link') ?? '')?.[1];
    expect(next).toBeDefined();
    const url = new URL(next!, 'http://relative.invalid');
    const second = await f.admin.get(url.pathname + url.search);
    expect(second.status).toBe(200);
    expect(second.body.notification_deliveries[0].id).toBeLessThan(older.id);
    const failed = await f.admin.get(`${DELIVERIES}?status=failed`);
    expect(failed.body.notification_deliveries.length).toBeGreaterThan(0);
    expect(failed.body.notification_deliveries.every((r: Json) => r.status === 'failed')).toBe(true);
    expect((await f.author.get(DELIVERIES)).status).toBe(403);
    expect((await f.admin.get(`${DELIVERIES}?status=lost`)).status).toBe(400);
    expect((await f.admin.get(`${DELIVERIES}?event_id=x`)).status).toBe(400);
    // Another account sees none of them.
    const stranger = f.admin.as(f.cast.stranger.token);
    const theirs = await stranger.get(DELIVERIES);
    expect([theirs.status, theirs.body.notification_deliveries]).toEqual([200, []]);
  });
});
