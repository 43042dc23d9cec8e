import { dueSlot, type ImportSchedule } from './import-schedule.js';

const HOUR = 3_600_000;
// 2026-11-26 is a Thursday (index 4, Sunday first).
const schedule = (over: Partial<ImportSchedule> = {}): ImportSchedule => ({
  accountId: 1,
  csvDays: [false, false, false, false, true, false, false],
  csvTime: '09:30',
  hasUrl: true,
  activeSince: new Date('2026-01-01T00:00:00Z'),
  ...over,
});

describe('dueSlot', () => {
  it('is the day\'s slot from its minute on, in UTC', () => {
    expect(dueSlot(schedule(), new Date('2026-11-26T09:29:59Z'), 12 * HOUR)).toBeUndefined();
    expect(dueSlot(schedule(), new Date('2026-11-26T09:30:00Z'), 12 * HOUR)).toEqual(new Date('2026-11-26T09:30:00Z'));
    expect(dueSlot(schedule(), new Date('2026-11-26T15:00:00Z'), 12 * HOUR)).toEqual(new Date('2026-11-26T09:30:00Z'));
  });

  it('skips a slot older than the catch-up bound, and days that are not flagged', () => {
    expect(dueSlot(schedule(), new Date('2026-11-26T21:31:00Z'), 12 * HOUR)).toBeUndefined();
    expect(dueSlot(schedule(), new Date('2026-11-27T10:00:00Z'), 48 * HOUR)).toEqual(new Date('2026-11-26T09:30:00Z'));
    expect(dueSlot(schedule(), new Date('2026-11-27T10:00:00Z'), 12 * HOUR)).toBeUndefined();
  });

  it('is the latest of several missed slots', () => {
    const daily = schedule({ csvDays: [true, true, true, true, true, true, true] });
    expect(dueSlot(daily, new Date('2026-11-28T08:00:00Z'), 72 * HOUR)).toEqual(new Date('2026-11-27T09:30:00Z'));
  });

  it('runs no slot from before the schedule took effect, nor without a URL, a time or a day', () => {
    const now = new Date('2026-11-26T10:00:00Z');
    expect(dueSlot(schedule({ activeSince: new Date('2026-11-26T09:45:00Z') }), now, 12 * HOUR)).toBeUndefined();
    expect(dueSlot(schedule({ hasUrl: false }), now, 12 * HOUR)).toBeUndefined();
    expect(dueSlot(schedule({ csvTime: null }), now, 12 * HOUR)).toBeUndefined();
    expect(dueSlot(schedule({ csvDays: [false, false, false, false, false, false, false] }), now, 12 * HOUR)).toBeUndefined();
  });
});
