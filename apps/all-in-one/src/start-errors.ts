import { EmbeddedPostgresError } from '@lms/embedded-postgres';

/**
 * A start that fails for a reason a person can fix (a data folder Postgres cannot use) ends with that
 * reason on one line and exit code 1, not a stack trace; anything else is thrown on.
 */
export async function orExitExplained<T>(work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (err) {
    if (!(err instanceof EmbeddedPostgresError)) throw err;
    process.stderr.write(`cannot start: ${err.message}\n`);
    process.exit(1);
  }
}
