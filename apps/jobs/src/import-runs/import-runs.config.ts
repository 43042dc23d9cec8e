/** Settings of the import scheduler (jobs); read once at start. */
export interface ImportSchedulerConfig {
  /** How often each jobs replica looks for due slots. */
  intervalMs: number;
  /** A slot missed while the system was down is still run when at most this old. */
  catchUpMs: number;
}

function positiveInt(env: NodeJS.ProcessEnv, name: string, fallback: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1 || value > max) throw new Error(`${name} must be an integer from 1 to ${max}, got "${raw}"`);
  return value;
}

export function importSchedulerConfig(env: NodeJS.ProcessEnv = process.env): ImportSchedulerConfig {
  return {
    intervalMs: positiveInt(env, 'IMPORT_SCHEDULER_INTERVAL_MS', 60_000, 3_600_000),
    catchUpMs: positiveInt(env, 'IMPORT_CATCH_UP_MINUTES', 12 * 60, 7 * 24 * 60) * 60_000,
  };
}
