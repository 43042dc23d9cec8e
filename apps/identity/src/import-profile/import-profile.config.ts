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
