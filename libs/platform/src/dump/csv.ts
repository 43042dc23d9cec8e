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
