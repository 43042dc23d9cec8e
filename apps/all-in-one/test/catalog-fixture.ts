import type { CloudEvent } from '@lms/contracts';
import { type ApiClient, eventually, type TestCast, type TestUser } from '@lms/testing';
import { startTestSystem, type TestSystem } from './test-system.js';

export const COURSES = '/api/author/course_templates';
export const TASKS = '/api/author/tasks';
export const PROGRAMS = '/api/author/programs';

/** A valid CourseTemplateRequest with the spec's required fields; `fields` override or add. */
export const courseRequest = (fields: Record<string, unknown> = {}) => ({
  title: 'Onboarding',
  is_published: false,
  has_unpublished_changes: true,
  default_days_until_due: 14,
  course_type: 'native',
  ...fields,
});

/**
 * The shared set-up of the catalog end-to-end specs: the whole system on real Postgres and NATS, the
 * cast (author and learner of the bootstrap account, an administrator of a second account), a second
 * author, a support user, API clients for each, and every catalog event the system publishes.
 */
export interface CatalogFixture {
  t: TestSystem;
  cast: TestCast;
  admin: ApiClient;
  author: ApiClient;
  otherAuthor: ApiClient;
  otherAuthorUser: TestUser;
  learner: ApiClient;
  support: ApiClient;
  stranger: ApiClient;
  events: CloudEvent[];
  /** Creates one course as `api` (the administrator by default) and answers its record. */
  createCourse(fields?: Record<string, unknown>, api?: ApiClient): Promise<Record<string, any>>; // eslint-disable-line @typescript-eslint/no-explicit-any -- specs read arbitrary JSON
  eventOf(type: string, match: (data: Record<string, unknown>) => boolean): Promise<CloudEvent>;
  close(): Promise<void>;
}

export async function startCatalogFixture(durable: string, env: Record<string, string> = {}): Promise<CatalogFixture> {
  const t = await startTestSystem(env);
  const cast = await t.factory.cast();
  const otherAuthorUser = await t.factory.user(cast.accountId, ['author']);
  const supportUser = await t.factory.user(cast.accountId, ['author', 'support']);
  const events: CloudEvent[] = [];
  const sub = await t.system.bus.events.consume({ durable, types: ['catalog.>'], maxDeliver: 3, backoffMs: [100] }, async (event) => void events.push(event));
  const admin = t.api;
  const fixture: CatalogFixture = {
    t,
    cast,
    admin,
    author: admin.as(cast.author.token),
    otherAuthor: admin.as(otherAuthorUser.token),
    otherAuthorUser,
    learner: admin.as(cast.learner.token),
    support: admin.as(supportUser.token),
    stranger: admin.as(cast.stranger.token),
    events,
    async createCourse(fields = {}, api = admin) {
      const res = await api.post(COURSES, { course_templates: [courseRequest(fields)] });
      if (res.status !== 201) throw new Error(`creating a course answered ${res.status}: ${res.text}`);
      return res.body.course_templates[0];
    },
    eventOf: (type, match) => eventually(async () => events.find((e) => e.type === type && match(e.data as Record<string, unknown>))),
    async close() {
      await sub.unsubscribe();
      await t.close();
    },
  };
  return fixture;
}
