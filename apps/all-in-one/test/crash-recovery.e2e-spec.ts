import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { USER_DELETED_EVENT, USER_DELETION_REQUESTED_EVENT } from '@lms/contracts';
import { ApiClient, embeddedSystemHome, type EmbeddedSystemHome, eventually, queryDatabase, uniqueName } from '@lms/testing';

// `npm start` as a user runs it (embedded Postgres, no NATS), killed and started again on its data folder:
// every acknowledged deletion must finish, none twice. Runs from the build that `npm test` makes first.
const built = existsSync('dist/apps/all-in-one/main.js');
const describeBuilt = built ? describe : describe.skip;

const DELETION_CONSUMER = 'identity-user-deletion';
const USERS = '/api/admin/users';

/** Runs `work` over `items`, `width` at a time. */
async function inParallel<T, R>(items: T[], width: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < items.length) {
        const i = next++;
        results[i] = await work(items[i]);
      }
    }),
  );
  return results;
}

describeBuilt('the embedded default (npm start) across a crash', () => {
  let home: EmbeddedSystemHome;
  let databaseUrl: string;
  const token = `bootstrap_${uniqueName('token')}`;
  const start = () => home.start();
  const gone = (proc: ChildProcess) => home.gone(proc);

  const query = <T>(text: string, values: unknown[] = []) => queryDatabase<T>(databaseUrl, text, values);

  async function createUsers(api: ApiClient, count: number, prefix: string): Promise<number[]> {
    return inParallel(Array.from({ length: count }, (_, i) => i), 8, async (i) => {
      const res = await api.post(USERS, { users: [{ uid: `${prefix}-${i}-${randomUUID().slice(0, 6)}` }] });
      if (res.status !== 200) throw new Error(`creating a user answered ${res.status}: ${res.text}`);
      return (res.body as { users: { id: number }[] }).users[0].id;
    });
  }

  async function deleteAsync(api: ApiClient, ids: number[]): Promise<void> {
    const statuses = await inParallel(ids, 16, async (id) => (await api.delete(`${USERS}/${id}?async=true`)).status);
    expect(statuses.filter((s) => s !== 204)).toEqual([]);
  }

  /** Every deletion finished, each requested and applied exactly once, nothing left in the event log. */
  async function expectFinishedOnce(ids: number[]): Promise<void> {
    const stranded = () => query<{ n: number }>('SELECT count(*)::int AS n FROM identity.users WHERE id = ANY($1) AND deleted_at IS NULL', [ids]);
    await eventually(async () => ((await stranded())[0].n === 0 ? true : undefined), 60_000, 250);

    // One request event per user in the outbox, and the log holds it once (a republish was de-duplicated).
    const perUser = async (sql: string, type: string) => query<{ user_id: number; n: number }>(sql, [type, ids]);
    const requested = await perUser(
      `SELECT (payload->'data'->>'user_id')::int AS user_id, count(*)::int AS n FROM identity.outbox
       WHERE type = $1 AND (payload->'data'->>'user_id')::int = ANY($2) GROUP BY 1`,
      USER_DELETION_REQUESTED_EVENT,
    );
    expect(requested.filter((r) => r.n !== 1)).toEqual([]);
    expect(requested).toHaveLength(ids.length);
    const logged = await perUser(
      `SELECT (payload::jsonb->'data'->>'user_id')::int AS user_id, count(*)::int AS n FROM event_log.events
       WHERE type = $1 AND (payload::jsonb->'data'->>'user_id')::int = ANY($2) GROUP BY 1`,
      USER_DELETION_REQUESTED_EVENT,
    );
    expect(logged.filter((r) => r.n !== 1)).toEqual([]);
    expect(logged).toHaveLength(ids.length);

    // The consumer's effect: one inbox row per request event, and one `identity.user.deleted` per user.
    const inbox = await query<{ n: number }>(
      `SELECT count(*)::int AS n FROM identity.inbox i JOIN identity.outbox o ON o.id = i.event_id
       WHERE i.consumer = $1 AND o.type = $2 AND (o.payload->'data'->>'user_id')::int = ANY($3)`,
      [DELETION_CONSUMER, USER_DELETION_REQUESTED_EVENT, ids],
    );
    expect(inbox[0].n).toBe(ids.length);
    const deleted = await perUser(
      `SELECT (payload->'data'->>'user_id')::int AS user_id, count(*)::int AS n FROM identity.outbox
       WHERE type = $1 AND (payload->'data'->>'user_id')::int = ANY($2) GROUP BY 1`,
      USER_DELETED_EVENT,
    );
    expect(deleted.filter((r) => r.n !== 1)).toEqual([]);
    expect(deleted).toHaveLength(ids.length);

    const left = await query<{ n: number }>(`SELECT count(*)::int AS n FROM event_log.deliveries WHERE durable = $1`, [DELETION_CONSUMER]);
    expect(left[0].n).toBe(0);
    expect(await query(`SELECT durable, error FROM event_log.dead_letters`)).toEqual([]);
  }

  beforeAll(async () => {
    home = await embeddedSystemHome({ token });
    databaseUrl = home.databaseUrl;
  });

  afterAll(async () => {
    await home?.remove();
  });

  it('finishes every acknowledged async deletion once after SIGKILL of the whole process group', async () => {
    const first = await start();
    const api = new ApiClient(home.baseUrl, token);
    const ids = await createUsers(api, 300, 'crash');
    await deleteAsync(api, ids);
    process.kill(-first.pid!, 'SIGKILL'); // right after the last 204: events sit in outboxes, the log and handlers
    await gone(first);

    const restartedAt = new Date();
    const second = await start();
    await expectFinishedOnce(ids);
    // The crash did cut work short: some deletions were finished only by the second start.
    const late = await query<{ n: number }>('SELECT count(*)::int AS n FROM identity.inbox WHERE consumer = $1 AND processed_at >= $2', [DELETION_CONSUMER, restartedAt]);
    expect(late[0].n).toBeGreaterThan(0);
    second.kill('SIGTERM');
    await gone(second);
  }, 240_000);

  it('starts again after SIGKILL of the all-in-one alone, stopping the embedded Postgres it left running, and finishes what it acknowledged', async () => {
    const first = await start();
    const api = new ApiClient(home.baseUrl, token);
    const ids = await createUsers(api, 100, 'orphan');
    await deleteAsync(api, ids);
    // The node process only (an OOM kill): its Postgres lives on, holding the data folder and the port.
    const exited = new Promise((resolve) => first.once('exit', resolve));
    first.kill('SIGKILL');
    await exited;
    const second = await start();
    await gone(first); // the left Postgres, the last of the first start's process group
    await expectFinishedOnce(ids);
    second.kill('SIGTERM');
    await gone(second);
  }, 240_000);

  it('keeps the events in flight at a graceful SIGTERM for the next start', async () => {
    const first = await start();
    const api = new ApiClient(home.baseUrl, token);
    const ids = await createUsers(api, 100, 'term');
    await deleteAsync(api, ids);
    const exited = new Promise<number | null>((resolve) => first.once('exit', (code) => resolve(code)));
    first.kill('SIGTERM');
    expect(await exited).toBe(0);
    await gone(first);

    const second = await start();
    await expectFinishedOnce(ids);
    second.kill('SIGTERM');
    await gone(second);
  }, 240_000);
});
