import { COURSES, type CatalogFixture, courseRequest, startCatalogFixture } from './catalog-fixture.js';

const ids = (body: { course_templates: { id: string }[] }) => body.course_templates.map((c) => c.id);

describe('course templates, end to end (gateway → NATS → catalog ⇄ identity → Postgres)', () => {
  let f: CatalogFixture;

  beforeAll(async () => {
    f = await startCatalogFixture('e2e-course-templates');
  });
  afterAll(async () => {
    await f?.close();
  });

  describe('create', () => {
    it('creates from an array (201), answers every spec field with its type, and makes the creator the first author', async () => {
      const res = await f.author.post(COURSES, {
        course_templates: [courseRequest({ title: 'Safety 101', description: 'Basics', tags: ['safety'], has_certificate: true, passing_threshold: 80 })],
      });
      expect(res.status).toBe(201);
      const [course] = res.body.course_templates;
      expect(res.body.meta).toEqual({});
      expect(course).toMatchObject({
        id: expect.stringMatching(/^\d+$/),
        estimated_time: null,
        passing_threshold: 80,
        max_quiz_attempts: null,
        continuing_education_credits: null,
        title: 'Safety 101',
        description: 'Basics',
        is_published: false,
        has_unpublished_changes: true,
        default_days_until_due: 14,
        has_certificate: true,
        external_status: 'inapplicable',
        external_status_message: '',
        course_type: 'native',
        open_book: false,
        enrollments_count: 0,
        attachments_count: 0,
        third_party_course_id: null,
        external_course_id: null,
        next_section_due: null,
        has_shared_enrollments: false,
        tags: ['safety'],
        matching_tags: [],
        retain: false,
        retain_intervals: [],
        show_correct_response: false,
        links: { author: `/api/admin/users/${f.cast.author.userId}` },
        locked_attributes_enabled: false,
        locked_attributes: [],
        derived_locked_attributes: [],
        enrollment_counts: { all: 0, required: 0, optional: 0, finished: 0, not_started: 0, overdue: 0, in_progress: 0 },
        program_ids: [],
        sub_account: { id: expect.stringMatching(/^\d+$/), name: 'default', is_root: true, not_current: false, sub_accounts_exist: false },
      });
      expect(new Date(course.created_at).toISOString()).toBe(course.created_at);
      expect(course).not.toHaveProperty('scorm');
      const authors = await f.author.get(`${COURSES}/${course.id}/authors`);
      expect(authors.status).toBe(200);
      expect(authors.body.authors).toEqual([expect.objectContaining({ id: String(f.cast.author.userId), uid: f.cast.author.uid, deleted_at: null })]);
      await f.eventOf('catalog.course_template.created', (d) => d.id === Number(course.id));
    });

    it.each([
      ['title missing', { title: undefined }, 'course_templates[1].title'],
      ['blank title', { title: '  ' }, 'course_templates[1].title'],
      ['is_published missing', { is_published: undefined }, 'course_templates[1].is_published'],
      ['has_unpublished_changes missing', { has_unpublished_changes: undefined }, 'course_templates[1].has_unpublished_changes'],
      ['default_days_until_due missing', { default_days_until_due: undefined }, 'course_templates[1].default_days_until_due'],
      ['course_type missing', { course_type: undefined }, 'course_templates[1].course_type'],
      ['unknown course_type', { course_type: 'video' }, 'course_templates[1].course_type'],
      ['passing_threshold over 100', { passing_threshold: 101 }, 'course_templates[1].passing_threshold'],
      ['unknown field', { owner_id: 1 }, 'course_templates[1].owner_id'],
      ['unknown locked attribute', { locked_attributes: ['salary'] }, 'course_templates[1].locked_attributes'],
      ['bad date', { default_due_on_date: '2025-02-30' }, 'course_templates[1].default_due_on_date'],
      ['date in year 0000', { default_due_on_date: '0000-01-01' }, 'course_templates[1].default_due_on_date'],
    ])('refuses %s with a 400 naming the field, and creates nothing', async (_, fields, field) => {
      const before = await f.admin.get(`${COURSES}?per_page=1`);
      const res = await f.admin.post(COURSES, { course_templates: [courseRequest({ title: 'ok' }), courseRequest(fields)] });
      expect(res.status).toBe(400);
      expect(res.headers.get('content-type')).toContain('application/problem+json');
      expect(res.body.errors.map((e: { field: string }) => e.field)).toContain(field);
      const after = await f.admin.get(`${COURSES}?per_page=1`);
      expect(after.headers.get('x-total-count')).toBe(before.headers.get('x-total-count'));
    });

    it('refuses U+0000 in text (Postgres cannot store it) with a 400, never a 500', async () => {
      expect((await f.admin.post(COURSES, { course_templates: [courseRequest({ title: 'a\u0000b' })] })).status).toBe(400);
      expect((await f.admin.post(COURSES, { course_templates: [courseRequest({ tags: ['x\u0000'] })] })).status).toBe(400);
      expect((await f.admin.get(`${COURSES}?search=a%00b`)).status).toBe(400);
    });

    it('refuses a body that is not an array of course templates', async () => {
      expect((await f.admin.post(COURSES, { course_templates: [] })).status).toBe(400);
      expect((await f.admin.post(COURSES, { course_template: courseRequest() })).status).toBe(400);
      expect((await f.admin.post(COURSES, { course_templates: 'x' })).status).toBe(400);
    });

    it('publishes at once when created with is_published true', async () => {
      const course = await f.createCourse({ title: 'Born published', is_published: true });
      expect(course).toMatchObject({ is_published: true, has_unpublished_changes: false });
    });

    it('keeps a SCORM course external: a scorm block on show, external_status not inapplicable', async () => {
      const course = await f.createCourse({ title: 'Scorm one', course_type: 'scorm' });
      const shown = (await f.admin.get(`${COURSES}/${course.id}`)).body.course_templates[0];
      expect(shown.external_status).toBe('pending');
      expect(shown.scorm).toEqual({
        registration_instancing_option: expect.any(String), player_launch_type: expect.any(String), sco_launch_type: expect.any(String), score_rollup_mode: expect.any(String),
        scorm_version: null, launch_sco: null, package_title: null, package_uploaded_at: null,
      });
    });

    it('is refused to learners (403) and to callers without a token (401)', async () => {
      expect((await f.learner.post(COURSES, { course_templates: [courseRequest()] })).status).toBe(403);
      expect((await f.admin.as(undefined).post(COURSES, { course_templates: [courseRequest()] })).status).toBe(401);
    });
  });

  describe('show', () => {
    it('answers one record with enrollment_counts, 304 on a matching ETag, and deleted_at for an archived course', async () => {
      const course = await f.createCourse({ title: 'Shown' });
      const res = await f.author.get(`${COURSES}/${course.id}`);
      expect(res.status).toBe(200);
      expect(res.body.course_templates).toHaveLength(1);
      expect(res.body.course_templates[0].enrollment_counts).toEqual({ all: 0, required: 0, optional: 0, finished: 0, not_started: 0, overdue: 0, in_progress: 0 });
      expect(res.body.course_templates[0]).not.toHaveProperty('program_ids');
      const again = await f.author.get(`${COURSES}/${course.id}`, { 'if-none-match': res.headers.get('etag') as string });
      expect(again.status).toBe(304);
      const withPrograms = await f.author.get(`${COURSES}/${course.id}?includes[]=programs&includes[]=has_shared_enrollments&includes[]=next_section_due&sort=title`);
      expect(withPrograms.body.course_templates[0].program_ids).toEqual([]);
      expect((await f.author.get(`${COURSES}/${course.id}?includes[]=with_content`)).body.course_templates[0].slides).toEqual([]);
      expect((await f.author.get(`${COURSES}/${course.id}?includes[]=bogus`)).status).toBe(400);
      expect((await f.admin.delete(`${COURSES}/${course.id}`)).status).toBe(204);
      const archived = await f.author.get(`${COURSES}/${course.id}`);
      expect(archived.body.course_templates[0].deleted_at).toEqual(expect.any(String));
    });

    it('answers 404 for an unknown id and for another account’s course, 400 for a bad id', async () => {
      const course = await f.createCourse({ title: 'Mine' });
      expect((await f.admin.get(`${COURSES}/999999`)).status).toBe(404);
      expect((await f.stranger.get(`${COURSES}/${course.id}`)).status).toBe(404);
      expect((await f.stranger.patch(`${COURSES}/${course.id}`, { course_template: { title: 'x' } })).status).toBe(404);
      expect((await f.stranger.delete(`${COURSES}/${course.id}`)).status).toBe(404);
      expect((await f.stranger.post(`${COURSES}/${course.id}/publish`, {})).status).toBe(404);
      expect((await f.admin.get(`${COURSES}/abc`)).status).toBe(400);
      expect((await f.admin.get(`${COURSES}/99999999999`)).status).toBe(400);
    });
  });

  describe('update', () => {
    it('changes fields with PATCH and PUT under the singular key, leaving unpublished changes', async () => {
      const course = await f.createCourse({ title: 'Before', is_published: true }, f.author);
      const patched = await f.author.patch(`${COURSES}/${course.id}`, { course_template: { title: 'After', open_book: true } });
      expect(patched.status).toBe(200);
      expect(patched.body.course_templates[0]).toMatchObject({ title: 'After', open_book: true, has_unpublished_changes: true, is_published: true, program_ids: [] });
      const put = await f.author.put(`${COURSES}/${course.id}`, { course_template: { description: null, locked_attributes_enabled: true, locked_attributes: ['title'] } });
      expect(put.status).toBe(200);
      expect(put.body.course_templates[0]).toMatchObject({ title: 'After', description: null, locked_attributes: ['title'], derived_locked_attributes: ['title'] });
      await f.eventOf('catalog.course_template.updated', (d) => d.id === Number(course.id) && d.title === 'After');
    });

    it('refuses bad input (400) and changes nothing', async () => {
      const course = await f.createCourse({ title: 'Stable' });
      for (const body of [{ course_templates: [{ title: 'x' }] }, { course_template: { title: null } }, { course_template: { course_type: 'x' } }, { course_template: { id: 5 } }, {}]) {
        expect((await f.admin.patch(`${COURSES}/${course.id}`, body)).status).toBe(400);
      }
      expect((await f.admin.get(`${COURSES}/${course.id}`)).body.course_templates[0].title).toBe('Stable');
    });

    it('lets the course’s authors and administrators edit, refuses other authors (403, they still read it), and is 400 when archived', async () => {
      const course = await f.createCourse({ title: 'Guarded' }, f.author);
      const refused = await f.otherAuthor.patch(`${COURSES}/${course.id}`, { course_template: { title: 'Hijack' } });
      expect([refused.status, refused.body.code]).toEqual([403, 'NOT_AN_AUTHOR']);
      expect((await f.otherAuthor.post(`${COURSES}/${course.id}/publish`, {})).status).toBe(403);
      expect((await f.otherAuthor.delete(`${COURSES}/${course.id}`)).status).toBe(403);
      expect((await f.otherAuthor.get(`${COURSES}/${course.id}`)).body.course_templates[0].title).toBe('Guarded');
      expect((await f.admin.patch(`${COURSES}/${course.id}`, { course_template: { title: 'By admin' } })).status).toBe(200);
      expect((await f.author.post(`${COURSES}/${course.id}/authors`, { users: [{ user_id: f.otherAuthorUser.userId }] })).status).toBe(201);
      expect((await f.otherAuthor.patch(`${COURSES}/${course.id}`, { course_template: { title: 'Shared' } })).status).toBe(200);
      expect((await f.author.delete(`${COURSES}/${course.id}`)).status).toBe(204);
      const archived = await f.author.patch(`${COURSES}/${course.id}`, { course_template: { title: 'Late' } });
      expect(archived.status).toBe(400);
      expect(archived.body.code).toBe('COURSE_TEMPLATE_ARCHIVED');
    });

    it('unpublishes with is_published false and refuses is_published true for a course never published', async () => {
      const published = await f.createCourse({ title: 'Visible', is_published: true });
      const hidden = await f.admin.patch(`${COURSES}/${published.id}`, { course_template: { is_published: false } });
      expect(hidden.body.course_templates[0].is_published).toBe(false);
      expect((await f.admin.patch(`${COURSES}/${published.id}`, { course_template: { is_published: true } })).body.course_templates[0].is_published).toBe(true);
      const draft = await f.createCourse({ title: 'Draft' });
      expect((await f.admin.patch(`${COURSES}/${draft.id}`, { course_template: { is_published: true } })).status).toBe(400);
    });
  });

  describe('delete and restore', () => {
    it('archives (204), restores (200 with the record), and answers 204 when there is nothing to restore', async () => {
      const course = await f.createCourse({ title: 'Cycle' });
      expect((await f.admin.delete(`${COURSES}/${course.id}`)).status).toBe(204);
      expect(ids((await f.admin.get(`${COURSES}?per_page=1000`)).body)).not.toContain(course.id);
      const restored = await f.admin.post(`${COURSES}/${course.id}/restore`);
      expect(restored.status).toBe(200);
      expect(restored.body.course_templates[0]).toMatchObject({ id: course.id, deleted_at: null });
      const again = await f.admin.post(`${COURSES}/${course.id}/restore`);
      expect(again.status).toBe(204);
      expect(again.text).toBe('');
      expect((await f.admin.post(`${COURSES}/999999/restore`)).status).toBe(404);
      await f.eventOf('catalog.course_template.deleted', (d) => d.id === Number(course.id));
      await f.eventOf('catalog.course_template.restored', (d) => d.id === Number(course.id));
    });
  });

  describe('sync', () => {
    it('needs the support role, and no other: 204 for SCORM, 400 for another course type, 403 without the role', async () => {
      const scorm = await f.createCourse({ title: 'Scorm sync', course_type: 'scorm' });
      const native = await f.createCourse({ title: 'Native sync' });
      expect((await f.support.post(`${COURSES}/${scorm.id}/sync`)).status).toBe(204);
      // "Requires support-user permission": a support user who is no author, and an administrator who is also support.
      for (const roles of [['support'], ['admin', 'support']] as const) {
        const user = await f.t.factory.user(f.cast.accountId, [...roles]);
        expect([roles, (await f.admin.as(user.token).post(`${COURSES}/${scorm.id}/sync`)).status]).toEqual([roles, 204]);
      }
      const refused = await f.admin.post(`${COURSES}/${scorm.id}/sync`);
      expect([refused.status, refused.body.detail]).toEqual([403, expect.stringContaining('role support')]);
      const notScorm = await f.support.post(`${COURSES}/${native.id}/sync`);
      expect(notScorm.status).toBe(400);
      expect(notScorm.body.code).toBe('COURSE_TEMPLATE_NOT_SCORM');
      expect((await f.admin.post(`${COURSES}/${scorm.id}/sync`)).status).toBe(403);
      expect((await f.author.post(`${COURSES}/${scorm.id}/sync`)).status).toBe(403);
      expect((await f.support.post(`${COURSES}/999999/sync`)).status).toBe(404);
      await f.eventOf('catalog.course_template.sync_requested', (d) => d.id === Number(scorm.id));
    });
  });

  describe('publish', () => {
    it('publishes drafts (200), clears has_unpublished_changes, and carries the notification settings in the event', async () => {
      const course = await f.createCourse({ title: 'To publish' }, f.author);
      const res = await f.author.post(`${COURSES}/${course.id}/publish`, { notify_filter: 'in_progress', notify_message: 'New version', re_enroll: true });
      expect(res.status).toBe(200);
      expect(res.body.course_templates[0]).toMatchObject({ id: course.id, is_published: true, has_unpublished_changes: false });
      const event = await f.eventOf('catalog.course_template.published', (d) => d.id === Number(course.id));
      expect(event.data).toMatchObject({ notify_filter: 'in_progress', notify_message: 'New version', re_enroll: true, published_by: f.cast.author.userId });
      expect((await f.author.post(`${COURSES}/${course.id}/publish`)).status).toBe(200);
      // Every parameter is optional, so clients that send no body at all publish too.
      expect((await f.author.request('POST', `${COURSES}/${course.id}/publish`)).status).toBe(200);
    });

    it('validates notify_message (≤ 1000 characters), notify_filter and re_enroll', async () => {
      const course = await f.createCourse({ title: 'Publish checks' });
      expect((await f.admin.post(`${COURSES}/${course.id}/publish`, { notify_message: 'x'.repeat(1001) })).status).toBe(400);
      expect((await f.admin.post(`${COURSES}/${course.id}/publish`, { notify_filter: 'everyone' })).status).toBe(400);
      expect((await f.admin.post(`${COURSES}/${course.id}/publish`, { re_enroll: 'yes' })).status).toBe(400);
      expect((await f.admin.get(`${COURSES}/${course.id}`)).body.course_templates[0].is_published).toBe(false);
      expect((await f.admin.post(`${COURSES}/${course.id}/publish`, { notify_message: 'x'.repeat(1000), notify_filter: 'all' })).status).toBe(200);
    });

    it('is a 400 for an archived course', async () => {
      const course = await f.createCourse({ title: 'Archived publish' });
      await f.admin.delete(`${COURSES}/${course.id}`);
      const res = await f.admin.post(`${COURSES}/${course.id}/publish`, {});
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('COURSE_TEMPLATE_ARCHIVED');
    });
  });
});
