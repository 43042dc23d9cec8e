import type { HealthIndicator } from '@lms/platform';

export interface CheckResult {
  name: string;
  status: 'up' | 'down';
  error?: string;
}

export interface Readiness {
  status: 'ok' | 'unavailable';
  checks: CheckResult[];
}

export const CHECK_TIMEOUT_MS = 2000;

async function run(indicator: HealthIndicator, timeoutMs: number): Promise<CheckResult> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
  });
  try {
    await Promise.race([indicator.check(), timeout]);
    return { name: indicator.name, status: 'up' };
  } catch (err) {
    return { name: indicator.name, status: 'down', error: err instanceof Error ? err.message : String(err) };
  } finally {
    clearTimeout(timer);
  }
}

/** Runs every check at once, each bounded, so a hung dependency makes `/readyz` say 503 rather than hang. */
export async function readiness(indicators: HealthIndicator[], timeoutMs = CHECK_TIMEOUT_MS): Promise<Readiness> {
  const checks = await Promise.all(indicators.map((indicator) => run(indicator, timeoutMs)));
  return { status: checks.every((check) => check.status === 'up') ? 'ok' : 'unavailable', checks };
}
