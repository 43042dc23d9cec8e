import { type ApiClient, eventually, holdingLock, queryDatabase, type ApiResponse, type TestUser } from '@lms/testing';
import { COURSES, type CatalogFixture, startCatalogFixture } from './catalog-fixture.js';

export const ENROLLMENTS = '/api/author/enrollments';
export const enrollmentsOf = (courseId: string | number) => `${COURSES}/${courseId}/enrollments`;

/**
 * The catalog fixture plus what the enrollment specs share: published courses, fresh learners, and
 * enrolling through the API.
 */
export interface EnrollmentFixture extends CatalogFixture {
  /** A published course (the administrator's), `fields` overriding the course request. */
  publishedCourse(fields?: Record<string, unknown>): Promise<Record<string, any>>; // eslint-disable-line @typescript-eslint/no-explicit-any -- specs read arbitrary JSON
  /** A fresh learner of the bootstrap account. */
  newLearner(names?: { firstName?: string; lastName?: string }): Promise<TestUser>;
  /** Enrolls the entries (201 expected) and answers the response body. */
  enroll(courseId: string | number, entries: Record<string, unknown>[], api?: ApiClient): Promise<Record<string, any>>; // eslint-disable-line @typescript-eslint/no-explicit-any -- specs read arbitrary JSON
  /** The learner's summary once `all` reaches `count` (the completion event travels through identity). */
  summaryOnce(userId: number, count: number): Promise<Record<string, number>>;
  /**
   * Sends `enrolling` while the test holds the course's row (FOR UPDATE; a task's with `table` 'tasks'), so its
   * transaction waits at its first lock, after identity has named the learners; runs `meanwhile`, then lets it
   * go and answers its response.
   */
  enrollingHeld(itemId: string | number, enrolling: () => Promise<ApiResponse>, meanwhile: () => Promise<void>, table?: 'course_templates' | 'tasks' | 'programs'): Promise<ApiResponse>;
  /** Waits until catalog's `consumer` has handled `count` identity events of `type` whose data has `key` = `value`. */
  identityEventsHandled(consumer: string, type: string, key: string, value: number, count: number): Promise<void>;
}

export async function startEnrollmentFixture(durable: string, env: Record<string, string> = {}): Promise<EnrollmentFixture> {
  const f = await startCatalogFixture(durable, env);
  return {
    ...f,
    publishedCourse: (fields = {}) => f.createCourse({ is_published: true, ...fields }),
    async newLearner(names = {}) {
      const user = await f.t.factory.user(f.cast.accountId, ['learner']);
      if (names.firstName || names.lastName) await f.t.factory.setUserNames(user.userId, names);
      return user;
    },
    async enroll(courseId, entries, api = f.admin) {
      const res = await api.post(enrollmentsOf(courseId), { enrollments: entries });
      if (res.status !== 201) throw new Error(`enrolling answered ${res.status}: ${res.text}`);
      return res.body;
    },
    enrollingHeld: (itemId, enrolling, meanwhile, table = 'course_templates') =>
      holdingLock(f.t.db.url, `SELECT 1 FROM catalog.${table} WHERE id = $1 FOR UPDATE`, [Number(itemId)], async (held) => {
        const response = enrolling();
        await held.waiters();
        await meanwhile();
        await held.release();
        return response;
      }),
    async identityEventsHandled(consumer, type, key, value, count) {
      const handled = `SELECT count(*)::int AS n FROM catalog.inbox i JOIN identity.outbox o ON o.id = i.event_id
                        WHERE i.consumer = $1 AND o.type = $2 AND o.payload->'data'->>$3 = $4`;
      await eventually(async () => ((await queryDatabase<{ n: number }>(f.t.db.url, handled, [consumer, type, key, String(value)]))[0].n >= count ? true : undefined));
    },
    summaryOnce: (userId, count) =>
      eventually(async () => {
        const res = await f.admin.get(`/api/admin/users/${userId}/summary`);
        return res.status === 200 && res.body.summary.all >= count ? (res.body.summary as Record<string, number>) : undefined;
      }),
  };
}
