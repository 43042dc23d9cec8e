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

/**
 * The instant a session time names: as given when it carries an offset, else the wall-clock time in
 * `zone` (UTC without one). A wall time a DST jump skips resolves forward, one it repeats to the first.
 */
export function resolveSessionTime(text: string, zone: string | undefined): Date {
  const normalized = text.replace(' ', 'T');
  if (HAS_OFFSET.test(normalized)) return new Date(normalized);
  const asUtc = new Date(`${normalized}Z`).getTime();
  if (!zone) return new Date(asUtc);
  const first = asUtc - offsetAt(zone, asUtc);
  const second = asUtc - offsetAt(zone, first);
  return new Date(Math.min(first, second) === first && offsetAt(zone, first) === asUtc - first ? first : second);
}
