import { retentionPolicy } from './retention-sweeper.js';

describe('retentionPolicy', () => {
  it('keeps downloads 7 days, deliveries 90 and import runs 90, sweeping hourly and the file store daily, unless told otherwise', () => {
    expect(retentionPolicy({})).toEqual({ downloadDays: 7, deliveryDays: 90, importRunDays: 90, intervalMs: 3_600_000, files: { intervalMs: 86_400_000, minAgeMs: 3_600_000 } });
    expect(
      retentionPolicy({ DOWNLOAD_RETENTION_DAYS: '30', NOTIFICATION_RETENTION_DAYS: '365', IMPORT_RUN_RETENTION_DAYS: '30', RETENTION_INTERVAL_MS: '60000', FILE_SWEEP_INTERVAL_MS: '3600000', FILE_SWEEP_MIN_AGE_MS: '0' }),
    ).toEqual({ downloadDays: 30, deliveryDays: 365, importRunDays: 30, intervalMs: 60_000, files: { intervalMs: 3_600_000, minAgeMs: 0 } });
  });

  it.each([
    ['DOWNLOAD_RETENTION_DAYS', '0'],
    ['DOWNLOAD_RETENTION_DAYS', 'a week'],
    ['NOTIFICATION_RETENTION_DAYS', '-1'],
    // Within the scheduler's catch-up a removed run's slot could run again.
    ['IMPORT_RUN_RETENTION_DAYS', '7'],
    ['RETENTION_INTERVAL_MS', '10'],
    ['FILE_SWEEP_INTERVAL_MS', '0'],
    ['FILE_SWEEP_MIN_AGE_MS', '-5'],
  ])('refuses %s=%s at start, naming it', (name, value) => {
    expect(() => retentionPolicy({ [name]: value })).toThrow(name);
  });
});
