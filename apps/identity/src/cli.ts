import { parseArgs } from 'node:util';
import { ConfigError, DomainError, loadConfig, openDatabase } from '@lms/platform';
import { createAccount } from './accounts/create-account.js';
import { IDENTITY_ENTITIES, IDENTITY_MIGRATIONS } from './identity.module.js';

/**
 * Operator commands against the identity database (`npm run cli -- <command> ...`).
 * Exit codes: 0 done, 1 refused (subdomain taken) or failed, 2 usage (bad arguments, invalid input, no DATABASE_URL).
 */
const USAGE = `usage: cli accounts:create --subdomain <label> --name <display name>

  Creates an account, its root sub-account and its administrator (uid "admin"),
  and prints the administrator's API token (shown once). Uses DATABASE_URL; unset,
  the embedded Postgres under DATA_DIR (the running npm start's, or started for
  the command when npm start is not running).`;

class UsageError extends Error {}

async function accountsCreate(args: string[]): Promise<void> {
  const { values } = parseArgs({ args, options: { subdomain: { type: 'string' }, name: { type: 'string' } }, strict: true, allowPositionals: false });
  if (values.subdomain === undefined || values.name === undefined) throw new UsageError('accounts:create needs --subdomain and --name');
  const database = await databaseOf(process.env);
  // Opening migrates the identity schema first, so the command works on a fresh database too.
  const db = await openDatabase({ url: database.url, schema: 'identity', entities: IDENTITY_ENTITIES, migrations: IDENTITY_MIGRATIONS, poolSize: 2 }).catch(async (err: unknown) => {
    await database.stop();
    throw err;
  });
  try {
    const created = await createAccount(db, { subdomain: values.subdomain, name: values.name, tokenName: 'cli accounts:create' });
    // key=value lines: readable, and easy for a script to pick the token from.
    process.stdout.write(
      [`account_id=${created.account.id}`, `subdomain=${created.account.subdomain}`, `admin_uid=${created.admin.uid}`, `token=${created.token}`].join('\n') + '\n',
    );
  } finally {
    await db.close();
    await database.stop();
  }
}

/**
 * DATABASE_URL's database, or the embedded one `npm start` uses (docs: the first hour works in the
 * default mode too). Says on stderr which one it used; stdout stays the command's answer.
 */
async function databaseOf(env: NodeJS.ProcessEnv): Promise<{ url: string; stop(): Promise<void> }> {
  let config;
  try {
    config = loadConfig(env);
  } catch (err) {
    if (err instanceof ConfigError) throw new UsageError(err.message);
    throw err;
  }
  if (config.databaseUrl) {
    process.stderr.write(`database: DATABASE_URL (${new URL(config.databaseUrl).host})\n`);
    return { url: config.databaseUrl, stop: async () => undefined };
  }
  // Loaded only here: deployments with DATABASE_URL never need the embedded Postgres binaries.
  const { attachEmbeddedPostgres, embeddedPostgresDir } = await import('@lms/embedded-postgres');
  const dir = embeddedPostgresDir(config.dataDir);
  const quiet = { debug: () => undefined, info: () => undefined, warn: () => undefined };
  const embedded = await attachEmbeddedPostgres(dir, config.embeddedPostgresPort, quiet);
  process.stderr.write(`database: embedded Postgres in ${dir} (${embedded.running ? 'the running server' : 'started for this command'})\n`);
  return embedded;
}

const COMMANDS: Record<string, (args: string[]) => Promise<void>> = { 'accounts:create': accountsCreate };

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  const run = command === undefined ? undefined : COMMANDS[command];
  try {
    if (!run) throw new UsageError(command === undefined ? 'no command given' : `unknown command "${command}"`);
    await run(rest);
    return 0;
  } catch (err) {
    if (err instanceof UsageError || (err instanceof TypeError && 'code' in err && String(err.code).startsWith('ERR_PARSE_ARGS'))) {
      process.stderr.write(`error: ${err.message}\n\n${USAGE}\n`);
      return 2;
    }
    if (err instanceof DomainError) {
      process.stderr.write(`error: ${err.detail ?? err.title}\n`);
      return err.status === 400 ? 2 : 1;
    }
    process.stderr.write(`error: ${err instanceof Error ? err.message : String(err)}\n`);
    return 1;
  }
}

process.exitCode = await main(process.argv.slice(2));
