import type { CloudEvent } from '@lms/contracts';
import { type ApiClient, eventually, type TestCast, type TestUser } from '@lms/testing';
import { startTestSystem, type TestSystem } from './test-system.js';

export const LIVE_COURSES = '/api/author/live_courses';
export const SESSIONS_OF = (courseId: string | number) => `${LIVE_COURSES}/${courseId}/sessions`;
export const REGISTRATIONS_OF = (sessionId: string | number) => `/api/author/live_course_sessions/${sessionId}/registrations`;

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- specs read arbitrary JSON
type Json = Record<string, any>;

/**
 * The shared set-up of the scheduling end-to-end specs: the whole system on real Postgres and NATS, the
 * cast (author and learner of the bootstrap account, an administrator of a second account), API clients
 * for each, every scheduling event the system publishes, and helpers that make courses, sessions and learners.
 */
export interface SchedulingFixture {
  t: TestSystem;
  cast: TestCast;
  admin: ApiClient;
  author: ApiClient;
  learner: ApiClient;
  stranger: ApiClient;
  events: CloudEvent[];
  createCourse(fields?: Json, api?: ApiClient): Promise<Json>;
  createSession(courseId: string | number, fields?: Json, extra?: Json): Promise<Json>;
  /** New learners of the bootstrap account, enrolled in the course; answers the users. */
  enrolledLearners(courseId: string | number, count: number): Promise<TestUser[]>;
  eventOf(type: string, match: (data: Json) => boolean): Promise<CloudEvent>;
  close(): Promise<void>;
}

export async function startSchedulingFixture(durable: string, env: Record<string, string> = {}): Promise<SchedulingFixture> {
  const t = await startTestSystem(env);
  const cast = await t.factory.cast();
  const events: CloudEvent[] = [];
  const sub = await t.system.bus.events.consume({ durable, types: ['scheduling.>'], maxDeliver: 3, backoffMs: [100] }, async (event) => void events.push(event));
  const admin = t.api;
  return {
    t,
    cast,
    admin,
    author: admin.as(cast.author.token),
    learner: admin.as(cast.learner.token),
    stranger: admin.as(cast.stranger.token),
    events,
    async createCourse(fields = {}, api = admin) {
      const res = await api.post(LIVE_COURSES, { live_courses: [{ title: 'Live onboarding', ...fields }] });
      if (res.status !== 201) throw new Error(`creating a live course answered ${res.status}: ${res.text}`);
      return res.body.live_courses[0];
    },
    async createSession(courseId, fields = {}, extra = {}) {
      const res = await admin.post(SESSIONS_OF(courseId), { sessions: [fields], ...extra });
      if (res.status !== 201) throw new Error(`creating a session answered ${res.status}: ${res.text}`);
      return res.body.sessions[0];
    },
    async enrolledLearners(courseId, count) {
      const users: TestUser[] = [];
      for (let i = 0; i < count; i += 1) users.push(await t.factory.user(cast.accountId, ['learner']));
      for (let i = 0; i < users.length; i += 100) {
        const res = await admin.post(`${LIVE_COURSES}/${courseId}/learners`, { learners: users.slice(i, i + 100).map((u) => ({ user_id: u.userId })) });
        if (res.status !== 201) throw new Error(`enrolling answered ${res.status}: ${res.text}`);
      }
      return users;
    },
    eventOf: (type, match) => eventually(async () => events.find((e) => e.type === type && match(e.data as Json))),
    async close() {
      await sub.unsubscribe();
      await t.close();
    },
  };
}
