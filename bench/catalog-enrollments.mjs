// Course enrollments row of `npm run bench` (issue 8): one course with BENCH_COURSE_ENROLLMENTS (100,000)
// enrollments, then a page of its enrollments (by state too) and the course with its counts, one URL per
// measurement, on one connection through the gateway. Target: p99 ≤ 25 ms each. Then three long writes of
// 20,000 of those learners, each in one request: a task of theirs deleted (which withdraws their open
// enrollments), a group of them enrolled in a course, and a course they all completed published with
// re_enroll; and scheduling's two (bench/scheduling-long-writes.mjs). Target ≤ 2.5 s each. Seeding goes straight
// to the schemas (learners in identity, enrollments in catalog): the rows the API would have written.
// Alone: `npm run build && node bench/catalog-enrollments.mjs` (an all-in-one on a fresh bench database).
import { fileURLToPath } from 'node:url';
import { bootstrapOwner, withClient } from './infra.mjs';
import { requestJson, runLoad } from './load.mjs';
import { runAlone, startAllInOne } from './topologies.mjs';
import { LONG_WRITE_TARGET_MS, onceRow, timed } from './long-writes.mjs';
import { benchUserLeavesLiveCourses, benchWaitlistPromotion } from './scheduling-long-writes.mjs';

export const COURSE_ENROLLMENTS_TARGET_P99_MS = 25;
/** Learners of each long write's row (the first of the course's): the task deleted, the group enrolled, the completions re-enrolled. */
const LONG_WRITE_LEARNERS = 20_000;

/**
 * One published course of the bootstrap account with `count` learners enrolled: 40% complete, 30% started,
 * 30% assigned; every other one required; due dates spread over two years around now (so some overdue).
 */
export async function seedCourseEnrollments(databaseUrl, count) {
  return withClient(databaseUrl, async (client) => {
    const { accountId, subAccountId, adminId } = await bootstrapOwner(client);
    const courseId = await insertCourse(client, { accountId, subAccountId, adminId }, 'Bench enrollments course');
    const users = await client.query(
      `INSERT INTO identity.users (account_id, uid, first_name, last_name, email)
       SELECT $1, 'bench-learner-' || n, 'Learner' || n, 'Bench', 'bench-learner' || n || '@example.com' FROM generate_series(1, $2::int) AS n
       RETURNING id`,
      [accountId, count],
    );
    const userIds = users.rows.map((r) => r.id);
    // One statement: the counters' trigger counts it once, as it counts any statement's rows.
    await client.query(
      `INSERT INTO catalog.enrollments (account_id, enrollable_type, enrollable_id, user_id, sub_account_id, required, state,
                                        started_at, completed_at, due_at, progress, score, created_at, updated_at)
       SELECT $1, 'CourseTemplate', $2, u.id, $3, i % 2 = 0,
              CASE WHEN i % 10 < 4 THEN 'complete' WHEN i % 10 < 7 THEN 'active' ELSE 'assigned' END,
              CASE WHEN i % 10 < 7 THEN now() - (i % 300) * interval '1 day' END,
              CASE WHEN i % 10 < 4 THEN now() - (i % 200) * interval '1 day' END,
              now() + ((i % 730) - 365) * interval '1 day',
              CASE WHEN i % 10 < 4 THEN 1 WHEN i % 10 < 7 THEN 0.5 ELSE 0 END,
              CASE WHEN i % 10 < 4 THEN 50 + i % 51 END,
              timestamptz '2025-01-01' + i * interval '1 minute', timestamptz '2025-01-01' + i * interval '1 minute'
         FROM unnest($4::int[]) WITH ORDINALITY AS u(id, i)`,
      [accountId, courseId, subAccountId, userIds],
    );
    await client.query('VACUUM ANALYZE catalog.enrollments');
    await client.query('VACUUM ANALYZE catalog.course_templates');
    await client.query('VACUUM ANALYZE identity.users');
    return { accountId, subAccountId, adminId, courseId, userIds };
  });
}

/** A published native course of the bootstrap account, the admin its author; answers its id. */
async function insertCourse(client, { accountId, subAccountId, adminId }, title) {
  const course = await client.query(
    `INSERT INTO catalog.course_templates (account_id, sub_account_id, author_id, title, course_type, default_days_until_due, is_published,
                                           has_unpublished_changes, external_status, published, published_at)
     VALUES ($1, $2, $3, $4, 'native', 14, true, false, 'inapplicable', '{}', now()) RETURNING id`,
    [accountId, subAccountId, adminId, title],
  );
  const courseId = course.rows[0].id;
  await client.query('INSERT INTO catalog.course_authors (account_id, course_template_id, user_id) VALUES ($1, $2, $3)', [accountId, courseId, adminId]);
  return courseId;
}

const liveCount = async (client, accountId, type, id) =>
  (await client.query('SELECT live FROM catalog.enrollment_counters WHERE account_id = $1 AND enrollable_type = $2 AND enrollable_id = $3', [accountId, type, id])).rows[0]?.live;

/**
 * A group of `userIds` enrolled in a new published course by one request (each member gets an enrollment and
 * its event in the request): target ≤ 2.5 s, half the gateway's RPC timeout.
 */
export async function benchGroupEnrollment(topology, databaseUrl, seeded, log) {
  const { accountId, subAccountId, adminId, userIds } = seeded;
  const [groupId, courseId] = await withClient(databaseUrl, async (client) => {
    const group = await client.query(`INSERT INTO identity.groups (account_id, name) VALUES ($1, 'Bench group') RETURNING id`, [accountId]);
    await client.query('INSERT INTO identity.group_memberships (account_id, group_id, user_id) SELECT $1, $2, unnest($3::int[])', [accountId, group.rows[0].id, userIds]);
    return [group.rows[0].id, await insertCourse(client, { accountId, subAccountId, adminId }, 'Bench group course')];
  });
  const ms = await timed(topology, 'POST', `/api/author/course_templates/${courseId}/enrollments`, { enrollments: [{ group_id: groupId }] }, 201);
  const [live, events] = await withClient(databaseUrl, async (client) => [
    await liveCount(client, accountId, 'CourseTemplate', courseId),
    (await client.query(`SELECT count(*)::int AS n FROM catalog.outbox WHERE type = 'catalog.enrollment.created' AND payload->'data'->>'course_template_id' = $1`, [String(courseId)])).rows[0].n,
  ]);
  if (live !== userIds.length || events !== userIds.length) throw new Error(`after the group enrollment: ${live} counted live, ${events} events for ${userIds.length}`);
  return onceRow(topology, `group of ${userIds.length} learners enrolled in a course`, ms, LONG_WRITE_TARGET_MS, log);
}

/**
 * A course whose `userIds` all completed it, published with `re_enroll=true`: each completion is kept as history
 * and its learner gets a new attempt, in the publish's request. Target ≤ 2.5 s.
 */
export async function benchReEnrollOnPublish(topology, databaseUrl, seeded, log) {
  const { accountId, subAccountId, adminId, userIds } = seeded;
  const courseId = await withClient(databaseUrl, async (client) => {
    const id = await insertCourse(client, { accountId, subAccountId, adminId }, 'Bench re-enrollment course');
    await client.query(
      `INSERT INTO catalog.enrollments (account_id, enrollable_type, enrollable_id, user_id, sub_account_id, state, started_at, completed_at, progress, score)
       SELECT $1, 'CourseTemplate', $2, u, $3, 'complete', now() - interval '2 days', now() - interval '1 day', 1, 80 FROM unnest($4::int[]) AS u`,
      [accountId, id, subAccountId, userIds],
    );
    return id;
  });
  const ms = await timed(topology, 'POST', `/api/author/course_templates/${courseId}/publish`, { re_enroll: true }, 200);
  const [live, history] = await withClient(databaseUrl, async (client) => [
    await liveCount(client, accountId, 'CourseTemplate', courseId),
    (await client.query(`SELECT count(*)::int AS n FROM catalog.enrollments WHERE enrollable_id = $1 AND enrollable_type = 'CourseTemplate' AND removal_reason = 're_enrolled'`, [courseId])).rows[0].n,
  ]);
  if (live !== userIds.length || history !== userIds.length) throw new Error(`after re-enrolling: ${live} counted live, ${history} kept as history, for ${userIds.length}`);
  return onceRow(topology, `course of ${userIds.length} completions published with re_enroll`, ms, LONG_WRITE_TARGET_MS, log);
}

/**
 * A published task of the bootstrap account with one open enrollment for each of `userIds`, then deleted through
 * the gateway, which withdraws them all in the request (half the gateway's 5 s RPC timeout is the target).
 * Checks that every one was withdrawn, counted and announced.
 */
export async function benchTaskWithdrawal(topology, databaseUrl, seeded, log) {
  const { accountId, subAccountId, adminId, userIds } = seeded;
  const taskId = await withClient(databaseUrl, async (client) => {
    const task = await client.query(
      `INSERT INTO catalog.tasks (account_id, sub_account_id, author_id, title, is_published, has_unpublished_changes) VALUES ($1, $2, $3, 'Bench withdrawal task', true, false) RETURNING id`,
      [accountId, subAccountId, adminId],
    );
    await client.query(
      `INSERT INTO catalog.enrollments (account_id, enrollable_type, enrollable_id, user_id, sub_account_id, state, started_at)
       SELECT $1, 'Task', $2, u.id, $3, CASE WHEN i % 2 = 0 THEN 'active' ELSE 'assigned' END, CASE WHEN i % 2 = 0 THEN now() END FROM unnest($4::int[]) WITH ORDINALITY AS u(id, i)`,
      [accountId, task.rows[0].id, subAccountId, userIds],
    );
    return task.rows[0].id;
  });
  const ms = await timed(topology, 'DELETE', `/api/author/tasks/${taskId}`, null, 204);
  const [counted, events] = await withClient(databaseUrl, async (client) => [
    await liveCount(client, accountId, 'Task', taskId),
    (await client.query(`SELECT count(*)::int AS n FROM catalog.outbox WHERE type = 'catalog.enrollment.removed' AND payload->'data'->>'removal_reason' = 'task_deleted'`)).rows[0].n,
  ]);
  if (counted !== 0 || events < userIds.length) throw new Error(`after the withdrawal: ${counted} counted live, ${events} removal events for ${userIds.length}`);
  return onceRow(topology, `task of ${userIds.length} open enrollments, delete (withdraws them)`, ms, LONG_WRITE_TARGET_MS, log);
}

/** Seeds, checks each URL answers 200, then measures each on one connection. */
export async function benchCourseEnrollments(topology, databaseUrl, { count, durationS, warmupS, log }) {
  const started = Date.now();
  const seeded = await seedCourseEnrollments(databaseUrl, count);
  const { courseId } = seeded;
  log(`catalog: seeded ${count} enrollments in course ${courseId} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  const course = `${topology.baseUrl}/api/author/course_templates/${courseId}`;
  const pages = [
    ['enrollments, page 1', `${course}/enrollments`, 'enrollments'],
    ['enrollments, complete, page 100', `${course}/enrollments?state=complete&page=100`, 'enrollments'],
    ['enrollments, overdue', `${course}/enrollments?state=overdue`, 'enrollments'],
    ['course show with counts', course, 'course_templates'],
    ['course list, includes[]=counts', `${topology.baseUrl}/api/author/course_templates?includes[]=counts&search=bench%20enrollments`, 'course_templates'],
  ];
  const rows = [];
  for (const [label, url, key] of pages) {
    const check = await requestJson(url, { headers: topology.headers });
    if (check.status !== 200 || !Array.isArray(check.json?.[key]) || check.json[key].length === 0) throw new Error(`${label} answered ${check.status}: ${check.text.slice(0, 300)}`);
    const load = { url, headers: topology.headers, concurrency: 1 };
    if (warmupS > 0) await runLoad({ ...load, durationMs: warmupS * 1000 });
    const result = await runLoad({ ...load, durationMs: durationS * 1000 });
    const within = result.p99Ms <= COURSE_ENROLLMENTS_TARGET_P99_MS;
    log(`${topology.name} / course of ${count} enrollments, ${label}: p50 ${result.p50Ms.toFixed(2)} ms, p99 ${result.p99Ms.toFixed(2)} ms: ${within ? 'within' : 'OVER'} the ${COURSE_ENROLLMENTS_TARGET_P99_MS} ms target`);
    rows.push({
      topology: topology.name,
      operation: `course of ${count} enrollments, ${label}, 1 conn`,
      concurrency: 1,
      ...result,
      serverCpuMsPerRequest: NaN,
      warmupErrors: 0,
      warmupErrorsByKind: {},
      targetP99Ms: COURSE_ENROLLMENTS_TARGET_P99_MS,
      withinTarget: within,
    });
  }
  const some = { ...seeded, userIds: seeded.userIds.slice(0, LONG_WRITE_LEARNERS) };
  rows.push(await benchTaskWithdrawal(topology, databaseUrl, some, log));
  rows.push(await benchGroupEnrollment(topology, databaseUrl, some, log));
  rows.push(await benchReEnrollOnPublish(topology, databaseUrl, some, log));
  rows.push(await benchWaitlistPromotion(topology, databaseUrl, some, log));
  // Last: it deletes one of the learners.
  rows.push(await benchUserLeavesLiveCourses(topology, databaseUrl, some, log));
  return rows;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const log = (message) => process.stderr.write(`bench: ${message}\n`);
  const count = Number(process.env.BENCH_COURSE_ENROLLMENTS || 100_000);
  await runAlone(startAllInOne, { prefix: 'bench_enroll', log }, ({ system, database }) =>
    benchCourseEnrollments(system, database.url, { count, durationS: Number(process.env.BENCH_DURATION_S || 5), warmupS: 1, log }),
  );
}
