import { asRfc3339, IsTimestamp } from './timestamp.js';
import { validateInput } from './validate.js';

class Stamped {
  @IsTimestamp()
  at!: string;
}

describe('asRfc3339', () => {
  it.each([
    ['2026-11-29T08:30:00Z', '2026-11-29T08:30:00Z'],
    ['2026-11-29T08:30:00.123456', '2026-11-29T08:30:00.123456Z'], // Python's datetime.utcnow().isoformat()
    ['2026-11-29T08:30:00+0000', '2026-11-29T08:30:00+00:00'],
    ['2026-11-29T08:30:00-0530', '2026-11-29T08:30:00-05:30'],
    ['2026-11-29T08:30:00+02', '2026-11-29T08:30:00+02:00'],
    ['2026-11-29T08:30Z', '2026-11-29T08:30:00Z'],
    ['2026-11-29 08:30:00 UTC', '2026-11-29T08:30:00Z'], // Ruby's Time#to_s
    ['2026-11-29 08:30:00 +0100', '2026-11-29T08:30:00+01:00'],
    ['2026-11-29t08:30:00,5z', '2026-11-29T08:30:00.5Z'],
  ])('reads %s as %s', (sent, read) => expect(asRfc3339(sent)).toBe(read));

  it('keeps a time without an offset local when asked', () => {
    expect(asRfc3339('2026-11-29 08:30', 'local')).toBe('2026-11-29T08:30:00');
    expect(asRfc3339('2026-11-29 08:30 GMT', 'local')).toBe('2026-11-29T08:30:00Z');
  });

  it('leaves anything else as sent', () => {
    for (const value of ['2026-11-29', 'yesterday', '20261129T083000Z', '2026-11-29T08:30:00+000', ' 2026-11-29T08:30:00Z', 42, null]) expect(asRfc3339(value)).toBe(value);
  });
});

describe('IsTimestamp', () => {
  it('validates what it reads, as RFC 3339', async () => {
    expect(await validateInput(Stamped, { at: '2026-11-29 08:30:00 UTC' })).toMatchObject({ ok: true, value: { at: '2026-11-29T08:30:00Z' } });
    for (const at of ['2028-02-29T00:00:00Z', '2000-02-29T00:00:00Z', '0004-02-29T00:00:00Z']) expect([at, (await validateInput(Stamped, { at })).ok]).toEqual([at, true]);
    for (const at of ['2026-13-01T00:00:00', '2026-02-31T00:00:00Z', '2025-02-29 08:00', '2026-11-29', 'soon', 5]) expect((await validateInput(Stamped, { at })).ok).toBe(false);
  });

  it('keeps to the years 0001 to 9999, which Postgres reads as they are written', async () => {
    for (const at of ['0001-01-01T00:00:00Z', '9999-12-31T23:59:59.999Z', '0001-01-01T00:30:00-01:00']) expect([at, (await validateInput(Stamped, { at })).ok]).toEqual([at, true]);
    for (const at of ['0000-01-01T00:00:00Z', '0000-02-29T00:00:00Z', '0001-01-01T00:30:00+01:00', '9999-12-31T23:30:00-01:00']) {
      expect([at, await validateInput(Stamped, { at })]).toEqual([at, expect.objectContaining({ ok: false })]);
    }
  });
});
