// Scheduling's long writes of `npm run bench`, run by the course enrollments row (bench/catalog-enrollments.mjs) on
// its seeded learners: a waitlist of 20,000 of them moved up when their session's seats are raised (in the
// request), and a user of 2,000 live courses deleted (scheduling's consumer withdraws them from all). Target
// ≤ 2.5 s each, half the gateway's RPC timeout. Seeding goes straight to the schemas.
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { withClient } from './infra.mjs';
import { LONG_WRITE_TARGET_MS, onceRow, timed } from './long-writes.mjs';

/** Live courses of the user deleted by `benchUserLeavesLiveCourses`. */
const LIVE_COURSES_OF_ONE_USER = 2_000;

/** A live course with `userIds` enrolled, all on the waitlist of its one session (no seat), then `seats: null`: each takes a seat in the request. */
export async function benchWaitlistPromotion(topology, databaseUrl, { accountId, adminId, userIds }, log) {
  const [courseId, sessionId] = await withClient(databaseUrl, async (client) => {
    const course = (await client.query(`INSERT INTO scheduling.live_courses (account_id, author_id, title) VALUES ($1, $2, 'Bench waitlist course') RETURNING id`, [accountId, adminId])).rows[0].id;
    const session = (await client.query(`INSERT INTO scheduling.sessions (account_id, live_course_id, seats, start_at, end_at) VALUES ($1, $2, 0, now() + interval '30 days', now() + interval '30 days 1 hour') RETURNING id`, [accountId, course])).rows[0].id;
    await client.query('INSERT INTO scheduling.live_course_enrollments (account_id, live_course_id, user_id) SELECT $1, $2, unnest($3::int[])', [accountId, course, userIds]);
    await client.query('INSERT INTO scheduling.waitlist_places (account_id, session_id, user_id) SELECT $1, $2, u FROM unnest($3::int[]) WITH ORDINALITY AS x(u, n) ORDER BY n', [accountId, session, userIds]);
    await client.query('ANALYZE scheduling.waitlist_places');
    return [course, session];
  });
  const ms = await timed(topology, 'PATCH', `/api/author/live_courses/${courseId}/sessions/${sessionId}`, { session: { seats: null } }, 200);
  const registered = await withClient(databaseUrl, async (client) => (await client.query('SELECT count(*)::int AS n FROM scheduling.registrations WHERE session_id = $1 AND deleted_at IS NULL', [sessionId])).rows[0].n);
  if (registered !== userIds.length) throw new Error(`after raising the seats: ${registered} registered of ${userIds.length} waiting`);
  return onceRow(topology, `waitlist of ${userIds.length} moved up by a session's seats`, ms, LONG_WRITE_TARGET_MS, log);
}

/**
 * One user enrolled in LIVE_COURSES_OF_ONE_USER live courses, registered in an open session of each, deleted through
 * the gateway: from the request to scheduling's consumer committing their withdrawal from every course.
 */
export async function benchUserLeavesLiveCourses(topology, databaseUrl, { accountId, adminId, userIds }, log) {
  const userId = userIds[userIds.length - 1];
  await withClient(databaseUrl, async (client) => {
    const courses = (await client.query(`INSERT INTO scheduling.live_courses (account_id, author_id, title) SELECT $1, $2, 'Bench course ' || n FROM generate_series(1, $3::int) n RETURNING id`, [accountId, adminId, LIVE_COURSES_OF_ONE_USER])).rows.map((r) => r.id);
    await client.query('INSERT INTO scheduling.live_course_enrollments (account_id, live_course_id, user_id) SELECT $1, unnest($2::int[]), $3', [accountId, courses, userId]);
    const sessions = (await client.query('INSERT INTO scheduling.sessions (account_id, live_course_id, seats) SELECT $1, unnest($2::int[]), 10 RETURNING id', [accountId, courses])).rows.map((r) => r.id);
    await client.query('INSERT INTO scheduling.registrations (account_id, session_id, user_id) SELECT $1, unnest($2::int[]), $3', [accountId, sessions, userId]);
    await client.query('ANALYZE scheduling.live_course_enrollments');
  });
  const started = performance.now();
  await timed(topology, 'DELETE', `/api/admin/users/${userId}`, null, 204);
  const left = () => withClient(databaseUrl, async (client) => (await client.query('SELECT count(*)::int AS n FROM scheduling.live_course_enrollments WHERE user_id = $1', [userId])).rows[0].n);
  while ((await left()) > 0) {
    if (performance.now() - started > 120_000) throw new Error(`the deleted user was still in live courses after 120 s`);
    await sleep(20);
  }
  return onceRow(topology, `user of ${LIVE_COURSES_OF_ONE_USER} live courses deleted, until scheduling withdrew them`, performance.now() - started, LONG_WRITE_TARGET_MS, log);
}
