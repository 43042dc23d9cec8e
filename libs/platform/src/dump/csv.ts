/**
 * One CSV field (RFC 4180): quoted when it holds a quote, comma or line break; arrays and objects as JSON,
 * instants as RFC 3339 in UTC.
 */
export function csvField(value: unknown): string {
  if (value === null || value === undefined) return '';
  const text = value instanceof Date ? value.toISOString() : typeof value === 'object' ? JSON.stringify(value) : String(value);
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

export const csvLine = (values: readonly unknown[]): string => `${values.map(csvField).join(',')}\n`;

/** What a spreadsheet runs as a formula when a cell starts with it (OWASP, CSV injection). */
const FORMULA_START = /^[=+\-@\t\r]/;
/** A number written as text (bigint and numeric columns arrive so): no formula, so written as it is. */
const NUMBER = /^[+-]?\d+(\.\d+)?$/;

/**
 * A line of a report people open in a spreadsheet (downloads): text that would start a formula gets a
 * leading `'`, so a learner named `=HYPERLINK(…)` is shown, not run. Numbers (also as text, `-3`), dates
 * and booleans are written as they are. Data dumps keep `csvLine`: their values go back into programs, byte for byte.
 */
export const reportLine = (values: readonly unknown[]): string =>
  csvLine(values.map((value) => (typeof value === 'string' && FORMULA_START.test(value) && !NUMBER.test(value) ? `'${value}` : value)));
