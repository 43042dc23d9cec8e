import { intSetting } from '@lms/platform';

/** Settings of the CSV import worker (docs/jobs.md "Scheduled CSV imports"); read once at start. */
export interface CsvImportConfig {
  /** IMPORT_ALLOW_PRIVATE_ADDRESSES: fetch from loopback, private and link-local addresses too (identity reads it as well). */
  allowPrivateAddresses: boolean;
  /** Largest file fetched, in bytes; a larger one fails the run. */
  maxBytes: number;
  /** The whole fetch (connect, headers, body) must finish within this. */
  fetchTimeoutMs: number;
  /** A run stops, changing nothing, when it would create or update more than this share of the account's users… */
  maxChangeShare: number;
  /** …unless it changes at most this many users (a first import into a small account). */
  maxChangeFloor: number;
}

export function csvImportConfig(env: NodeJS.ProcessEnv = process.env): CsvImportConfig {
  const allow = env.IMPORT_ALLOW_PRIVATE_ADDRESSES;
  if (allow !== undefined && allow !== '' && allow !== 'true' && allow !== 'false') throw new Error('IMPORT_ALLOW_PRIVATE_ADDRESSES must be true or false');
  const shareRaw = env.IMPORT_MAX_CHANGE_SHARE;
  const share = shareRaw === undefined || shareRaw === '' ? 0.5 : Number(shareRaw);
  if (!(share > 0 && share <= 1)) throw new Error(`IMPORT_MAX_CHANGE_SHARE must be a number above 0 and at most 1, got "${shareRaw}"`);
  return {
    allowPrivateAddresses: allow === 'true',
    maxBytes: intSetting(env, 'IMPORT_MAX_BYTES', 20 * 1024 * 1024, 1024, 1024 * 1024 * 1024),
    fetchTimeoutMs: intSetting(env, 'IMPORT_FETCH_TIMEOUT_MS', 60_000, 100, 3_600_000),
    maxChangeShare: share,
    maxChangeFloor: intSetting(env, 'IMPORT_MAX_CHANGE_FLOOR', 10, 0, 1_000_000_000),
  };
}
