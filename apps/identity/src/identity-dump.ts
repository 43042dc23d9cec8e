import { dumpModule } from '@lms/platform';

/**
 * Identity's part of the data dump (docs/jobs.md): its tables of the account, every column but secrets.
 * API tokens (hashes), the import profile (a stored password) and notification settings are left out.
 */
export const IdentityDumpModule = dumpModule('identity', [
  { model: 'users' },
  { model: 'sub_accounts' },
  { model: 'groups' },
  { model: 'group_memberships', key: ['group_id', 'user_id'] },
  { model: 'custom_fields' },
  { model: 'user_custom_field_values', key: ['user_id', 'custom_field_id'] },
  { model: 'user_completions', key: ['kind', 'enrollment_id'], exclude: ['event_id'] },
]);
