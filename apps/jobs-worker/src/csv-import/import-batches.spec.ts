import { IMPORT_BATCH_BYTES, IMPORT_BATCH_ROWS, importBatches } from './csv-import.executor.js';

const row = (line: number, size = 10) => ({ line, user: { uid: `u${line}`, first_name: 'x'.repeat(size) } });

describe('importBatches', () => {
  it('cuts at IMPORT_BATCH_ROWS rows, and sends one empty batch for no rows', () => {
    const rows = Array.from({ length: IMPORT_BATCH_ROWS * 2 + 1 }, (_, i) => row(i + 2));
    expect(importBatches(rows).map((b) => b.length)).toEqual([IMPORT_BATCH_ROWS, IMPORT_BATCH_ROWS, 1]);
    expect(importBatches([])).toEqual([[]]);
  });

  it('cuts before a row would take the batch past IMPORT_BATCH_BYTES, in order; a heavier row goes alone', () => {
    const quarter = Math.floor(IMPORT_BATCH_BYTES / 4);
    const rows = [row(2, quarter), row(3, quarter), row(4, quarter), row(5, quarter), row(6, IMPORT_BATCH_BYTES * 2), row(7)];
    const batches = importBatches(rows);
    expect(batches.map((b) => b.map((r) => r.line))).toEqual([[2, 3, 4], [5], [6], [7]]);
  });
});
