// Catalog list row of `npm run bench`: an account with BENCH_CATALOG_COURSES (100,000) course templates,
// then list pages with sorts, filters[], search and deep pages, one URL per measurement, through the
// gateway of the given topology. Latency is measured on one connection (the path itself, no queueing);
// the target is p99 ≤ 25 ms for every page (issue 7). Seeding goes straight to the catalog schema: the
// rows are what the API would have written, without 100,000 HTTP round trips.
// Alone: `npm run build && node bench/catalog-lists.mjs` (an all-in-one on a fresh bench database;
// BENCH_CATALOG_COURSES, BENCH_DURATION_S (5), BENCH_KEEP_DATABASE=1 keeps the seeded database to study plans).
import { fileURLToPath } from 'node:url';
import { bootstrapOwner, withClient } from './infra.mjs';
import { requestJson, runLoad } from './load.mjs';
import { runAlone, startAllInOne } from './topologies.mjs';

export const CATALOG_LIST_TARGET_P99_MS = 25;

const TOPICS = ['Safety', 'Onboarding', 'Leadership', 'Compliance', 'Sales', 'Security', 'Wellbeing', 'Finance', 'Privacy', 'Customer care'];
const LEVELS = ['basics', 'advanced', 'refresher', 'workshop', 'certification'];

/** The pages measured: each is one URL a client would plausibly ask for. */
export const CATALOG_LIST_PAGES = [
  ['newest, page 1', ''],
  ['title, page 1000', '?sort=title&page=1000'],
  ['updated, filtered, page 90', '?sort=updated&filters[]=unpublished&filters[]=has_certificate&page=90'],
  ['search + filter', '?search=leadership%20adv&filters[]=native'],
  ['search word, title sort', '?search=privacy&sort=title&page=3'],
  ['my_courses + search', '?filters[]=my_courses&search=safety&sort=title'],
  ['no_enrollments + scorm, counts', '?filters[]=no_enrollments&filters[]=scorm&includes[]=counts&page=50'],
  ['archived, deleted only', '?only_deleted=true&sort=archived&page=10'],
  ['created_after + search', '?created_after=2020-01-01T00:00:00Z&search=finance%20cert'],
  ['titles, search', '/titles?search=onboarding&sort=title&per_page=100'],
];

/**
 * Writes `count` course templates into the bootstrap account: titles from topics × levels × numbers,
 * the four course types, a fifth with certificates, a third unpublished, one in twenty archived; the
 * administrator authors one in ten (so `my_courses` has 10% of them).
 */
export async function seedCourseTemplates(databaseUrl, count) {
  return withClient(databaseUrl, async (client) => {
    const { accountId, subAccountId, adminId } = await bootstrapOwner(client);
    await client.query(
      `INSERT INTO catalog.course_templates
         (account_id, sub_account_id, author_id, title, course_type, default_days_until_due, has_certificate, is_published, has_unpublished_changes,
          external_status, uuid, created_at, updated_at, deleted_at)
       SELECT $1, $2, CASE WHEN i % 10 = 0 THEN $3 ELSE 1000000 + i % 50 END,
              ($4::text[])[1 + i % 10] || ' ' || ($5::text[])[1 + (i / 10) % 5] || ' ' || i,
              (ARRAY['native', 'scorm', 'third_party_a', 'third_party_b'])[1 + (i / 7) % 4],
              14, i % 5 = 0, i % 3 <> 0, i % 3 = 0,
              CASE WHEN (i / 7) % 4 = 0 THEN 'inapplicable' ELSE 'pending' END, gen_random_uuid(),
              timestamptz '2021-01-01' + i * interval '17 minutes',
              timestamptz '2021-01-01' + i * interval '17 minutes' + (i % 97) * interval '1 day',
              CASE WHEN i % 20 = 0 THEN timestamptz '2024-01-01' + i * interval '1 minute' END
         FROM generate_series(1, $6::int) AS i`,
      [accountId, subAccountId, adminId, TOPICS, LEVELS, count],
    );
    await client.query(
      `INSERT INTO catalog.course_authors (account_id, course_template_id, user_id)
       SELECT account_id, id, author_id FROM catalog.course_templates WHERE account_id = $1`,
      [accountId],
    );
    // Fresh statistics and visibility map, as a table that has lived a while has them.
    await client.query('VACUUM ANALYZE catalog.course_templates');
    await client.query('VACUUM ANALYZE catalog.course_authors');
    return { accountId };
  });
}

/** Seeds, checks every page answers 200 with records, then measures each page on one connection. */
export async function benchCatalogLists(topology, databaseUrl, { count, durationS, warmupS, log }) {
  const started = Date.now();
  await seedCourseTemplates(databaseUrl, count);
  log(`catalog: seeded ${count} course templates in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  const base = `${topology.baseUrl}/api/author/course_templates`;
  const rows = [];
  for (const [label, query] of CATALOG_LIST_PAGES) {
    const url = base + query;
    const check = await requestJson(url, { headers: topology.headers });
    if (check.status !== 200 || !Array.isArray(check.json?.course_templates)) throw new Error(`catalog list ${label} answered ${check.status}: ${check.text.slice(0, 300)}`);
    if (check.json.course_templates.length === 0) log(`warning: catalog list ${label} is an empty page`);
    const load = { url, headers: topology.headers, concurrency: 1 };
    if (warmupS > 0) await runLoad({ ...load, durationMs: warmupS * 1000 });
    const result = await runLoad({ ...load, durationMs: durationS * 1000 });
    const verdict = result.p99Ms <= CATALOG_LIST_TARGET_P99_MS ? 'within' : 'OVER';
    log(`${topology.name} / catalog list (${count}) ${label}: p50 ${result.p50Ms.toFixed(2)} ms, p99 ${result.p99Ms.toFixed(2)} ms: ${verdict} the ${CATALOG_LIST_TARGET_P99_MS} ms target`);
    rows.push({
      topology: topology.name,
      operation: `catalog list ${label}, 1 conn`,
      concurrency: 1,
      ...result,
      serverCpuMsPerRequest: NaN,
      warmupErrors: 0,
      warmupErrorsByKind: {},
      targetP99Ms: CATALOG_LIST_TARGET_P99_MS,
      withinTarget: result.p99Ms <= CATALOG_LIST_TARGET_P99_MS,
    });
  }
  return rows;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const log = (message) => process.stderr.write(`bench: ${message}\n`);
  const count = Number(process.env.BENCH_CATALOG_COURSES || 100_000);
  await runAlone(startAllInOne, { prefix: 'bench_lists', log }, ({ system, database }) =>
    benchCatalogLists(system, database.url, { count, durationS: Number(process.env.BENCH_DURATION_S || 5), warmupS: 1, log }),
  );
}
