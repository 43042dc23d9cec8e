import type { FieldError, ImportColumnView } from '@lms/contracts';
import type { StoredImportColumn } from './import-profile.entity.js';

/** The built-in field whose column identifies the user of a row. */
export const PRIMARY_FIELD = 'uid';

const MAX_COLUMN_INDEX = 999;

export interface KnownFields {
  /** Built-in user field keys (`uid`, `email`, …). */
  builtIns: readonly string[];
  customFields: readonly { id: number; name: string }[];
}

export type ColumnsResult = { ok: true; columns: StoredImportColumn[] } | { ok: false; errors: FieldError[] };

/**
 * Turns the request's `columns` map (column index as text → field names) into stored columns.
 * A name is a built-in key, a custom field's id as text, or a custom field's name (any case). Every
 * field may be mapped once, and a non-empty map must hold `uid`, the field that finds the user.
 */
export function resolveColumns(map: Record<string, unknown>, known: KnownFields): ColumnsResult {
  const errors: FieldError[] = [];
  const columns: StoredImportColumn[] = [];
  const mapped = new Map<string, string>();
  const byId = new Map(known.customFields.map((f) => [String(f.id), f]));
  const byName = new Map(known.customFields.map((f) => [f.name.trim().toLowerCase(), f]));

  for (const [key, value] of Object.entries(map)) {
    const field = `columns.${key}`;
    if (!/^(0|[1-9]\d*)$/.test(key) || Number(key) > MAX_COLUMN_INDEX) {
      errors.push({ field, message: `column keys must be column indexes from "0" to "${MAX_COLUMN_INDEX}"` });
      continue;
    }
    if (!Array.isArray(value) || value.length === 0) {
      errors.push({ field, message: 'must be a non-empty array of field names' });
      continue;
    }
    const position = Number(key);
    value.forEach((name: unknown, i) => {
      const at = `${field}[${i}]`;
      if (typeof name !== 'string' || name.trim() === '') return void errors.push({ field: at, message: 'must be a field name' });
      const custom = byId.get(name.trim()) ?? byName.get(name.trim().toLowerCase());
      const column: StoredImportColumn | undefined = known.builtIns.includes(name)
        ? { position, field: name }
        : custom
          ? { position, custom_field_id: custom.id }
          : undefined;
      if (!column) return void errors.push({ field: at, message: `unknown field "${name}": not a built-in user field nor a custom field of this account` });
      const identity = 'field' in column ? column.field : `custom:${column.custom_field_id}`;
      const earlier = mapped.get(identity);
      if (earlier) return void errors.push({ field: at, message: `"${name}" is already mapped by ${earlier}` });
      mapped.set(identity, at);
      columns.push(column);
    });
  }
  if (errors.length === 0 && columns.length > 0 && !mapped.has(PRIMARY_FIELD)) {
    errors.push({ field: 'columns', message: `one column must hold "${PRIMARY_FIELD}", the primary field that identifies each user` });
  }
  if (errors.length > 0) return { ok: false, errors };
  // Stable: fields of one column keep the order they were given in.
  return { ok: true, columns: columns.sort((a, b) => a.position - b.position) };
}

/** The stored columns as the spec's `import_columns`; a custom field deleted since is left out. */
export function columnViews(columns: readonly StoredImportColumn[], customFields: readonly { id: number; name: string }[]): ImportColumnView[] {
  const names = new Map(customFields.map((f) => [f.id, f.name]));
  return columns.flatMap((c): ImportColumnView[] => {
    if ('field' in c) return [{ custom_field_id: null, name: c.field, position: c.position, primary_field: c.field === PRIMARY_FIELD }];
    const name = names.get(c.custom_field_id);
    return name === undefined ? [] : [{ custom_field_id: c.custom_field_id, name, position: c.position, primary_field: false }];
  });
}

/** A cell a spreadsheet would take for a formula is prefixed with `'` (CSV injection). */
function csvCell(text: string): string {
  const safe = /^[=+\-@\t\r]/.test(text) ? `'${text}` : text;
  return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

/**
 * The CSV template (RFC 4180, CRLF): one header row, one cell per position from 0 to the last mapped one.
 * A column mapped to several fields is headed by the first; an unmapped position gets an empty cell.
 * No mapped columns: an empty file.
 */
export function csvTemplate(views: readonly ImportColumnView[]): string {
  if (views.length === 0) return '';
  const last = Math.max(...views.map((v) => v.position));
  const cells = Array.from({ length: last + 1 }, (_, position) => views.find((v) => v.position === position)?.name ?? '');
  return `${cells.map(csvCell).join(',')}\r\n`;
}
