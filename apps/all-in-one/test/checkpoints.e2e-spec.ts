import { eventually, queryDatabase, type TestUser } from '@lms/testing';
import { TASKS } from './catalog-fixture.js';
import { type EnrollmentFixture, startEnrollmentFixture } from './enrollment-fixture.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- specs read arbitrary JSON
type Json = Record<string, any>;
const APPROVALS = '/api/author/approvals';
const UPLOAD_MAX_BYTES = 64 * 1024;

describe('checkpoints as learners do them, end to end', () => {
  let f: EnrollmentFixture;
  const task = async (fields: Json = {}): Promise<Json> => {
    const res = await f.author.post(TASKS, { tasks: [{ title: 'Shadow a shift', is_published: true, default_days_until_due: 10, ...fields }] });
    if (res.status !== 201) throw new Error(`creating a task answered ${res.status}: ${res.text}`);
    return res.body.tasks[0];
  };
  const enroll = async (taskId: string, learners: TestUser[]) => {
    const res = await f.author.post(`${TASKS}/${taskId}/enrollments`, { enrollments: learners.map((l) => ({ user_id: l.userId })) });
    expect(res.status).toBe(201);
    return res.body.enrollments as Json[];
  };
  const counts = async (taskId: string) => (await f.author.get(`${TASKS}/${taskId}`)).body.tasks[0].enrollment_counts;
  const as = (user: TestUser) => f.admin.as(user.token);

  beforeAll(async () => {
    f = await startEnrollmentFixture('e2e-checkpoints', { UPLOAD_MAX_BYTES: String(UPLOAD_MAX_BYTES) });
  });
  afterAll(async () => {
    await f?.close();
  });

  it('enrolls users (201) with the task\'s default due date, skips those enrolled already, lists them with approval and evidence', async () => {
    const t = await task();
    const [ann, bob] = [await f.newLearner(), await f.newLearner()];
    const [e] = await enroll(t.id, [ann]);
    expect(e).toMatchObject({ state: 'assigned', task_id: Number(t.id), approval: null, evidence: [], links: { learner: { id: ann.userId } } });
    expect(Date.parse(e.end_at) - Date.now()).toBeGreaterThan(9 * 86_400_000);
    const again = await f.author.post(`${TASKS}/${t.id}/enrollments`, { enrollments: [{ user_id: ann.userId }, { user_id: bob.userId, end_at: null }] });
    expect([again.status, again.body.enrollments.length, again.body.skipped]).toEqual([201, 1, [{ user_id: ann.userId, reason: 'already_enrolled', enrollment_id: e.id }]]);
    const list = await f.author.get(`${TASKS}/${t.id}/enrollments`);
    expect([list.status, list.body.enrollments.length, list.headers.get('x-total-count')]).toEqual([200, 2, '2']);
    expect((await f.author.get(`${TASKS}/${t.id}/enrollments?state=assigned`)).body.enrollments).toHaveLength(2);
    expect(await counts(t.id)).toEqual({ all: 2, overdue: 0, incomplete: 2, finished: 0 });
    // Refusals: unknown users, unpublished or unknown tasks, learners, other accounts.
    expect((await f.author.post(`${TASKS}/${t.id}/enrollments`, { enrollments: [{ user_id: 999_999 }] })).status).toBe(400);
    const draft = await task({ is_published: false });
    expect((await f.author.post(`${TASKS}/${draft.id}/enrollments`, { enrollments: [{ user_id: ann.userId }] })).body.code).toBe('TASK_NOT_PUBLISHED');
    expect((await f.author.get(`${TASKS}/999999/enrollments`)).status).toBe(404);
    expect((await f.stranger.get(`${TASKS}/${t.id}/enrollments`)).status).toBe(404);
    expect((await as(ann).get(`${TASKS}/${t.id}/enrollments`)).status).toBe(403);
  });

  it('goes enrolled → evidence → pending → rejected → pending → approved → complete, with counts right at each step', async () => {
    const approver = f.otherAuthorUser;
    const t = await task({ requires_approval: true, requires_evidence: true, default_approver_type: 'user', default_approver_id: approver.userId });
    const learner = await f.newLearner();
    const [e] = await enroll(t.id, [learner]);
    const mine = as(learner);
    const state = async () => (await f.author.get(`${TASKS}/${t.id}/enrollments`)).body.enrollments[0] as Json;

    const early = await mine.post(`/api/learner/tasks/${e.id}/complete`, {});
    expect([early.status, early.body.code]).toEqual([400, 'EVIDENCE_REQUIRED']);
    const evidence = await mine.post(`/api/learner/tasks/${e.id}/evidence`, { evidence: { text: 'Shadowed Grace on Tuesday' } });
    expect([evidence.status, evidence.body.evidence[0]]).toEqual([201, { id: expect.any(Number), text: 'Shadowed Grace on Tuesday', file_url: null, created_at: expect.any(String) }]);
    expect((await mine.post(`/api/learner/tasks/${e.id}/evidence`, { evidence: { text: '  ' } })).status).toBe(400);
    expect(await state()).toMatchObject({ state: 'active', approval: null, evidence: [expect.objectContaining({ text: 'Shadowed Grace on Tuesday' })] });

    const submitted = await mine.post(`/api/learner/tasks/${e.id}/complete`, {});
    expect([submitted.status, submitted.body.enrollments[0].state, submitted.body.enrollments[0].approval.state]).toEqual([200, 'active', 'incomplete']);
    expect((await mine.post(`/api/learner/tasks/${e.id}/complete`, {})).body.enrollments[0].approval.id).toBe(submitted.body.enrollments[0].approval.id);
    // The mobile task item shows the enrollment's approval as it is.
    expect((await mine.get(`/api/mobile/learner/tasks/${t.id}`)).body).toMatchObject({ enrollment: { id: e.id, state: 'active', approval: { id: submitted.body.enrollments[0].approval.id, state: 'incomplete' } } });
    expect(await counts(t.id)).toEqual({ all: 1, overdue: 0, incomplete: 1, finished: 0 });

    const pending = await as(approver).get(APPROVALS);
    const approval = (pending.body.approvals as Json[]).find((a) => a.enrollment_id === e.id)!;
    expect(approval).toMatchObject({ state: 'incomplete', task_id: Number(t.id), user_id: learner.userId, approver_id: null });
    // Waiting for a decision is `incomplete`, the state the spec saw; `pending`, its name until 2026-11-29, still filters.
    for (const filter of ['incomplete', 'pending']) expect((await as(approver).get(`${APPROVALS}?state=${filter}`)).body.approvals.map((a: Json) => a.id)).toContain(approval.id);
    // Not the approver (another author), nor the learner, nor another account.
    expect((await f.author.post(`${APPROVALS}/${approval.id}/approve`, {})).body.code).toBe('NOT_THE_APPROVER');
    expect((await f.author.get(APPROVALS)).body.approvals.some((a: Json) => a.id === approval.id)).toBe(false);
    expect((await f.stranger.post(`${APPROVALS}/${approval.id}/approve`, {})).status).toBe(404);

    const rejected = await as(approver).post(`${APPROVALS}/${approval.id}/reject`, { comment: 'Add the sign-off sheet' });
    expect([rejected.status, rejected.body.approvals[0]]).toEqual([200, expect.objectContaining({ state: 'rejected', approver_id: approver.userId, comment: 'Add the sign-off sheet' })]);
    expect((await as(approver).post(`${APPROVALS}/${approval.id}/approve`, {})).status).toBe(409);
    expect(await state()).toMatchObject({ state: 'active', approval: { state: 'rejected', comment: 'Add the sign-off sheet' } });

    const again = await mine.post(`/api/learner/tasks/${e.id}/complete`, {});
    const second = again.body.enrollments[0].approval;
    expect(second).toMatchObject({ state: 'incomplete' });
    expect(second.id).not.toBe(approval.id);
    const approved = await as(approver).post(`${APPROVALS}/${second.id}/approve`, { comment: 'Well done' });
    expect(approved.body.approvals[0]).toMatchObject({ state: 'approved', decided_at: expect.any(String) });
    expect(await state()).toMatchObject({ state: 'complete', approval: { state: 'approved' } });
    expect(await counts(t.id)).toEqual({ all: 1, overdue: 0, incomplete: 0, finished: 1 });
    // The same completion event as a course, once; the summary counts it.
    await eventually(async () => ((await f.admin.get(`/api/admin/users/${learner.userId}/summary`)).body.summary.all === 1 ? true : undefined));
    await eventually(async () => (f.events.some((ev) => ev.type === 'catalog.enrollment.completed' && (ev.data as Json).task_id === Number(t.id)) ? true : undefined));
    expect(f.events.filter((ev) => ev.type === 'catalog.enrollment.completed' && (ev.data as Json).enrollment_id === e.id)).toHaveLength(1);
    expect((await mine.post(`/api/learner/tasks/${e.id}/evidence`, { evidence: { text: 'late' } })).body.code).toBe('CHECKPOINT_COMPLETE');
  });

  it('completes at once without approval; the learner\'s manager decides manager-approved checkpoints; nobody decides their own', async () => {
    const simple = await task();
    const learner = await f.newLearner();
    const [e] = await enroll(simple.id, [learner]);
    expect((await as(learner).post(`/api/learner/tasks/${e.id}/complete`, {})).body.enrollments[0]).toMatchObject({ state: 'complete', approval: null });
    // Another learner's enrollment is not theirs to touch.
    const other = await f.newLearner();
    expect((await as(other).post(`/api/learner/tasks/${e.id}/complete`, {})).status).toBe(404);
    expect((await as(other).post(`/api/learner/tasks/${e.id}/evidence`, { evidence: { text: 'x' } })).status).toBe(404);

    const managed = await task({ requires_approval: true, default_approver_type: 'manager' });
    const manager = await f.t.factory.user(f.cast.accountId, ['author']);
    expect((await f.admin.patch(`/api/admin/users/${learner.userId}`, { user: { manager_id: manager.userId } })).status).toBe(200);
    const [m] = await enroll(managed.id, [learner]);
    const approval = (await as(learner).post(`/api/learner/tasks/${m.id}/complete`, {})).body.enrollments[0].approval;
    expect((await as(manager).get(APPROVALS)).body.approvals.map((a: Json) => a.id)).toContain(approval.id);
    expect((await f.otherAuthor.post(`${APPROVALS}/${approval.id}/approve`, {})).status).toBe(403);

    // An administrator who is the learner cannot approve their own.
    const adminLearner = await f.t.factory.user(f.cast.accountId, ['admin', 'learner']);
    const [own] = await enroll(managed.id, [adminLearner]);
    const ownApproval = (await as(adminLearner).post(`/api/learner/tasks/${own.id}/complete`, {})).body.enrollments[0].approval;
    expect((await as(adminLearner).post(`${APPROVALS}/${ownApproval.id}/approve`, {})).body.code).toBe('OWN_APPROVAL');
    expect((await f.admin.post(`${APPROVALS}/${ownApproval.id}/approve`, {})).status).toBe(200);
  });

  it('takes a file as evidence (multipart/form-data), served back at a signed URL; refuses what is not one file', async () => {
    const t = await task({ requires_evidence: true });
    const [learner, other] = [await f.newLearner(), await f.newLearner()];
    const [e] = await enroll(t.id, [learner]);
    const send = (user: TestUser, form: FormData | string, headers: Record<string, string> = {}) =>
      fetch(`${f.t.system.url}/api/learner/tasks/${e.id}/evidence`, { method: 'POST', headers: { authorization: `Bearer ${user.token}`, ...headers }, body: form });
    const form = (parts: Record<string, string | Blob>, fileName = 'shift notes.pdf') => {
      const data = new FormData();
      for (const [name, value] of Object.entries(parts)) {
        if (typeof value === 'string') data.append(name, value);
        else data.append(name, value, fileName);
      }
      return data;
    };
    const bytes = Buffer.from(Array.from({ length: 5_000 }, (_, i) => i % 251));

    const res = await send(learner, form({ text: 'Signed by the shift lead', file: new Blob([bytes], { type: 'application/pdf' }) }));
    const body = (await res.json()) as Json;
    if (res.status !== 201) throw new Error(JSON.stringify(body));
    expect([res.status, body.evidence[0]]).toEqual([201, { id: expect.any(Number), text: 'Signed by the shift lead', file_url: expect.stringMatching(/^\/files\/evidence\//), created_at: expect.any(String) }]);
    const file = await fetch(`${f.t.system.url}${body.evidence[0].file_url}`);
    expect(file.status).toBe(200);
    expect(Buffer.from(await file.arrayBuffer()).equals(bytes)).toBe(true);
    expect(file.headers.get('content-disposition')).toContain('shift notes.pdf');
    // The author sees it on the enrollment, at a fresh URL; the evidence counts for completion.
    const listed = (await f.author.get(`${TASKS}/${t.id}/enrollments`)).body.enrollments[0] as Json;
    expect(listed.evidence).toEqual([expect.objectContaining({ text: 'Signed by the shift lead', file_url: expect.stringMatching(/^\/files\/evidence\//) })]);
    expect((await as(learner).post(`/api/learner/tasks/${e.id}/complete`, {})).body.enrollments[0].state).toBe('complete');

    // Refused, and nothing recorded: another learner's enrollment, too large, no file, two files, unknown fields, no boundary.
    const [next] = await enroll((await task()).id, [learner]);
    const to = (id: string) => (user: TestUser, data: FormData | string, headers: Record<string, string> = {}) =>
      fetch(`${f.t.system.url}/api/learner/tasks/${id}/evidence`, { method: 'POST', headers: { authorization: `Bearer ${user.token}`, ...headers }, body: data });
    const small = () => new Blob([Buffer.from('ok')], { type: 'text/plain' });
    expect((await to(next.id)(other, form({ file: small() }))).status).toBe(404);
    expect((await to(next.id)(learner, form({ file: new Blob([Buffer.alloc(UPLOAD_MAX_BYTES + 1)]) }))).status).toBe(413);
    expect(((await (await to(next.id)(learner, form({ text: 'no file' }))).json()) as Json).code).toBe('MULTIPART_INVALID');
    const two = form({ file: small() });
    two.append('again', small(), 'b.txt');
    expect((await to(next.id)(learner, two)).status).toBe(400);
    expect((await to(next.id)(learner, form({ file: small(), note: 'x' }))).status).toBe(400);
    expect((await to(next.id)(learner, 'x', { 'content-type': 'multipart/form-data' })).status).toBe(400);
    const zip = await to(next.id)(learner, 'x', { 'content-type': 'application/zip' });
    expect([zip.status, ((await zip.json()) as Json).code]).toEqual([415, 'UNSUPPORTED_MEDIA_TYPE']);
    expect((await f.author.get(`${TASKS}/${next.task_id}/enrollments`)).body.enrollments[0].evidence).toEqual([]);
    // JSON evidence still works on the same path.
    expect((await as(learner).post(`/api/learner/tasks/${next.id}/evidence`, { evidence: { text: 'as JSON' } })).status).toBe(201);
  });

  it('leaves nothing to decide once the checkpoint completed without its approval (requires_approval turned off): 409 APPROVAL_NOT_NEEDED, and it leaves the approvals list', async () => {
    const approver = f.otherAuthorUser;
    const t = await task({ requires_approval: true, default_approver_type: 'user', default_approver_id: approver.userId });
    const learner = await f.newLearner();
    const [e] = await enroll(t.id, [learner]);
    const approval = (await as(learner).post(`/api/learner/tasks/${e.id}/complete`, {})).body.enrollments[0].approval;
    expect((await as(approver).get(APPROVALS)).body.approvals.map((a: Json) => a.id)).toContain(approval.id);
    expect((await f.author.patch(`${TASKS}/${t.id}`, { task: { requires_approval: false } })).status).toBe(200);
    expect((await as(learner).post(`/api/learner/tasks/${e.id}/complete`, {})).body.enrollments[0].state).toBe('complete');

    for (const [api, decision] of [[as(approver), 'approve'], [as(approver), 'reject'], [f.admin, 'reject']] as const) {
      const res = await api.post(`${APPROVALS}/${approval.id}/${decision}`, { comment: 'Too late' });
      expect([decision, res.status, res.body.code]).toEqual([decision, 409, 'APPROVAL_NOT_NEEDED']);
    }
    for (const api of [as(approver), f.admin]) expect((await api.get(APPROVALS)).body.approvals.map((a: Json) => a.id)).not.toContain(approval.id);
    // The submission was never decided, and the completion stands.
    const [record] = (await f.author.get(`${TASKS}/${t.id}/enrollments`)).body.enrollments;
    expect(record).toMatchObject({ state: 'complete', approval: { id: approval.id, state: 'incomplete', approver_id: null, decided_at: null } });
  });

  it('decides an approval once under 20 concurrent decisions', async () => {
    const t = await task({ requires_approval: true });
    const learner = await f.newLearner();
    const [e] = await enroll(t.id, [learner]);
    const approval = (await as(learner).post(`/api/learner/tasks/${e.id}/complete`, {})).body.enrollments[0].approval;
    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => f.admin.post(`${APPROVALS}/${approval.id}/${i % 2 ? 'approve' : 'reject'}`, {})));
    expect(answers.map((a) => a.status).sort()).toEqual([200, ...new Array(19).fill(409)]);
    expect((await f.admin.get(`${APPROVALS}?state=${answers.find((a) => a.status === 200)!.body.approvals[0].state}`)).body.approvals.some((a: Json) => a.id === approval.id)).toBe(true);
  });

  it("withdraws a deleted task's open enrollments (task_deleted): the learner can no longer see or complete them, nor an approval complete one; completions stay", async () => {
    const approver = f.otherAuthorUser;
    const t = await task({ title: 'Going away', open_enrollment: true, requires_approval: true, default_approver_type: 'user', default_approver_id: approver.userId });
    const [done, waiting, idle] = [await f.newLearner(), await f.newLearner(), await f.newLearner()];
    const enrolled = await enroll(t.id, [done, waiting, idle]);
    const enrollmentOf = (user: TestUser): number => enrolled.find((e) => e.links.learner.id === user.userId)!.id;
    const doneApproval = (await as(done).post(`/api/learner/tasks/${enrollmentOf(done)}/complete`, {})).body.enrollments[0].approval.id;
    expect((await as(approver).post(`${APPROVALS}/${doneApproval}/approve`, {})).status).toBe(200);
    await f.summaryOnce(done.userId, 1);
    const pending = (await as(waiting).post(`/api/learner/tasks/${enrollmentOf(waiting)}/complete`, {})).body.enrollments[0].approval.id;

    expect((await f.author.delete(`${TASKS}/${t.id}`)).status).toBe(204);
    const rows = await queryDatabase<{ id: number; state: string; removal_reason: string | null; deleted: boolean }>(
      f.t.db.url, 'SELECT id, state, removal_reason, deleted_at IS NOT NULL AS deleted FROM catalog.enrollments WHERE enrollable_type = $1 AND enrollable_id = $2 ORDER BY id', ['Task', Number(t.id)]);
    expect(rows.map((r) => [r.id, r.state, r.removal_reason, r.deleted])).toEqual([
      [enrollmentOf(done), 'complete', null, false],
      [enrollmentOf(waiting), 'active', 'task_deleted', true],
      [enrollmentOf(idle), 'assigned', 'task_deleted', true],
    ]);
    await f.eventOf('catalog.enrollment.removed', (d) => d.id === enrollmentOf(idle) && d.removal_reason === 'task_deleted');

    // The open ones are gone for their learners: not listed, not found, not completable; the approval waits on nothing.
    for (const user of [waiting, idle]) {
      const id = enrollmentOf(user);
      expect((await as(user).get('/api/learner/learning_items')).body.learning_items.map((i: Json) => i.id)).not.toContain(id);
      expect((await as(user).get(`/api/learner/learning_items/${id}`)).status).toBe(404);
      expect((await as(user).post(`/api/learner/tasks/${id}/complete`, {})).status).toBe(404);
      expect((await as(user).post(`/api/learner/tasks/${id}/evidence`, { evidence: { text: 'late' } })).status).toBe(404);
    }
    const late = await as(approver).post(`${APPROVALS}/${pending}/approve`, {});
    expect([late.status, late.body.code]).toEqual([404, 'APPROVAL_NOT_FOUND']);
    expect((await as(idle).get(`/api/learner/open_tasks/${t.id}/enrollment`)).status).toBe(404);
    expect((await as(idle).post(`/api/learner/open_tasks/${t.id}/enrollment`)).status).toBe(404);
    // Nobody completed anything since: the completion made before the deletion is the only one counted.
    expect((await f.admin.get(`/api/admin/users/${idle.userId}/summary`)).body.summary.all).toBe(0);
    expect((await f.admin.get(`/api/admin/users/${waiting.userId}/summary`)).body.summary.all).toBe(0);
    expect((await f.admin.get(`/api/admin/users/${done.userId}/summary`)).body.summary.all).toBe(1);
    expect((await as(done).get(`/api/learner/learning_items/${enrollmentOf(done)}`)).body.learning_items[0]).toMatchObject({ type: 'Task', state: 'complete' });
  });

  it('withdraws open checkpoint enrollments of a deleted user', async () => {
    const t = await task();
    const learner = await f.newLearner();
    await enroll(t.id, [learner]);
    expect((await f.admin.delete(`/api/admin/users/${learner.userId}`)).status).toBe(204);
    await eventually(async () => ((await counts(t.id)).all === 0 ? true : undefined));
    expect((await f.author.get(`${TASKS}/${t.id}/enrollments?state=removed`)).body.enrollments[0]).toMatchObject({ removal_reason: 'user_deleted' });
  });
});
