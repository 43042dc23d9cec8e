import { csvField, csvLine, reportLine } from './csv.js';

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

  it('writes a report\'s text that would start a formula with a leading quote, and nothing else differently', () => {
    expect(reportLine(['=HYPERLINK("http://evil.test","x")', '+1+cmd', '-2+3', '@SUM(A1)', '\tx', 'a=b', -3, 4.5, true, null])).toBe(
      `"'=HYPERLINK(""http://evil.test"",""x"")",'+1+cmd,'-2+3,'@SUM(A1),'\tx,a=b,-3,4.5,true,\n`,
    );
    // Numbers as text (bigint and numeric columns) stay numbers.
    expect(reportLine(['-2', '-12.50', '+7'])).toBe('-2,-12.50,+7\n');
    expect(reportLine(['plain', 'with, comma'])).toBe(csvLine(['plain', 'with, comma']));
  });
});
