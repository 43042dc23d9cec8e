import { csvField, csvLine } from './csv.js';

describe('CSV', () => {
  it('quotes what needs it, writes null as empty and arrays, objects and instants as JSON and RFC 3339', () => {
    expect(csvField(null)).toBe('');
    expect(csvField(12)).toBe('12');
    expect(csvField(false)).toBe('false');
    expect(csvField(['a', 'b'])).toBe('"[""a"",""b""]"');
    expect(csvField(new Date('2026-11-26T10:00:00.123Z'))).toBe('2026-11-26T10:00:00.123Z');
    const values = ['plain', 'with, comma', 'with "quotes"', 'two\nlines', '', 'é'];
    expect(csvLine(values)).toBe('plain,"with, comma","with ""quotes""","two\nlines",,é\n');
  });
});
