import { intSetting } from '@lms/platform';

/** Settings of the import scheduler (jobs); read once at start. */
export interface ImportSchedulerConfig {
  /** How often each jobs replica looks for due slots. */
  intervalMs: number;
  /** A slot missed while the system was down is still run when at most this old. */
  catchUpMs: number;
}

export function importSchedulerConfig(env: NodeJS.ProcessEnv = process.env): ImportSchedulerConfig {
  return {
    intervalMs: intSetting(env, 'IMPORT_SCHEDULER_INTERVAL_MS', 60_000, 1, 3_600_000),
    catchUpMs: intSetting(env, 'IMPORT_CATCH_UP_MINUTES', 12 * 60, 1, 7 * 24 * 60) * 60_000,
  };
}
