import { isTimeZone } from '@lms/contracts';
import { resolveSessionTime } from './local-time.js';

describe('resolveSessionTime', () => {
  it('takes a time with an offset as given, and one without in the zone (UTC without one)', () => {
    expect(resolveSessionTime('2030-07-01T09:00:00+02:00', 'Asia/Tokyo').toISOString()).toBe('2030-07-01T07:00:00.000Z');
    expect(resolveSessionTime('2030-07-01T09:00', undefined).toISOString()).toBe('2030-07-01T09:00:00.000Z');
    expect(resolveSessionTime('2030-07-01T09:00', 'Europe/Paris').toISOString()).toBe('2030-07-01T07:00:00.000Z');
  });

  it("places wall times in the database's current names as in their older spellings", () => {
    for (const [current, older] of [
      ['Asia/Kolkata', 'Asia/Calcutta'],
      ['Europe/Kyiv', 'Europe/Kiev'],
      ['Asia/Ho_Chi_Minh', 'Asia/Saigon'],
    ]) {
      expect(resolveSessionTime('2030-07-01T09:00', current).toISOString()).toBe(resolveSessionTime('2030-07-01T09:00', older).toISOString());
    }
    expect(resolveSessionTime('2030-07-01T09:00', 'Asia/Kolkata').toISOString()).toBe('2030-07-01T03:30:00.000Z');
    expect(resolveSessionTime('2030-07-01T09:00', 'Etc/UTC').toISOString()).toBe('2030-07-01T09:00:00.000Z');
  });

  it('places a wall time a DST change repeats at its first instant, and one it skips forward by the gap, east and west of UTC alike', () => {
    // Repeated (clocks go back): the earlier instant, the one still on summer time.
    for (const [wall, zone, instant] of [
      ['2026-11-01T01:30:00', 'America/New_York', '2026-11-01T05:30:00.000Z'],
      ['2026-10-25T02:30:00', 'Europe/Paris', '2026-10-25T00:30:00.000Z'],
      ['2026-10-25T01:30:00', 'Europe/London', '2026-10-25T00:30:00.000Z'],
      ['2026-04-05T02:30:00', 'Australia/Sydney', '2026-04-04T15:30:00.000Z'],
      ['2026-04-05T01:45:00', 'Australia/Lord_Howe', '2026-04-04T14:45:00.000Z'],
      // Skipped (clocks go forward): read on the offset before the change, so 02:30 EST is 03:30 EDT.
      ['2026-03-08T02:30:00', 'America/New_York', '2026-03-08T07:30:00.000Z'],
      ['2026-03-29T02:30:00', 'Europe/Paris', '2026-03-29T01:30:00.000Z'],
      ['2026-10-04T02:30:00', 'Australia/Sydney', '2026-10-03T16:30:00.000Z'],
      ['2011-12-30T12:00:00', 'Pacific/Apia', '2011-12-30T22:00:00.000Z'],
    ]) {
      expect([wall, zone, resolveSessionTime(wall, zone).toISOString()]).toEqual([wall, zone, instant]);
    }
  });

  it('answers an invalid date for a wall time no calendar has, in a zone as without one', () => {
    for (const zone of ['Europe/Paris', undefined]) expect(Number.isNaN(resolveSessionTime('2030-13-01T10:00:00', zone).getTime())).toBe(true);
  });

  it('places wall times of the years 1 to 99 in those years', () => {
    // Paris kept its local mean time (+0:09:21) until 1891.
    expect(resolveSessionTime('0050-06-01T10:00:00', 'Europe/Paris').toISOString()).toBe('0050-06-01T09:50:39.000Z');
    expect(resolveSessionTime('0001-06-01T10:00:00', 'UTC').toISOString()).toBe('0001-06-01T10:00:00.000Z');
  });
});

describe('isTimeZone', () => {
  it('knows canonical names, aliases and current spellings', () => {
    for (const name of ['UTC', 'Europe/Paris', 'Asia/Kolkata', 'Asia/Calcutta', 'Europe/Kyiv', 'Etc/UTC', 'GMT', 'US/Eastern', 'Etc/GMT+5', 'EST5EDT', 'America/Argentina/Buenos_Aires', 'America/Nuuk']) {
      expect([name, isTimeZone(name)]).toEqual([name, true]);
    }
  });

  it('refuses what the database does not name, offsets included', () => {
    for (const name of ['Mars/Olympus', '+01:00', 'Europe/Paris ', '', 'Europe//Paris', '../etc', 'x'.repeat(65), 5, null]) expect([name, isTimeZone(name)]).toEqual([name, false]);
  });
});
