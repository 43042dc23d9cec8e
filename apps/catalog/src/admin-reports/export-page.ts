import type { ExportPage } from '@lms/contracts';
import { badRequest } from '@lms/platform';

/** An export page from rows that carry their own cursor (`__key`), in the order of `columns`. */
export function exportPage(columns: Record<string, string>, found: Record<string, unknown>[], limit: number): ExportPage {
  const names = Object.keys(columns);
  const last = found[found.length - 1];
  return {
    columns: names,
    data_types: columns,
    rows: found.map((record) => names.map((c) => record[c] ?? null)),
    ...(found.length === limit && last ? { next: String(last.__key) } : {}),
  };
}

/** A cursor of integers separated by dots (`12` or `12.1.-1`), each in range. */
export function cursorOf(after: string | undefined, parts: number): number[] | undefined {
  if (after === undefined) return undefined;
  const values = after.split('.');
  if (values.length !== parts || values.some((v) => !/^-?\d{1,10}$/.test(v) || Math.abs(Number(v)) > 2_147_483_647)) {
    throw badRequest('EXPORT_CURSOR_INVALID', `The cursor is ${parts} integer(s) separated by dots.`);
  }
  return values.map(Number);
}
