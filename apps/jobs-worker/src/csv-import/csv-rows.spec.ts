import { csvRows } from './csv-rows.js';
import { ImportFailure } from './import-failure.js';

const columns = [
  { position: 0, field: 'uid' },
  { position: 1, field: 'email' },
  { position: 2, custom_field_id: 7 },
  { position: 3, field: 'manager_id' },
];

describe('csvRows', () => {
  it('maps columns to fields, numbers lines as the file does, and leaves empty cells out', () => {
    const file = Buffer.from('\ufeffuid,email,region,manager\r\na,a@x.test,North,boss\r\n\r\n"b",,"multi\nline",uid:chief\r\n');
    expect(csvRows(file, { has_headers: true, columns })).toEqual([
      { line: 2, user: { uid: 'a', email: 'a@x.test', manager_id: 'uid:boss', custom_fields: [{ id: '7', value: 'North' }] } },
      { line: 4, user: { uid: 'b', manager_id: 'uid:chief', custom_fields: [{ id: '7', value: 'multi\nline' }] } },
    ]);
  });

  it('reads the first line as data without headers, and tolerates short rows', () => {
    expect(csvRows(Buffer.from('a\nb,b@x.test\n'), { has_headers: false, columns })).toEqual([
      { line: 1, user: { uid: 'a' } },
      { line: 2, user: { uid: 'b', email: 'b@x.test' } },
    ]);
  });

  it('refuses a file that is not CSV', () => {
    expect(() => csvRows(Buffer.from('uid\n"never closed\n'), { has_headers: true, columns })).toThrow(ImportFailure);
  });
});
