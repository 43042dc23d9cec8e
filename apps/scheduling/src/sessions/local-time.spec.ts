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
