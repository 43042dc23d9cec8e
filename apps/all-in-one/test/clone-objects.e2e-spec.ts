import { CLONE_STEP_SUBJECTS, type CloneCopyReply, type CloneUndoReply } from '@lms/contracts';
import { contextSealFor, loadConfig, requestSigned } from '@lms/platform';
import { type ApiClient, eventually, holdingLock, TEST_CONTEXT_SIGNING_KEY, type TestCast, testNatsUrl } from '@lms/testing';
import { COURSES, courseRequest, PROGRAMS, TASKS } from './catalog-fixture.js';
import { startTestSystem, type TestSystem } from './test-system.js';

const CLONES = '/api/admin/clone_objects';

/** Sub-account clones through the gateway: jobs records them, jobs-worker runs the saga over identity, catalog and scheduling. */
/** Short, so a step held past it shows the step is not bound by it. */
const RPC_TIMEOUT_MS = 1500;

describe('clone objects', () => {
  let t: TestSystem;
  let cast: TestCast;
  let stranger: ApiClient;
  let root: number;

  const q = async <T>(text: string, values: unknown[] = []) => t.db.query<T>(text, values);
  const clone = (source: number, subdomain: string, name = `Clone ${subdomain}`) => ({ source_id: source, source_type: 'SubAccount', options: { subdomain, name } });
  /** Asks a service's clone step directly, as the jobs worker does. */
  const cloneCtx = { requestId: 'step', accountId: 0, subAccountId: null, userId: 1, roles: ['admin' as const] };
  const asker = (service: string) => ({
    bus: t.system.bus,
    seal: contextSealFor(loadConfig({ NATS_URL: testNatsUrl()!, CONTEXT_SIGNING_KEY: TEST_CONTEXT_SIGNING_KEY })),
    timeoutMs: 5_000,
    service,
    unavailableCode: 'UNAVAILABLE',
  });
  const settled = (id: number) =>
    eventually(async () => {
      const res = await t.api.get(`${CLONES}/${id}`);
      return ['complete', 'failed'].includes(res.body.clone_objects?.[0]?.state) ? res.body.clone_objects[0] : undefined;
    }, 30_000, 100);

  beforeAll(async () => {
    t = await startTestSystem({ RPC_TIMEOUT_MS: String(RPC_TIMEOUT_MS) });
    cast = await t.factory.cast();
    cloneCtx.accountId = cast.accountId;
    stranger = t.api.as(cast.stranger.token);
    [{ id: root }] = await q<{ id: number }>('SELECT id FROM identity.sub_accounts WHERE account_id = $1 AND is_root', [cast.accountId]);
  }, 60_000);

  afterAll(async () => {
    await t?.close();
  });

  it('lists no clone at first (200, then 304 for its ETag) and answers 404 for an unknown id', async () => {
    const list = await t.api.get(CLONES);
    expect(list.status).toBe(200);
    expect(list.body).toEqual({ meta: {}, clone_objects: [] });
    const etag = list.headers.get('etag');
    expect(etag).toBeTruthy();
    expect((await t.api.get(CLONES, { 'If-None-Match': etag! })).status).toBe(304);
    const missing = await t.api.get(`${CLONES}/999999`);
    expect(missing.status).toBe(404);
    expect(missing.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  });

  it('refuses bad requests with 400 and unknown sources with 404, starting nothing', async () => {
    const mixed = await t.api.post(CLONES, { clone_objects: [clone(root, 'mixed-a'), { ...clone(root, 'mixed-b'), source_type: 'Account' }] });
    expect(mixed.status).toBe(400);
    expect((await t.api.post(CLONES, {})).status).toBe(400);
    expect((await t.api.post(CLONES, { clone_objects: [] })).status).toBe(400);
    expect((await t.api.post(CLONES, { clone_objects: [clone(root, 'Not A Label')] })).status).toBe(400);
    expect((await t.api.post(CLONES, { clone_objects: [{ source_id: root, source_type: 'SubAccount' }] })).status).toBe(400);
    expect((await t.api.post(CLONES, { clone_objects: [clone(root, 'x', '   ')] })).status).toBe(400);
    const unknown = await t.api.post(CLONES, { clone_objects: [clone(999999, 'nowhere')] });
    expect(unknown.status).toBe(404);
    expect(unknown.body.code).toBe('SUB_ACCOUNT_NOT_FOUND');
    // Another account's sub-account is no source of this one's.
    const [{ id: theirs }] = await q<{ id: number }>('SELECT s.id FROM identity.sub_accounts s JOIN identity.users u ON u.account_id = s.account_id WHERE u.id = $1 AND s.is_root', [cast.stranger.userId]);
    expect((await t.api.post(CLONES, { clone_objects: [clone(theirs, 'theirs')] })).status).toBe(404);
    expect((await t.api.get(CLONES)).body.clone_objects).toEqual([]);
  });

  it('answers 409 when the subdomain is an account\'s', async () => {
    const res = await t.api.post(CLONES, { clone_objects: [clone(root, 'default')] });
    expect(res.status).toBe(409);
    expect(res.body.code).toBe('SUBDOMAIN_TAKEN');
    expect((await t.api.post(CLONES, { clone_objects: [clone(root, 'twice'), clone(root, 'twice')] })).status).toBe(409);
  });

  it('clones the root sub-account: its courses, slides, tasks, programs, live courses, sessions and conferences are copied into the new sub-account, with no enrollment or registration', async () => {
    const course = (await t.api.post(COURSES, { course_templates: [courseRequest({ title: 'Cloned course', is_published: true })] })).body.course_templates[0];
    expect((await t.api.post(`${COURSES}/${course.id}/slides`, { slides: [{ draft_attributes: { title: 'Slide one', allow_comments: true } }] })).status).toBe(201);
    const tool = { title: 'Cloned tool', launch_url: 'https://tool.example/launch', consumer_key: 'key', consumer_secret: 'secret' };
    expect((await t.api.post(`${COURSES}/${course.id}/lti_content_items`, { lti_content_items: [tool] })).status).toBe(201);
    const enrolled = await t.api.post(`${COURSES}/${course.id}/enrollments`, { enrollments: [{ user_id: cast.learner.userId }] });
    expect(enrolled.status).toBeLessThan(300);
    const task = await t.api.post(TASKS, { tasks: [{ title: 'Cloned task' }] });
    expect(task.status).toBe(201);
    const taskId = Number(task.body.tasks[0].id);
    const program = await t.api.post(PROGRAMS, { programs: [{ title: 'Cloned program', items: [{ type: 'CourseTemplate', id: Number(course.id) }, { type: 'Task', id: taskId }] }] });
    expect(program.status).toBe(201);
    const live = (await t.api.post('/api/author/live_courses', { live_courses: [{ title: 'Cloned live course' }] })).body.live_courses[0];
    const session = (await t.api.post(`/api/author/live_courses/${live.id}/sessions`, { sessions: [{ seats: 10 }] })).body.sessions[0];
    expect((await t.api.put(`/api/author/live_courses/${live.id}/sessions/${session.id}/web_conference`, { web_conference: { provider: 'provider_1' } })).status).toBe(200);
    expect((await t.api.post(`/api/author/live_courses/${live.id}/sessions`, { parent_id: Number(session.id), sessions: [{ seats: 5 }, { seats: 6 }] })).status).toBe(201);
    expect((await t.api.post(`/api/author/live_courses/${live.id}/learners`, { learners: [{ user_id: cast.learner.userId }] })).status).toBe(201);
    expect((await t.api.post(`/api/author/live_course_sessions/${session.id}/registrations`, { user_id: cast.learner.userId })).status).toBe(204);

    const res = await t.api.post(CLONES, { clone_objects: [clone(root, 'west-division', 'West division')] });
    expect(res.status).toBe(201);
    const [accepted] = res.body.clone_objects;
    expect(accepted).toEqual({
      id: expect.any(Number),
      state: 'pending',
      destination_id: null,
      destination_type: null,
      source_id: root,
      source_type: 'SubAccount',
      error_messages: [],
      created_at: expect.any(String),
      updated_at: expect.any(String),
      parameters: { subdomain: 'west-division', name: 'West division' },
    });
    const done = await settled(accepted.id);
    expect(done).toMatchObject({ state: 'complete', destination_type: 'SubAccount', error_messages: [], source_id: root });
    const destination = done.destination_id as number;
    expect(destination).toEqual(expect.any(Number));
    expect((await t.api.get(CLONES)).body.clone_objects.map((c: { id: number }) => c.id)).toEqual([accepted.id]);

    // The copies are visible through the API, owned by the new sub-account.
    const courses = (await t.api.get(`${COURSES}?per_page=100`)).body.course_templates as { id: string; title: string; sub_account: { id: string; name: string } }[];
    const copies = courses.filter((c) => c.title === 'Cloned course' && c.id !== course.id);
    expect(copies).toHaveLength(1);
    expect(copies[0].sub_account).toMatchObject({ id: String(destination), name: 'West division', is_root: false });
    const copiedSlides = await t.api.get(`${COURSES}/${copies[0].id}/slides`);
    expect(copiedSlides.status).toBe(200);
    // The course's LTI tool links came along, secret included, so the copy launches as its source does.
    const ltiOf = (id: string) => q('SELECT title, launch_url, consumer_key, consumer_secret FROM catalog.lti_content_items WHERE course_template_id = $1', [Number(id)]);
    expect(await ltiOf(copies[0].id)).toEqual([{ title: 'Cloned tool', launch_url: tool.launch_url, consumer_key: 'key', consumer_secret: 'secret' }]);
    const tasks = (await t.api.get(`${TASKS}?per_page=100`)).body.tasks as { title: string; sub_account: { id: string } | null }[];
    expect(tasks.filter((x) => x.title === 'Cloned task').map((x) => x.sub_account?.id).sort()).toEqual([String(destination), String(root)].sort());
    const programs = await q<{ id: number; course_template_id: number }>(
      `SELECT p.id, pc.course_template_id FROM catalog.programs p JOIN catalog.program_courses pc ON pc.program_id = p.id WHERE p.sub_account_id = $1`,
      [destination],
    );
    expect(programs).toEqual([{ id: expect.any(Number), course_template_id: Number(copies[0].id) }]);
    // The program's checkpoint is the task's copy, in its place.
    const [taskCopy] = await q<{ id: number }>("SELECT id FROM catalog.tasks WHERE sub_account_id = $1 AND title = 'Cloned task'", [destination]);
    expect(await q('SELECT task_id, position FROM catalog.program_tasks WHERE program_id = $1', [programs[0].id])).toEqual([{ task_id: taskCopy.id, position: 2 }]);
    const lives = (await t.api.get('/api/author/live_courses?per_page=100')).body.live_courses as { id: string; title: string }[];
    const liveCopy = lives.find((l) => l.title === 'Cloned live course' && l.id !== live.id)!;
    expect(liveCopy).toBeDefined();
    const sessions = (await t.api.get(`/api/author/live_courses/${liveCopy.id}/sessions`)).body.sessions as { id: string }[];
    expect(sessions).toHaveLength(1);
    expect((await t.api.get(`/api/author/live_courses/${liveCopy.id}/sessions/${sessions[0].id}/web_conference`)).status).toBe(200);
    // The parts came along, under the session's copy.
    const parts = (await t.api.get(`/api/author/live_courses/${liveCopy.id}/sessions?parent_id=${sessions[0].id}`)).body.sessions as { seats: number; parent_id: number }[];
    expect(parts.map((p) => [p.seats, p.parent_id]).sort()).toEqual([[5, Number(sessions[0].id)], [6, Number(sessions[0].id)]]);
    // So did the course's authors.
    const authorsOf = async (id: number) => (await q<{ user_id: number }>('SELECT user_id FROM catalog.course_authors WHERE course_template_id = $1 ORDER BY user_id', [id])).map((r) => r.user_id);
    expect(await authorsOf(Number(copies[0].id))).toEqual(await authorsOf(Number(course.id)));
    expect(await authorsOf(Number(course.id))).not.toHaveLength(0);

    // Nothing of the learners came along.
    const [{ n: enrollments }] = await q<{ n: number }>(`SELECT count(*)::int AS n FROM catalog.enrollments WHERE enrollable_type = 'CourseTemplate' AND enrollable_id = $1`, [Number(copies[0].id)]);
    expect(enrollments).toBe(0);
    const [{ n: registrations }] = await q<{ n: number }>('SELECT count(*)::int AS n FROM scheduling.registrations WHERE session_id = $1', [Number(sessions[0].id)]);
    expect(registrations).toBe(0);
    const [{ n: learners }] = await q<{ n: number }>('SELECT count(*)::int AS n FROM scheduling.live_course_enrollments WHERE live_course_id = $1', [Number(liveCopy.id)]);
    expect(learners).toBe(0);

    // A redelivered step (as after a lost worker) answers what it did and copies nothing twice.
    if (testNatsUrl()) {
      const [{ job_id: cloneId }] = await q<{ job_id: string }>('SELECT job_id FROM jobs.clone_objects WHERE id = $1', [accepted.id]);
      const [{ n: before }] = await q<{ n: number }>('SELECT count(*)::int AS n FROM catalog.course_templates');
      const again = await requestSigned<CloneCopyReply>(asker('catalog'), cloneCtx, CLONE_STEP_SUBJECTS.catalogCopy, { clone_id: cloneId, source_id: root, destination_id: destination, source_is_root: true });
      expect(again.copied.course_templates).toBeGreaterThanOrEqual(1);
      const [{ n: after }] = await q<{ n: number }>('SELECT count(*)::int AS n FROM catalog.course_templates');
      expect(after).toBe(before);
    }

    // Its subdomain is now taken; another account sees none of it.
    expect((await t.api.post(CLONES, { clone_objects: [clone(root, 'west-division')] })).status).toBe(409);
    expect((await stranger.get(`${CLONES}/${accepted.id}`)).status).toBe(404);
    expect((await stranger.get(CLONES)).body.clone_objects).toEqual([]);
  });

  it('answers 409 to a clone of a source whose clone is still running; a step outlasting the RPC timeout still completes, in its first attempt', async () => {
    // identity's insert of the new sub-account waits on this lock: the first clone stays running meanwhile,
    // for longer than an API request may take (a step copies a whole source: CLONE_STEP_TIMEOUT_MS).
    await holdingLock(t.db.url, 'LOCK TABLE identity.sub_accounts IN EXCLUSIVE MODE', [], async (held) => {
      const first = await t.api.post(CLONES, { clone_objects: [clone(root, 'east-division')] });
      expect(first.status).toBe(201);
      const second = await t.api.post(CLONES, { clone_objects: [clone(root, 'north-division')] });
      expect(second.status).toBe(409);
      expect(second.body.code).toBe('CLONE_RUNNING');
      await new Promise((resolve) => setTimeout(resolve, 2 * RPC_TIMEOUT_MS + 500));
      await held.release('rollback');
      expect(await settled(first.body.clone_objects[0].id)).toMatchObject({ state: 'complete', error_messages: [] });
      const [{ attempts }] = await q<{ attempts: number }>("SELECT attempts FROM jobs.jobs WHERE kind = 'clone_object' ORDER BY created_at DESC LIMIT 1");
      expect(attempts).toBe(1);
    });
  });

  it('a catalog step refused by the database compensates: no sub-account and no copies are left, and the clone ends failed with the cause', async () => {
    // A real refusal: a trigger on the catalog's course templates for the sub-account being made under this subdomain.
    await q(`CREATE FUNCTION catalog.refuse_clone() RETURNS trigger LANGUAGE plpgsql AS $$
             BEGIN
               IF EXISTS (SELECT 1 FROM identity.sub_accounts WHERE id = NEW.sub_account_id AND subdomain = 'broken-division') THEN
                 RAISE EXCEPTION 'course templates of broken-division are refused';
               END IF;
               RETURN NEW;
             END $$`);
    await q('CREATE TRIGGER refuse_clone BEFORE INSERT ON catalog.course_templates FOR EACH ROW EXECUTE FUNCTION catalog.refuse_clone()');
    try {
      const [{ n: coursesBefore }] = await q<{ n: number }>('SELECT count(*)::int AS n FROM catalog.course_templates');
      const res = await t.api.post(CLONES, { clone_objects: [clone(root, 'broken-division')] });
      expect(res.status).toBe(201);
      const failed = await settled(res.body.clone_objects[0].id);
      expect(failed.state).toBe('failed');
      expect(failed.destination_id).toBeNull();
      expect(failed.error_messages).toEqual([expect.stringContaining('course templates of broken-division are refused')]);
      expect(await q('SELECT id FROM identity.sub_accounts WHERE subdomain = $1', ['broken-division'])).toEqual([]);
      const [{ n: coursesAfter }] = await q<{ n: number }>('SELECT count(*)::int AS n FROM catalog.course_templates');
      expect(coursesAfter).toBe(coursesBefore);
      // Each service recorded the step undone (so a late copy is refused) and holds no copy of it.
      for (const schema of ['identity', 'catalog', 'scheduling']) {
        expect(await q(`SELECT state FROM ${schema}.clone_steps WHERE state = 'undone'`)).toEqual([{ state: 'undone' }]);
        expect(await q(`SELECT 1 FROM ${schema}.clone_copies c JOIN ${schema}.clone_steps s USING (clone_id) WHERE s.state = 'undone'`)).toEqual([]);
      }
      // A late last step (a worker that stalled past the compensation) is refused: there is nothing to show.
      if (testNatsUrl()) {
        const [{ job_id: cloneId }] = await q<{ job_id: string }>('SELECT job_id FROM jobs.clone_objects WHERE id = $1', [failed.id]);
        await expect(requestSigned(asker('identity'), cloneCtx, CLONE_STEP_SUBJECTS.identityActivate, { clone_id: cloneId })).rejects.toMatchObject({ code: 'CLONE_UNDONE' });
      }
      // The subdomain is free again: a failed clone holds nothing.
      await q('DROP TRIGGER refuse_clone ON catalog.course_templates');
      const retry = await t.api.post(CLONES, { clone_objects: [clone(root, 'broken-division')] });
      expect(retry.status).toBe(201);
      expect(await settled(retry.body.clone_objects[0].id)).toMatchObject({ state: 'complete' });
    } finally {
      await q('DROP TRIGGER IF EXISTS refuse_clone ON catalog.course_templates');
      await q('DROP FUNCTION IF EXISTS catalog.refuse_clone()');
    }
  });

  // Compensation answers what it removed (the jobs worker logs it): each service's count of its copies.
  (testNatsUrl() ? it : it.skip)('undoes a step by removing its copies, and answers how many went', async () => {
    // Content of its own to copy, whatever ran before.
    for (const title of ['Undone one', 'Undone two']) {
      const made = await t.api.post(COURSES, { course_templates: [courseRequest({ title })] });
      expect(made.status).toBe(201);
      const tool = { title: `${title} tool`, launch_url: 'https://tool.example/launch', consumer_key: 'key', consumer_secret: 'secret' };
      expect((await t.api.post(`${COURSES}/${made.body.course_templates[0].id}/lti_content_items`, { lti_content_items: [tool] })).status).toBe(201);
    }
    expect((await t.api.post(TASKS, { tasks: [{ title: 'Undone task' }] })).status).toBe(201);
    expect((await t.api.post('/api/author/live_courses', { live_courses: [{ title: 'Undone live course' }] })).status).toBe(201);
    const res = await t.api.post(CLONES, { clone_objects: [clone(root, 'undone-division')] });
    expect(res.status).toBe(201);
    expect(await settled(res.body.clone_objects[0].id)).toMatchObject({ state: 'complete' });
    const [{ job_id: cloneId }] = await q<{ job_id: string }>('SELECT job_id FROM jobs.clone_objects WHERE id = $1', [res.body.clone_objects[0].id]);
    const undo = (service: string, subject: string) => requestSigned<CloneUndoReply>(asker(service), cloneCtx, subject, { clone_id: cloneId });
    const copies = async (schema: string, kinds: string[]) =>
      (await q<{ n: number }>(`SELECT count(*)::int AS n FROM ${schema}.clone_copies WHERE clone_id = $1 AND kind = ANY($2::text[])`, [cloneId, kinds]))[0].n;

    const catalogCopies = await copies('catalog', ['program', 'task', 'course_template']);
    const schedulingCopies = await copies('scheduling', ['live_course']);
    expect(catalogCopies).toBeGreaterThan(2);
    expect(schedulingCopies).toBeGreaterThan(0);
    const courseCopies = (await q<{ copy_id: number }>("SELECT copy_id FROM catalog.clone_copies WHERE clone_id = $1 AND kind = 'course_template'", [cloneId])).map((r) => r.copy_id);
    const toolsOfCopies = () => q('SELECT id FROM catalog.lti_content_items WHERE course_template_id = ANY($1::int[])', [courseCopies]);
    expect((await toolsOfCopies()).length).toBeGreaterThanOrEqual(2);
    expect(await undo('catalog', CLONE_STEP_SUBJECTS.catalogUndo)).toEqual({ removed: catalogCopies });
    expect(await toolsOfCopies()).toEqual([]);
    expect(await undo('scheduling', CLONE_STEP_SUBJECTS.schedulingUndo)).toEqual({ removed: schedulingCopies });
    // The sub-account is shown (its clone complete): compensation never removes a shown one.
    expect(await undo('identity', CLONE_STEP_SUBJECTS.identityUndo)).toEqual({ removed: 0 });
    // Undone again: nothing left to remove.
    expect(await undo('catalog', CLONE_STEP_SUBJECTS.catalogUndo)).toEqual({ removed: 0 });
  });

  it('pages the list: every clone object at once by default (up to 1,000), one page of per_page with a next link', async () => {
    const whole = await t.api.get(CLONES);
    const ids = (whole.body.clone_objects as { id: number }[]).map((c) => c.id);
    expect(ids.length).toBeGreaterThanOrEqual(2);
    expect(ids).toEqual([...ids].sort((a, b) => b - a));
    expect(whole.headers.get('x-total-count')).toBe(String(ids.length));
    expect(whole.headers.get('link')).not.toMatch(/rel="next"/);

    const first = await t.api.get(`${CLONES}?per_page=1`);
    expect(first.body.clone_objects.map((c: { id: number }) => c.id)).toEqual([ids[0]]);
    const next = /<([^>]*)>; rel="next"/.exec(first.headers.get('link') ?? '')?.[1];
    expect(next).toBeDefined();
    const second = await t.api.get(new URL(next!).pathname + new URL(next!).search);
    expect(second.body.clone_objects.map((c: { id: number }) => c.id)).toEqual([ids[1]]);
  });

  // Undo locks its copies courses, then tasks, then programs before it deletes any: the order a program
  // enrollment and a program's own delete take them, so neither deadlocks with it.
  describe('undo beside writes of a copied program', () => {
    /** A finished clone of a published program with one course; its copied program's id. */
    const clonedProgram = async (subdomain: string) => {
      const course = await t.api.post(COURSES, { course_templates: [courseRequest({ title: `${subdomain} course`, is_published: true })] });
      const program = await t.api.post(PROGRAMS, { programs: [{ title: subdomain, is_published: true, course_template_ids: [Number(course.body.course_templates[0].id)] }] });
      expect([course.status, program.status]).toEqual([201, 201]);
      const res = await t.api.post(CLONES, { clone_objects: [clone(root, subdomain)] });
      expect(await settled(res.body.clone_objects[0].id)).toMatchObject({ state: 'complete' });
      const [{ job_id: cloneId }] = await q<{ job_id: string }>('SELECT job_id FROM jobs.clone_objects WHERE id = $1', [res.body.clone_objects[0].id]);
      const [{ copy_id: copy }] = await q<{ copy_id: number }>("SELECT copy_id FROM catalog.clone_copies WHERE clone_id = $1 AND kind = 'program' AND source_id = $2", [cloneId, Number(program.body.programs[0].id)]);
      const [{ n: copies }] = await q<{ n: number }>("SELECT count(*)::int AS n FROM catalog.clone_copies WHERE clone_id = $1 AND kind IN ('program', 'task', 'course_template')", [cloneId]);
      return { cloneId, copy, copies };
    };

    /**
     * Holds the copied program while `first`, then `second`, reach their locks (each waits behind the test),
     * then lets go; answers what each answered.
     */
    /** `first` queues behind the test's lock on the copied program, then `second` behind it; then both go on. */
    const meeting = <A, B>(copy: number, first: () => Promise<A>, second: () => Promise<B>): Promise<[A, B]> =>
      holdingLock(t.db.url, 'SELECT 1 FROM catalog.programs WHERE id = $1 FOR UPDATE', [copy], async (held) => {
        const a = first();
        await held.waiters(1);
        const b = second();
        await held.waiters(2);
        await held.release();
        return [await a, await b];
      });

    const undo = (cloneId: string) => requestSigned<CloneUndoReply>(asker('catalog'), cloneCtx, CLONE_STEP_SUBJECTS.catalogUndo, { clone_id: cloneId });

    (testNatsUrl() ? it : it.skip)('undoes a step while a copied program is being enrolled', async () => {
      const { cloneId, copy, copies } = await clonedProgram('undone-path');
      const [undone, enrolled] = await meeting(copy, () => undo(cloneId), () => t.api.post(`${PROGRAMS}/${copy}/enrollments`, { enrollments: [{ user_id: cast.learner.userId }] }));
      expect([undone, enrolled.status]).toEqual([{ removed: copies }, 404]);
      expect(await q('SELECT id FROM catalog.programs WHERE id = $1', [copy])).toEqual([]);
    });

    (testNatsUrl() ? it : it.skip)('undoes a step while a copied program is being deleted', async () => {
      const { cloneId, copy, copies } = await clonedProgram('undone-deleted-path');
      const [deleted, undone] = await meeting(copy, () => t.api.delete(`${PROGRAMS}/${copy}`), () => undo(cloneId));
      expect([deleted.status, undone]).toEqual([204, { removed: copies }]);
      expect(await q('SELECT id FROM catalog.programs WHERE id = $1', [copy])).toEqual([]);
    });
  });
});
