import { randomBytes } from 'node:crypto';
import { openApiPath, ROUTES, type RouteDefinition } from '@lms/contracts';
import type { ApiClient, ApiResponse } from './http-client.js';
import type { IdentityFactory } from './identity-factory.js';
import { queryDatabase } from './infra.js';
import { resolveSchema, sampleOf, type Schema, type SchemaComponents } from './json-schema-sample.js';

/** What route fixtures are made with: the owning account's administrator over the API, and the row factory. */
export interface FixtureContext {
  admin: ApiClient;
  factory: IdentityFactory;
  accountId: number;
  /** The gateway's OpenAPI document (`/api/openapi.json`): request schemas come from it. */
  openapi: OpenApiDocument;
  /**
   * Who creates authored records (course templates, tasks), which only their authors and administrators
   * may change: the caller playing the author, so their own courses are what they are allowed on.
   * Unset: the administrator.
   */
  author?: ApiClient;
}

export interface OpenApiDocument {
  paths: Record<string, Record<string, { requestBody?: { content?: Record<string, { schema?: Schema }> } }>>;
  components: { schemas: SchemaComponents };
}

/** A real record for one path parameter; `tenant: false` when the id names something every account shares. */
export interface ParamFixture {
  tenant: boolean;
  create(ctx: FixtureContext, earlier: Record<string, string>): Promise<string>;
}

const unique = (prefix: string) => `${prefix}-${randomBytes(4).toString('hex')}`;

/** The id of the first record of an envelope (`{ key: [{ id }] }`) or object answer (`{ key: { id } }`). */
export function createdId(res: ApiResponse, what: string): string {
  if (res.status < 200 || res.status > 299) throw new Error(`creating ${what} answered ${res.status}: ${res.text.slice(0, 300)}`);
  for (const value of Object.values((res.body ?? {}) as Record<string, unknown>)) {
    const record = Array.isArray(value) ? value[0] : value;
    if (record && typeof record === 'object' && 'id' in record) return String((record as { id: unknown }).id);
  }
  throw new Error(`creating ${what} answered no id: ${res.text.slice(0, 300)}`);
}

/**
 * A market every account sees, holding one fresh item (markets are shared reference data an operator
 * loads; docs/catalog.md), written straight into the catalog schema.
 */
async function marketItem(ctx: FixtureContext, market: string): Promise<string> {
  const id = unique('item');
  await queryDatabase(
    ctx.factory.databaseUrl,
    `WITH m AS (INSERT INTO catalog.markets (id, name) VALUES ($1, $1) ON CONFLICT (id) DO UPDATE SET account_ids = NULL RETURNING id)
     INSERT INTO catalog.market_items (market_id, id, title) SELECT m.id, $2, $2 FROM m`,
    [market, id],
  );
  return id;
}

const learner = async (ctx: FixtureContext) => String((await ctx.factory.user(ctx.accountId, ['learner'])).userId);
const postRoute = (collection: string) => ROUTES.find((r) => r.path === collection && r.methods.includes('POST'));

/** A record made by `client` through its collection's POST route, with the body `bodyFor` gives it. */
async function createThrough(ctx: FixtureContext, client: ApiClient, collection: string): Promise<string> {
  const create = postRoute(collection);
  if (!create) throw new Error(`no POST route for ${collection}`);
  return createdId(await client.post(collection, await bodyFor(ctx, create, 'POST', {})), `a record of ${collection}`);
}

/** A course template, task or program, made by `ctx.author`: only its authors and administrators may change it. */
const authored = (collection: string) => (ctx: FixtureContext) => createThrough(ctx, ctx.author ?? ctx.admin, collection);
const liveCourse = async (ctx: FixtureContext) => createdId(await ctx.admin.post('/api/author/live_courses', { live_courses: [{ title: unique('live') }] }), 'a live course');
async function enrolledLearner(ctx: FixtureContext, courseId: string): Promise<number> {
  const userId = Number(await learner(ctx));
  const res = await ctx.admin.post(`/api/author/live_courses/${courseId}/learners`, { learners: [{ user_id: userId }] });
  if (res.status !== 201) throw new Error(`enrolling a live course learner answered ${res.status}: ${res.text}`);
  return userId;
}
const sessionCourse = new Map<string, string>();
async function registeredSession(ctx: FixtureContext): Promise<{ sessionId: string }> {
  const courseId = await liveCourse(ctx);
  const sessionId = createdId(await ctx.admin.post(`/api/author/live_courses/${courseId}/sessions`, { sessions: [{ seats: 100 }] }), 'a live course session');
  sessionCourse.set(sessionId, courseId);
  const res = await ctx.admin.post(`/api/author/live_course_sessions/${sessionId}/registrations`, { user_id: await enrolledLearner(ctx, courseId) });
  if (res.status !== 204) throw new Error(`registering answered ${res.status}: ${res.text}`);
  return { sessionId };
}
async function importRun(ctx: FixtureContext): Promise<string> {
  const id = createdId(await ctx.admin.post('/api/admin/import_profile/run?dry_run=true'), 'an import run');
  for (let waited = 0; waited < 30_000; waited += 100) {
    const status = (await ctx.admin.get(`/api/admin/import_profile/runs/${id}`)).body?.import_runs?.[0]?.status;
    if (status === 'complete' || status === 'failed') return id;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`import run ${id} did not finish`);
}
/** A fresh sub-account of the account to clone: one clone of a source runs at a time (409 otherwise). */
const cloneSource = async (ctx: FixtureContext) =>
  Number((await queryDatabase<{ id: number }>(ctx.factory.databaseUrl, 'INSERT INTO identity.sub_accounts (account_id, name) VALUES ($1, $2) RETURNING id', [ctx.accountId, unique('division')]))[0].id);
const group = async (ctx: FixtureContext) => createdId(await ctx.admin.post('/api/author/groups', { groups: [{ name: unique('group') }] }), 'a group');

/**
 * Fixtures by `<collection>/:<parameter>`, the segment before the parameter and its name. A parameter
 * with no entry here gets a record from its collection's POST route with a body sampled from the
 * route's schema, when that works (`fixtureFor`); docs/security-testing.md lists the rest.
 */
export const PARAM_FIXTURES: Record<string, ParamFixture> = {
  'custom_fields/:id': {
    tenant: true,
    create: async (ctx) => createdId(await ctx.admin.post('/api/author/custom_fields', { custom_fields: [{ name: unique('field') }] }), 'a custom field'),
  },
  'course_templates/:id': { tenant: true, create: authored('/api/author/course_templates') },
  'course_templates/:course_template_id': { tenant: true, create: authored('/api/author/course_templates') },
  'tasks/:id': { tenant: true, create: authored('/api/author/tasks') },
  'programs/:id': { tenant: true, create: authored('/api/author/programs') },
  'groups/:id': { tenant: true, create: group },
  // A clone that has finished: one still running changes state by itself between two reads.
  'clone_objects/:id': {
    tenant: true,
    create: async (ctx) => {
      const id = createdId(await ctx.admin.post('/api/admin/clone_objects', await BODY_FIXTURES['POST /api/admin/clone_objects'](ctx, {})), 'a clone object');
      for (let i = 0; i < 300; i += 1) {
        const state = (await ctx.admin.get(`/api/admin/clone_objects/${id}`)).body?.clone_objects?.[0]?.state;
        if (state === 'complete' || state === 'failed') return id;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      throw new Error(`clone object ${id} did not finish`);
    },
  },
  'groups/:group_id': { tenant: true, create: group },
  'learners/:id': {
    tenant: true,
    create: async (ctx, earlier) => {
      const userId = await learner(ctx);
      const res = await ctx.admin.post(`/api/author/groups/${earlier.group_id}/learners`, { users: [{ user_id: Number(userId) }] });
      if (res.status >= 300) throw new Error(`adding a group learner answered ${res.status}: ${res.text}`);
      return userId;
    },
  },
  'users/:id': { tenant: true, create: learner },
  // The welcome message's recipient (POST /api/author/notifications/:user_id/welcome).
  'notifications/:user_id': { tenant: true, create: learner },
  'api_tokens/:id': {
    tenant: true,
    create: async (ctx) => createdId(await ctx.admin.post('/api/admin/api_tokens', { api_token: { user_id: await learner(ctx), name: unique('token') } }), 'an API token'),
  },
  // The catalogue of notification types is the same for every account: its keys are nobody's secret.
  'notification_types/:id': { tenant: false, create: async () => 'course_assigned' },
  'crm_accounts/:id': { tenant: true, create: async (ctx) => String(ctx.accountId) },
  'slides/:id': {
    tenant: true,
    create: async (ctx, earlier) =>
      createdId(await ctx.admin.post(`/api/author/course_templates/${earlier.course_template_id}/slides`, slideBody()), 'a slide'),
  },
  'live_courses/:live_course_id': { tenant: true, create: liveCourse },
  'sessions/:id': {
    tenant: true,
    create: async (ctx, earlier) =>
      createdId(await ctx.admin.post(`/api/author/live_courses/${earlier.live_course_id}/sessions`, { sessions: [{ start_at: '2020-01-01T10:00:00Z', seats: 5 }] }), 'a live course session'),
  },
  // A session of the live course with a web conference.
  'sessions/:session_id': {
    tenant: true,
    create: async (ctx, earlier) => {
      const id = createdId(await ctx.admin.post(`/api/author/live_courses/${earlier.live_course_id}/sessions`, { sessions: [{ seats: 5 }] }), 'a live course session');
      const res = await ctx.admin.put(`/api/author/live_courses/${earlier.live_course_id}/sessions/${id}/web_conference`, { web_conference: { provider: 'provider_1' } });
      if (res.status !== 200) throw new Error(`fixture web conference answered ${res.status}: ${res.text}`);
      return id;
    },
  },
  // A session of a new live course with one enrolled, registered learner.
  'live_course_sessions/:live_course_session_id': { tenant: true, create: async (ctx) => (await registeredSession(ctx)).sessionId },
  'registrations/:id': {
    tenant: true,
    create: async (ctx, earlier) => {
      const res = await ctx.admin.get(`/api/author/live_course_sessions/${earlier.live_course_session_id}/registrations`);
      return createdId(res, 'a registration');
    },
  },
  'learners/:live_course_enrollment_id': {
    tenant: true,
    create: async (ctx, earlier) =>
      createdId(await ctx.admin.post(`/api/author/live_courses/${earlier.live_course_id}/learners`, { learners: [{ user_id: Number(await learner(ctx)) }] }), 'a live course enrollment'),
  },
  // Markets are shared by the accounts they name (here: every account), so another account's caller is let through.
  'markets/:market_id': {
    tenant: false,
    create: async (ctx) => {
      await marketItem(ctx, 'third_party_a');
      return 'third_party_a';
    },
  },
  'items/:id': { tenant: false, create: async (ctx, earlier) => marketItem(ctx, earlier.market_id) },
  // A second author, so removing one never hits the last-author rule.
  'authors/:id': {
    tenant: true,
    create: async (ctx, earlier) => {
      const { userId } = await ctx.factory.user(ctx.accountId, ['author']);
      const res = await ctx.admin.post(`/api/author/course_templates/${earlier.course_template_id}/authors`, { users: [{ user_id: userId }] });
      if (res.status >= 300) throw new Error(`adding a course author answered ${res.status}: ${res.text}`);
      return String(userId);
    },
  },
  'enrollments/:id': { tenant: true, create: courseEnrollment },
  // Learner and mobile routes (issue 15). Records are the owning account's, made by its administrator:
  // a same-account learner gets the 404 of "not yours", another account's caller must get 404 too.
  // `courses/:id` is a published course: the learner course routes read it as an enrollment id (so: not
  // the caller's), preview and the mobile item as a course template id.
  'courses/:id': { tenant: true, create: (ctx) => newPublishedCourse(ctx) },
  'courses/:course_id': { tenant: true, create: (ctx) => newPublishedCourse(ctx) },
  'slides/:slide_id': { tenant: true, create: async (ctx, earlier) => commentableSlide(ctx, earlier.course_id) },
  'comments/:id': { tenant: true, create: async (ctx, earlier) => slideComment(ctx, earlier) },
  'comments/:comment_id': { tenant: true, create: async (ctx, earlier) => slideComment(ctx, earlier) },
  'content_items/:id': {
    tenant: true,
    create: async (ctx) => {
      const courseId = await newPublishedCourse(ctx);
      return createdId(await ctx.admin.post(`/api/author/course_templates/${courseId}/lti_content_items`, { lti_content_items: [ltiItem()] }), 'an LTI content item');
    },
  },
  'open_tasks/:open_task_id': {
    tenant: true,
    create: async (ctx) => createdId(await ctx.admin.post('/api/author/tasks', { tasks: [{ title: unique('task'), is_published: true, open_enrollment: true }] }), 'an open task'),
  },
  // A users download of the owning account's first administrator, done (its state no longer changes):
  // every other caller of the account is not its creator (403), another account's gets 404.
  'downloads/:id': { tenant: true, create: async (ctx) => finishedDownload(ctx) },
  // Each account has the same two reports, over its own data.
  'reports/:id': { tenant: false, create: async () => 'QuizReport' },
  'open_courses/:open_course_id': { tenant: true, create: (ctx) => newPublishedCourse(ctx, { open_enrollment: true }) },
  'open_programs/:open_program_id': {
    tenant: true,
    create: async (ctx) => {
      const courseId = await newPublishedCourse(ctx);
      const program = { title: unique('program'), is_published: true, open_enrollment: true, course_template_ids: [Number(courseId)] };
      return createdId(await ctx.admin.post('/api/author/programs', { programs: [program] }), 'an open program');
    },
  },
  // An import run: a dry run of the account's profile (it fails at once without a csv_url, and is a run all the
  // same), finished before it is handed out, so a spec reading it twice reads the same record.
  'runs/:id': { tenant: true, create: importRun },
  // Checkpoints (issue 22) and the learner's records of a completed course. The learner in each is a fresh
  // one, none of the matrix's callers: a same-account learner gets the 404 of "not yours".
  'learning_items/:id': { tenant: true, create: courseEnrollment },
  'tasks/:enrollment_id': { tenant: true, create: async (ctx) => (await checkpointEnrollment(ctx)).enrollmentId },
  // A fresh learner's enrollment in the path's task, published first (a draft takes no enrollments).
  'enrollments/:enrollment_id': {
    tenant: true,
    create: async (ctx, earlier) => {
      const published = await ctx.admin.patch(`/api/author/tasks/${earlier.id}`, { task: { is_published: true } });
      if (published.status !== 200) throw new Error(`publishing task ${earlier.id} answered ${published.status}: ${published.text.slice(0, 300)}`);
      return (await enrolledIn(ctx, 'tasks', earlier.id)).enrollmentId;
    },
  },
  'approvals/:id': { tenant: true, create: pendingApproval },
  'retain_quizzes/:id': { tenant: true, create: retainQuiz },
};

/** A published course of the administrator's (an administrator is an author of every course). */
async function newPublishedCourse(ctx: FixtureContext, fields: Record<string, unknown> = {}): Promise<string> {
  return createdId(await ctx.admin.post('/api/author/course_templates', { course_templates: [{ ...publishedCourse(), ...fields }] }), 'a published course');
}

/** A fresh learner enrolled in a course or checkpoint by the administrator; the learner's token comes with the enrollment's id. */
async function enrolledIn(ctx: FixtureContext, collection: 'course_templates' | 'tasks', id: string): Promise<{ enrollmentId: string; learnerToken: string }> {
  const user = await ctx.factory.user(ctx.accountId, ['learner']);
  const enrollmentId = createdId(await ctx.admin.post(`/api/author/${collection}/${id}/enrollments`, { enrollments: [{ user_id: user.userId }] }), `an enrollment in ${collection}/${id}`);
  return { enrollmentId, learnerToken: user.token };
}

/** A fresh learner's enrollment in a published course: `enrollments/:id` to an author, `learning_items/:id` to a learner (one id space). */
async function courseEnrollment(ctx: FixtureContext): Promise<string> {
  return (await enrolledIn(ctx, 'course_templates', await newPublishedCourse(ctx))).enrollmentId;
}

/** A fresh learner's enrollment in a published checkpoint by `ctx.author`, who decides its approvals (it names no approver). */
async function checkpointEnrollment(ctx: FixtureContext, fields: Record<string, unknown> = {}): Promise<{ enrollmentId: string; learnerToken: string }> {
  const task = { title: unique('checkpoint'), is_published: true, ...fields };
  return enrolledIn(ctx, 'tasks', createdId(await (ctx.author ?? ctx.admin).post('/api/author/tasks', { tasks: [task] }), 'a published checkpoint'));
}

/** A pending approval: the learner of a checkpoint that requires one has marked it done. */
async function pendingApproval(ctx: FixtureContext): Promise<string> {
  const { enrollmentId, learnerToken } = await checkpointEnrollment(ctx, { requires_approval: true });
  const res = await ctx.admin.as(learnerToken).post(`/api/learner/tasks/${enrollmentId}/complete`, {});
  const id: unknown = res.body?.enrollments?.[0]?.approval?.id;
  if (res.status !== 200 || id === undefined) throw new Error(`marking a checkpoint done answered ${res.status} and no approval: ${res.text.slice(0, 300)}`);
  return String(id);
}

/** A retain quiz: a fresh learner completed a published course with retain on, which schedules its quizzes at once. */
async function retainQuiz(ctx: FixtureContext): Promise<string> {
  const { enrollmentId, learnerToken } = await enrolledIn(ctx, 'course_templates', await newPublishedCourse(ctx, { retain: true, retain_intervals: [1] }));
  const res = await ctx.admin.as(learnerToken).post(`/api/learner/courses/${enrollmentId}/complete`);
  const id: unknown = res.body?.linked?.quizzes?.[0]?.id;
  if (res.status !== 200 || id === undefined) throw new Error(`completing a retained course answered ${res.status} and no quiz: ${res.text.slice(0, 300)}`);
  return String(id);
}

/** A users CSV download made by the owning account's administrator, once its worker is done with it. */
async function finishedDownload(ctx: FixtureContext): Promise<string> {
  const id = createdId(await ctx.admin.post('/api/downloads', { download: { download_type: 'users' } }), 'a download');
  for (const until = Date.now() + 30_000; Date.now() < until; await new Promise((r) => setTimeout(r, 100))) {
    const res = await ctx.admin.get(`/api/downloads/${id}`);
    if (res.body?.download?.state === 'done') return id;
  }
  throw new Error(`download ${id} was not done within 30 s`);
}

const ltiItem = () => ({ title: unique('lti'), launch_url: 'https://tool.example.test/launch', consumer_key: unique('key'), consumer_secret: unique('secret') });

/** A quiz slide with a question (for the answer routes) that allows comments (for the comment routes), published. */
async function commentableSlide(ctx: FixtureContext, courseId: string): Promise<string> {
  const slideId = createdId(await ctx.admin.post(`/api/author/course_templates/${courseId}/slides`, quizSlideBody()), 'a slide');
  const res = await ctx.admin.post(`/api/author/course_templates/${courseId}/publish`, {});
  if (res.status !== 200) throw new Error(`publishing answered ${res.status}: ${res.text}`);
  return slideId;
}

async function slideComment(ctx: FixtureContext, earlier: Record<string, string>): Promise<string> {
  return createdId(await ctx.admin.post(`/api/learner/courses/${earlier.course_id}/slides/${earlier.slide_id}/comments`, { comment: { body: unique('comment') } }), 'a slide comment');
}

const publishedCourse = () => ({ title: unique('course'), is_published: true, has_unpublished_changes: false, default_days_until_due: 7, course_type: 'native' });

/**
 * Request bodies a schema cannot describe (they name other records), by `METHOD path`. Every other
 * route gets the smallest body its schema accepts.
 */
/** SlideAttributes needs `allow_comments` present even as null, which a schema sample leaves out. */
const slideBody = () => ({ slides: [{ draft_attributes: { title: unique('slide'), allow_comments: true } }] });
const QUIZ_CHOICES = [{ id: 'a', text: 'Right', correct: true }, { id: 'b', text: 'Wrong', correct: false }];
const quizSlideBody = () => ({ slides: [{ draft_attributes: { title: unique('quiz'), type: 'quiz', allow_comments: true, question: { prompt: 'Pick one', choices: QUIZ_CHOICES } } }] });

export const BODY_FIXTURES: Record<string, (ctx: FixtureContext, ids: Record<string, string>) => Promise<unknown>> = {
  'POST /api/author/course_templates/:course_template_id/lti_content_items': async () => ({ lti_content_items: [ltiItem()] }),
  'POST /api/author/course_templates/:course_template_id/slides': async () => slideBody(),
  'PATCH /api/author/course_templates/:course_template_id/slides/:id': async () => ({ slide: { draft_attributes: { allow_comments: false } } }),
  'PUT /api/author/course_templates/:course_template_id/slides/:id': async () => ({ slide: { draft_attributes: { allow_comments: null } } }),
  // An answer to the fixture's quiz slide (`slides/:slide_id`): the owning account's callers are not enrolled (404, "not yours").
  'POST /api/learner/courses/:course_id/slides/:slide_id/responses': async () => ({ response: { choice_ids: ['a'] } }),
  'POST /api/author/course_templates/:course_template_id/authors': async (ctx) => ({ users: [{ user_id: (await ctx.factory.user(ctx.accountId, ['author'])).userId }] }),
  'POST /api/author/course_templates/:course_template_id/enrollments': async (ctx) => ({ enrollments: [{ user_id: Number(await learner(ctx)) }] }),
  'PATCH /api/author/enrollments/:id': async () => ({ enrollments: [{ score: 50 }] }),
  'PATCH /api/author/live_courses/:live_course_id/sessions/:session_id/web_conference': async () => ({ web_conference: { meeting_url: 'https://meet.example/x' } }),
  'PUT /api/author/live_courses/:live_course_id/sessions/:session_id/web_conference': async () => ({ web_conference: { provider: 'provider_2' } }),
  'PUT /api/author/enrollments/:id': async () => ({ enrollments: [{ state: 'active' }] }),
  'POST /api/author/live_courses/:live_course_id/learners': async (ctx) => ({ learners: [{ user_id: Number(await learner(ctx)) }] }),
  'POST /api/author/live_course_sessions/:live_course_session_id/registrations': async (ctx, ids) => ({ user_id: await enrolledLearner(ctx, sessionCourse.get(ids.live_course_session_id) ?? '0') }),
  'POST /api/author/live_course_sessions/:live_course_session_id/waitlist_enrollments': async (ctx, ids) => ({ user_id: await enrolledLearner(ctx, sessionCourse.get(ids.live_course_session_id) ?? '0') }),
  'PATCH /api/author/live_course_sessions/:live_course_session_id/registrations/:id': async () => ({ live_course_session_registration: { marked_complete_at: '2030-01-01T10:00:00Z' } }),
  'PUT /api/author/live_course_sessions/:live_course_session_id/registrations/:id': async () => ({ live_course_session_registration: { marked_complete_at: null } }),
  // Course enrollments of a course the author (the caller playing the author) made: every download type is an administrator's or an author's.
  'POST /api/downloads': async (ctx) => ({
    download: { download_type: 'course_enrollments', info: { course_template_id: Number(await createThrough(ctx, ctx.author ?? ctx.admin, '/api/author/course_templates')) } },
  }),
  'POST /api/admin/api_tokens': async (ctx) => ({ api_token: { user_id: await learner(ctx), name: unique('token') } }),
  'POST /api/author/groups/:group_id/learners': async (ctx) => ({ users: [{ user_id: Number(await learner(ctx)) }] }),
  // A clone of a fresh sub-account into a fresh subdomain.
  'POST /api/admin/clone_objects': async (ctx) => ({ clone_objects: [{ source_id: await cloneSource(ctx), source_type: 'SubAccount', options: { subdomain: unique('clone'), name: unique('Clone') } }] }),
};

/**
 * State a route needs besides its records, by route path, made after them: a lock's `GET` answers 404
 * until someone holds the lock, so the lock routes find it taken by the owning administrator.
 */
export const ROUTE_SETUP: Record<string, (ctx: FixtureContext, path: string) => Promise<void>> = Object.fromEntries(
  ['/api/author/course_templates/:id/lock', '/api/author/tasks/:id/lock'].map((route) => [
    route,
    async (ctx: FixtureContext, path: string) => {
      const res = await ctx.admin.post(path);
      if (res.status !== 200) throw new Error(`taking the lock ${path} answered ${res.status}: ${res.text.slice(0, 300)}`);
    },
  ]),
);

/** `/api/a/:x/b/:id` -> `[['x', 'a/:x'], ['id', 'b/:id']]`. */
export function pathParams(path: string): { name: string; key: string }[] {
  const segments = path.split('/');
  return segments.flatMap((segment, i) => (segment.startsWith(':') ? [{ name: segment.slice(1), key: `${segments[i - 1]}/${segment}` }] : []));
}

export function requestSchema(ctx: FixtureContext, route: RouteDefinition, method: string): Schema | undefined {
  const operation = ctx.openapi.paths[openApiPath(route.path)]?.[method.toLowerCase()];
  const schema = operation?.requestBody?.content?.['application/json']?.schema;
  return schema ? resolveSchema(schema, ctx.openapi.components.schemas) : undefined;
}

/** The body a route's caller sends in the matrix: a fixture's, else the smallest one its schema accepts. */
export async function bodyFor(ctx: FixtureContext, route: RouteDefinition, method: string, ids: Record<string, string>): Promise<unknown> {
  const fixture = BODY_FIXTURES[`${method} ${route.path}`];
  if (fixture) return fixture(ctx, ids);
  if (!route.body) return undefined;
  return sampleOf(requestSchema(ctx, route, method), ctx.openapi.components.schemas);
}

/** A fixture made through the collection's own POST route (`/api/x` for `/api/x/:id`), when the table has one. */
function collectionFixture(route: RouteDefinition, name: string): ParamFixture | undefined {
  const collection = route.path.slice(0, route.path.indexOf(`/:${name}`));
  if (!postRoute(collection) || collection.includes('/:')) return undefined;
  return { tenant: true, create: (ctx) => createThrough(ctx, ctx.admin, collection) };
}

export type FixtureLookup = { kind: 'fixture'; fixture: ParamFixture } | { kind: 'none' };

export function fixtureFor(route: RouteDefinition, param: { name: string; key: string }): FixtureLookup {
  const fixture = PARAM_FIXTURES[param.key] ?? collectionFixture(route, param.name);
  return fixture ? { kind: 'fixture', fixture } : { kind: 'none' };
}

/** Whether every parameter of a route has a fixture; a route without parameters trivially does. */
export const hasFixtures = (route: RouteDefinition) => pathParams(route.path).every((p) => fixtureFor(route, p).kind === 'fixture');

/**
 * A path of the route with fresh records of the owning account for its parameters; a parameter without a
 * fixture gets `1`. Also answers whether any parameter names a tenant's record (another account must see 404).
 */
export async function fixturePath(ctx: FixtureContext, route: RouteDefinition): Promise<{ path: string; ids: Record<string, string>; tenantOwned: boolean }> {
  const ids: Record<string, string> = {};
  let tenantOwned = false;
  for (const param of pathParams(route.path)) {
    const lookup = fixtureFor(route, param);
    if (lookup.kind === 'fixture') {
      ids[param.name] = await lookup.fixture.create(ctx, ids);
      tenantOwned ||= lookup.fixture.tenant;
    } else {
      ids[param.name] = '1';
    }
  }
  const path = route.path.replace(/:([A-Za-z0-9_]+)/g, (_, name: string) => encodeURIComponent(ids[name]));
  await ROUTE_SETUP[route.path]?.(ctx, path);
  return { path, ids, tenantOwned };
}
