import { parse } from 'csv-parse/sync';
import type { ImportRowInput, ImportSourceReply } from '@lms/contracts';
import { ImportFailure } from './import-failure.js';

/**
 * The file's data rows as user requests for identity. Each mapped column's cell goes to its field: a
 * built-in attribute by key, a custom field's value by id. An empty cell leaves the attribute as it is
 * (an import fills in, it does not clear). The `manager_id` column holds the manager's uid. Lines are the
 * file's, from 1 (the header counts when there is one); a quoted cell over several lines gives its first.
 */
export function csvRows(file: Buffer, source: Pick<ImportSourceReply, 'has_headers' | 'columns'>): ImportRowInput[] {
  let records: { record: string[]; info: { lines: number } }[];
  try {
    records = parse(file, { bom: true, relax_column_count: true, skip_empty_lines: true, info: true }) as unknown as { record: string[]; info: { lines: number } }[];
  } catch (err) {
    const e = err as Error & { lines?: number };
    throw new ImportFailure(`the file is not valid CSV${e.lines ? ` (line ${e.lines})` : ''}: ${e.message}`);
  }
  const rows: ImportRowInput[] = [];
  records.forEach(({ record, info }, index) => {
    if (index === 0 && source.has_headers) return;
    if (record.every((cell) => cell.trim() === '')) return;
    const line = info.lines - record.reduce((n, cell) => n + (cell.match(/\n/g)?.length ?? 0), 0);
    const user: Record<string, unknown> = {};
    const customFields: { id: string; value: string }[] = [];
    for (const column of source.columns) {
      const cell = record[column.position]?.trim();
      if (cell === undefined || cell === '') continue;
      if ('custom_field_id' in column) customFields.push({ id: String(column.custom_field_id), value: cell });
      else if (column.field === 'manager_id') user.manager_id = cell.startsWith('uid:') ? cell : `uid:${cell}`;
      else user[column.field] = cell;
    }
    if (customFields.length > 0) user.custom_fields = customFields;
    rows.push({ line, user });
  });
  return rows;
}
