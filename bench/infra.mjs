// Real Postgres and NATS for a bench run: a fresh database (dropped at the end) and NATS namespaces whose
// JetStream streams are deleted at the end, so a run leaves nothing behind on either server.
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import pg from 'pg';

export const uniqueName = (prefix) => `${prefix}_${randomBytes(4).toString('hex')}`;

/** One connection for `work`, closed however it ends. */
export async function withClient(url, work) {
  const client = new pg.Client({ connectionString: url, application_name: 'lms-bench' });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** Creates `lms_bench_<random>` on the server of `serverUrl`; `drop()` removes it even with connections left. */
export async function createBenchDatabase(serverUrl) {
  const name = uniqueName('lms_bench');
  await withClient(serverUrl, (client) => client.query(`CREATE DATABASE ${name}`));
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    name,
    url: url.toString(),
    drop: () => withClient(serverUrl, (client) => client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)),
  };
}

/** The id of the account the bootstrap token created (design §7), for the raw baseline's queries. */
/** The bootstrap account, its root sub-account and its administrator, which the seeds write rows for. */
export async function bootstrapOwner(client) {
  const { rows } = await client.query(
    `SELECT a.id AS account_id, s.id AS sub_account_id, u.id AS admin_id
       FROM identity.accounts a
       JOIN identity.sub_accounts s ON s.account_id = a.id AND s.is_root
       JOIN identity.users u ON u.account_id = a.id AND u.uid = 'admin'
      WHERE a.subdomain = 'default'`,
  );
  if (rows.length === 0) throw new Error('no bootstrap account to seed: the bootstrap did not run');
  return { accountId: rows[0].account_id, subAccountId: rows[0].sub_account_id, adminId: rows[0].admin_id };
}

export const bootstrapAccountId = (databaseUrl, subdomain = 'default') =>
  withClient(databaseUrl, async (client) => {
    const { rows } = await client.query('SELECT id FROM identity.accounts WHERE subdomain = $1', [subdomain]);
    if (rows.length === 0) throw new Error(`no account "${subdomain}": the bootstrap did not run`);
    return rows[0].id;
  });

/**
 * Waits until identity's outbox relay has published every event, so one phase's backlog (creates of the
 * previous phase, or of a previous topology) is not relayed during the next measurement.
 * @returns {Promise<number>} events still waiting when the wait gave up (0 when drained)
 */
export const waitOutboxDrained = (databaseUrl, timeoutMs = 30_000) =>
  withClient(databaseUrl, async (client) => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const { rows } = await client.query('SELECT count(*)::int AS n FROM identity.outbox WHERE published_at IS NULL');
      if (rows[0].n === 0 || Date.now() >= deadline) return rows[0].n;
      await sleep(250);
    }
  });

/** Deletes the JetStream streams a namespace's deployables created (`<NAMESPACE>_EVENTS`, ...). */
export async function deleteNamespaceStreams(natsUrl, namespaces) {
  const prefixes = namespaces.map((ns) => `${ns.toUpperCase().replace(/[^A-Z0-9_-]/g, '_')}_`);
  const nc = await connect({ servers: natsUrl, name: 'lms-bench-cleanup', timeout: 5_000 });
  const deleted = [];
  try {
    const jsm = await jetstreamManager(nc);
    const names = [];
    for await (const info of jsm.streams.list()) names.push(info.config.name);
    for (const name of names) {
      if (prefixes.some((prefix) => name.startsWith(prefix) || name === `OBJ_${prefix}FILES` || name === `OBJ_${prefix}UPLOADS`)) {
        await jsm.streams.delete(name);
        deleted.push(name);
      }
    }
  } finally {
    await nc.close();
  }
  return deleted;
}

/** `count` users in the bootstrap account (one INSERT … SELECT), for the users-list rows; answers how many exist now. */
export const seedUsers = (databaseUrl, count, subdomain = 'default') =>
  withClient(databaseUrl, async (client) => {
    const { rows } = await client.query('SELECT id FROM identity.accounts WHERE subdomain = $1', [subdomain]);
    await client.query(
      `INSERT INTO identity.users (account_id, uid, first_name, last_name, email)
       SELECT $1, 'bench-user-' || n, 'First' || n, 'Last' || n, 'bench' || n || '@example.com' FROM generate_series(1, $2) AS n
       ON CONFLICT DO NOTHING`,
      [rows[0].id, count],
    );
    // VACUUM as autovacuum would soon after a bulk load: it sets the visibility map that index-only scans use.
    await client.query('VACUUM ANALYZE identity.users');
    // Writes the load's dirty pages now: Postgres' background writer and checkpointer would otherwise do it
    // during the next measurements (the first read row after seeding ran at half speed, the raw one too).
    await client.query('CHECKPOINT');
    return (await client.query('SELECT count(*)::int AS n FROM identity.users WHERE account_id = $1', [rows[0].id])).rows[0].n;
  });
