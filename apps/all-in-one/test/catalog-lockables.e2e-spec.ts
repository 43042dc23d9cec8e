import { LOCKABLES_DESCRIBE_SUBJECT, type RequestContext, type Role, type RpcReply } from '@lms/contracts';
import { createSecretKey } from 'node:crypto';
import { ContextSeal, NatsBus } from '@lms/platform';
import { TEST_CONTEXT_SIGNING_KEY, testNatsUrl, type TestUser } from '@lms/testing';
import { type CatalogFixture, startCatalogFixture, TASKS } from './catalog-fixture.js';

// Asked over a NATS connection of its own, as the locking service asks: services verify the caller context's seal
// on what comes over the network, and with real NATS the test system shares this key (see test-system.ts).
const describeWithNats = testNatsUrl() ? describe : describe.skip;

describeWithNats('catalog.lockables.describe (what the locking service asks catalog), over the real bus', () => {
  let f: CatalogFixture;
  const ctxOf = (user: TestUser, roles: Role[]): RequestContext => ({ requestId: 'lockables-e2e', accountId: user.accountId, subAccountId: null, userId: user.userId, roles });
  const seal = new ContextSeal(createSecretKey(Buffer.from(TEST_CONTEXT_SIGNING_KEY, 'utf8')), 60_000);
  let wire: NatsBus;
  const describeAs = async (ctx: RequestContext, body: unknown) =>
    (await wire.request(LOCKABLES_DESCRIBE_SUBJECT, seal.sign(LOCKABLES_DESCRIBE_SUBJECT, { ctx, params: {}, query: {}, body }), 5000)) as RpcReply;

  beforeAll(async () => {
    f = await startCatalogFixture('e2e-catalog-lockables');
    wire = await NatsBus.connect(testNatsUrl()!, { namespace: (f.t.system.bus as NatsBus).namespace, name: 'lockables-e2e' });
  });
  afterAll(async () => {
    await wire?.close();
    await f?.close();
  });

  it('answers whether a course template exists in the caller’s account and whether the caller may edit it', async () => {
    const course = await f.createCourse({ title: 'Lockable' }, f.author);
    const body = { lockable_type: 'CourseTemplate', lockable_id: Number(course.id) };
    expect(await describeAs(ctxOf(f.cast.author, ['author']), body)).toEqual({ ok: true, body: { exists: true, canEdit: true } });
    // Another author of the account is not an author of this course; an administrator edits everything.
    expect(await describeAs(ctxOf(f.otherAuthorUser, ['author']), body)).toEqual({ ok: true, body: { exists: true, canEdit: false } });
    expect(await describeAs(ctxOf(f.otherAuthorUser, ['admin']), body)).toEqual({ ok: true, body: { exists: true, canEdit: true } });
    expect(await describeAs(ctxOf(f.otherAuthorUser, ['learner']), body)).toEqual({ ok: true, body: { exists: true, canEdit: false } });
    expect(await describeAs(ctxOf(f.cast.stranger, ['admin']), body)).toEqual({ ok: true, body: { exists: false, canEdit: false } });
    expect(await describeAs(ctxOf(f.cast.author, ['author']), { lockable_type: 'CourseTemplate', lockable_id: 999999 })).toEqual({ ok: true, body: { exists: false, canEdit: false } });
  });

  it('refuses an unsigned question (401 CONTEXT_NOT_SIGNED), like every service request', async () => {
    const unsigned = (await wire.request(LOCKABLES_DESCRIBE_SUBJECT, { ctx: ctxOf(f.cast.author, ['admin']), params: {}, query: {}, body: { lockable_type: 'Task', lockable_id: 1 } }, 5000)) as RpcReply;
    expect(unsigned).toMatchObject({ ok: false, error: { status: 401, code: 'CONTEXT_NOT_SIGNED' } });
  });

  it('answers for tasks too, and refuses a malformed question with a 400', async () => {
    const task = (await f.author.post(TASKS, { tasks: [{ title: 'Lockable task' }] })).body.tasks[0];
    const body = { lockable_type: 'Task', lockable_id: Number(task.id) };
    expect(await describeAs(ctxOf(f.cast.author, ['author']), body)).toEqual({ ok: true, body: { exists: true, canEdit: true } });
    expect(await describeAs(ctxOf(f.otherAuthorUser, ['author']), body)).toEqual({ ok: true, body: { exists: true, canEdit: false } });
    expect(await describeAs(ctxOf(f.otherAuthorUser, ['learner']), body)).toEqual({ ok: true, body: { exists: true, canEdit: false } });
    const bad = await describeAs(ctxOf(f.cast.author, ['author']), { lockable_type: 'Slide', lockable_id: 1 });
    expect(bad).toMatchObject({ ok: false, error: { status: 400 } });
  });
});
