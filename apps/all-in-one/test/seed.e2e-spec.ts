import { execFile } from 'node:child_process';
import { startTestSystem, type TestSystem } from './test-system.js';

/** `npm run seed` (tools/seed.mjs) against a running system, twice: real data at once, nothing twice. */
const seed = (env: NodeJS.ProcessEnv) =>
  new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile(process.execPath, ['tools/seed.mjs'], { env: { PATH: process.env.PATH, ...env }, timeout: 90_000 }, (err, stdout, stderr) => {
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stdout, stderr });
    });
  });

describe('npm run seed', () => {
  let t: TestSystem;

  beforeAll(async () => {
    t = await startTestSystem();
  });
  afterAll(() => t?.close());

  it('fills the account with users, groups, courses, enrollments in every state, a live course with a full session and a waitlist, and a data dump; a second run adds nothing', async () => {
    const env = { LMS_URL: t.api.baseUrl, LMS_TOKEN: t.token };
    const first = await seed(env);
    expect([first.code, first.stderr]).toEqual([0, '']);
    expect(first.stdout).toMatch(/made 7 users, 2 groups, 3 courses, 4 enrollments, 1 live courses, 2 sessions, 5 registrations, 2 waitlisted/);
    expect(first.stdout).toMatch(/data dump complete/);

    const courses = (await t.api.get('/api/author/course_templates?search=Demo%3A&per_page=10')).body.course_templates as { id: string; title: string; enrollments_count: number }[];
    expect(courses.map((c) => [c.title, c.enrollments_count]).sort()).toEqual([
      ['Demo: Customer care basics', 3],
      ['Demo: Data privacy (draft)', 0],
      ['Demo: Workplace safety', 4],
    ]);
    const safety = courses.find((c) => c.title === 'Demo: Workplace safety')!;
    const states = (await t.api.get(`/api/author/course_templates/${safety.id}/enrollments`)).body.enrollments.map((e: { state: string; overdue: boolean }) => `${e.state}${e.overdue ? ' overdue' : ''}`);
    expect(states.sort()).toEqual(['active', 'assigned', 'assigned overdue', 'complete']);

    const [live] = (await t.api.get('/api/author/live_courses?search=Demo%3A')).body.live_courses;
    expect(live.title).toBe('Demo: Onboarding workshop');
    expect((await t.api.get(`/api/author/live_courses/${live.id}/learners`)).body.learners).toHaveLength(6);
    const sessions = (await t.api.get(`/api/author/live_courses/${live.id}/sessions`)).body.sessions as { location: string; seats: number; registered_count: number; present_count: number }[];
    expect(sessions.map((s) => [s.location, s.seats, s.registered_count, s.present_count]).sort()).toEqual([
      ['Room 1 (small)', 2, 2, 0],
      ['Room 2', 12, 3, 1],
    ]);

    const second = await seed(env);
    expect(second.code).toBe(0);
    expect(second.stdout).toMatch(/made 0 users, 0 groups, 0 courses, 0 enrollments, 0 live courses, 0 sessions, 0 registrations, 0 waitlisted/);
    expect((await t.api.get('/api/author/course_templates?search=Demo%3A&per_page=10')).body.course_templates).toHaveLength(3);
  }, 180_000);

  it('refuses to run without a token (exit 2)', async () => {
    const res = await seed({ LMS_URL: t.api.baseUrl });
    expect([res.code, res.stderr]).toEqual([2, expect.stringContaining('LMS_TOKEN')]);
  });
});
