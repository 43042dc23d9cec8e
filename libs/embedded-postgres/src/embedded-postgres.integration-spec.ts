import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EmbeddedPostgresError, startEmbeddedPostgres } from './embedded-postgres.js';

const quiet = { debug: () => undefined, info: () => undefined, warn: () => undefined };
const asRoot = process.getuid?.() === 0 ? it : it.skip;

describe('embedded Postgres', () => {
  // Issue 11, finding 9: `npm start` as root with DATA_DIR in a private folder died with initdb's raw
  // "Permission denied" stack trace.
  asRoot('refuses, naming the fix, a data folder inside a folder the postgres user cannot enter (as root)', async () => {
    const closed = await mkdtemp(join(tmpdir(), 'lms-private-')); // mode 700, owned by root
    try {
      const failure = startEmbeddedPostgres(join(closed, '.data', 'postgres'), 1, quiet);
      await expect(failure).rejects.toThrow(EmbeddedPostgresError);
      await expect(failure).rejects.toThrow(new RegExp(`cannot enter ${closed}.*DATA_DIR`));
    } finally {
      await rm(closed, { recursive: true, force: true });
    }
  });
});
