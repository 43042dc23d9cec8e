const HAS_OFFSET = /(Z|[+-]\d{2}:\d{2})$/i;

/** Milliseconds that `zone` is ahead of UTC at the instant `utcMs`. */
function offsetAt(zone: string, utcMs: number): number {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat('en-US', { timeZone: zone, hourCycle: 'h23', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit' })
      .formatToParts(new Date(utcMs))
      .map((p) => [p.type, p.value]),
  );
  const wall = new Date(0);
  // Not Date.UTC, which reads the years 0 to 99 as 1900 to 1999.
  wall.setUTCFullYear(Number(parts.year), Number(parts.month) - 1, Number(parts.day));
  wall.setUTCHours(Number(parts.hour), Number(parts.minute), Number(parts.second));
  return wall.getTime() - Math.floor(utcMs / 1000) * 1000;
}

/** Wider than any zone's offset (±14 h) and narrower than the time between two of its changes. */
const DAY_MS = 86_400_000;

/**
 * The instant a session time names: as given when it carries an offset, else the wall-clock time in
 * `zone` (UTC without one). A wall time a DST change repeats resolves to the first of its instants; one
 * it skips is read on the offset before the change, so it moves forward by the gap (02:30 EST is 03:30
 * EDT), as `Temporal`'s "compatible" disambiguation does. The offsets a day either side of the wall time
 * are the only ones it can have been on.
 */
export function resolveSessionTime(text: string, zone: string | undefined): Date {
  const normalized = text.replace(' ', 'T');
  if (HAS_OFFSET.test(normalized)) return new Date(normalized);
  const asUtc = new Date(`${normalized}Z`).getTime();
  // Not a time (month 13): NaN for the caller to refuse, not a RangeError from Intl.
  if (!zone || Number.isNaN(asUtc)) return new Date(asUtc);
  const before = offsetAt(zone, asUtc - DAY_MS);
  const after = offsetAt(zone, asUtc + DAY_MS);
  const instants = [asUtc - before, asUtc - after].filter((at) => offsetAt(zone, at) === asUtc - at);
  return new Date(instants.length > 0 ? Math.min(...instants) : asUtc - before);
}
