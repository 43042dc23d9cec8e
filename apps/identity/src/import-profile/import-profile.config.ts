/**
 * The secret the CSV password's encryption key is derived from. It lives here, not in the platform
 * config, because only this feature needs it. A development default keeps `npm start` working with
 * no setup; the module logs a warning when it is used, because anyone can read it in this file.
 */
export const DEV_IMPORT_PROFILE_KEY = 'lms-dev-only-import-profile-key-do-not-use-in-production';

export interface ImportProfileKeyConfig {
  secret: string;
  isDevDefault: boolean;
}

export function importProfileKeyConfig(env: NodeJS.ProcessEnv = process.env): ImportProfileKeyConfig {
  const raw = env.IMPORT_PROFILE_KEY;
  if (raw === undefined || raw === '') return { secret: DEV_IMPORT_PROFILE_KEY, isDevDefault: true };
  // A short secret would make the derived key guessable; fail at start, not at the first save.
  if (raw.length < 32) throw new Error('IMPORT_PROFILE_KEY must be at least 32 characters (e.g. `openssl rand -base64 32`)');
  return { secret: raw, isDevDefault: false };
}

/**
 * IMPORT_ALLOW_PRIVATE_ADDRESSES=true lets csv_url name a loopback, private or link-local host (an import
 * from inside the operator's own network, and the tests' local server). Off by default: a client must not
 * make the system fetch from inside its network (server-side request forgery). jobs-worker reads the same
 * setting for the addresses it connects to.
 */
export function importAllowsPrivateAddresses(env: NodeJS.ProcessEnv = process.env): boolean {
  const raw = env.IMPORT_ALLOW_PRIVATE_ADDRESSES;
  if (raw === undefined || raw === '' || raw === 'false') return false;
  if (raw === 'true') return true;
  throw new Error('IMPORT_ALLOW_PRIVATE_ADDRESSES must be true or false');
}
