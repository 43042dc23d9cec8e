/** One account's import schedule as jobs keeps it (jobs.import_schedules). */
export interface ImportSchedule {
  accountId: number;
  /** Seven flags, Sunday first. */
  csvDays: boolean[];
  /** HH:MM, UTC. */
  csvTime: string | null;
  hasUrl: boolean;
  /** When the days, time or URL last changed: no slot before it is run. */
  activeSince: Date;
}

const DAY_MS = 86_400_000;

/**
 * The slot to run now, if any: the latest `csvTime` (UTC; accounts have no time zone) on a flagged day that
 * is not after `now`, not before the schedule took effect, and at most `catchUpMs` old. A slot missed while
 * the system was down is run on start within that bound; older ones are skipped, and of several missed
 * slots only the latest is run.
 */
export function dueSlot(schedule: ImportSchedule, now: Date, catchUpMs: number): Date | undefined {
  if (!schedule.hasUrl || schedule.csvTime === null || !schedule.csvDays.some(Boolean)) return undefined;
  const [hours, minutes] = schedule.csvTime.split(':').map(Number);
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  for (let back = 0; back <= 7; back += 1) {
    const slot = new Date(today - back * DAY_MS + (hours * 60 + minutes) * 60_000);
    if (slot > now) continue;
    if (now.getTime() - slot.getTime() > catchUpMs || slot < schedule.activeSince) return undefined;
    if (schedule.csvDays[slot.getUTCDay()]) return slot;
  }
  return undefined;
}
