import { columnViews, csvTemplate, resolveColumns, type KnownFields } from './import-columns.js';

const known: KnownFields = {
  builtIns: ['uid', 'email', 'first_name', 'last_name'],
  customFields: [
    { id: 7, name: 'Region' },
    { id: 9, name: 'Cost, "center"' },
  ],
};

describe('resolveColumns', () => {
  it('maps built-in keys, custom field names (any case) and custom field ids, ordered by position', () => {
    const result = resolveColumns({ '2': ['region'], '0': ['uid'], '1': ['email', '9'] }, known);
    expect(result).toEqual({
      ok: true,
      columns: [
        { position: 0, field: 'uid' },
        { position: 1, field: 'email' },
        { position: 1, custom_field_id: 9 },
        { position: 2, custom_field_id: 7 },
      ],
    });
  });

  it('accepts an empty map, which clears the columns', () => {
    expect(resolveColumns({}, known)).toEqual({ ok: true, columns: [] });
  });

  it.each([
    ['a key that is not a column index', { '0': ['uid'], a: ['email'] }, 'columns.a'],
    ['a key with a leading zero', { '0': ['uid'], '01': ['email'] }, 'columns.01'],
    ['a negative key', { '0': ['uid'], '-1': ['email'] }, 'columns.-1'],
    ['a key past the last index', { '0': ['uid'], '1000': ['email'] }, 'columns.1000'],
    ['a value that is not an array', { '0': 'uid' }, 'columns.0'],
    ['an empty array', { '0': ['uid'], '1': [] }, 'columns.1'],
    ['a non-string name', { '0': ['uid', 5] }, 'columns.0[1]'],
    ['an unknown field', { '0': ['uid'], '1': ['shoe_size'] }, 'columns.1[0]'],
    ['a field mapped twice', { '0': ['uid'], '1': ['email'], '2': ['email'] }, 'columns.2[0]'],
    ['a custom field mapped by name and by id', { '0': ['uid'], '1': ['Region', '7'] }, 'columns.1[1]'],
    ['a map without uid', { '0': ['email'] }, 'columns'],
  ])('rejects %s, naming the bad key', (_case, map, field) => {
    const result = resolveColumns(map, known);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.errors).toEqual(expect.arrayContaining([expect.objectContaining({ field })]));
  });

  it('treats built-in keys case-sensitively and never as custom fields of another account', () => {
    expect(resolveColumns({ '0': ['UID'] }, known).ok).toBe(false);
    expect(resolveColumns({ '0': ['uid'], '1': ['8'] }, known).ok).toBe(false);
  });
});

describe('columnViews', () => {
  it('names built-ins by key with a null custom_field_id, marks uid primary, and drops deleted custom fields', () => {
    const views = columnViews(
      [
        { position: 0, field: 'uid' },
        { position: 1, custom_field_id: 7 },
        { position: 2, custom_field_id: 99 },
      ],
      known.customFields,
    );
    expect(views).toEqual([
      { custom_field_id: null, name: 'uid', position: 0, primary_field: true },
      { custom_field_id: 7, name: 'Region', position: 1, primary_field: false },
    ]);
  });
});

describe('csvTemplate', () => {
  it('is one CRLF-terminated header row in position order, quoting per RFC 4180 and leaving gaps empty', () => {
    const csv = csvTemplate([
      { custom_field_id: null, name: 'uid', position: 0, primary_field: true },
      { custom_field_id: 9, name: 'Cost, "center"', position: 3, primary_field: false },
      { custom_field_id: null, name: 'email', position: 1, primary_field: false },
      { custom_field_id: null, name: 'first_name', position: 1, primary_field: false },
    ]);
    expect(csv).toBe('uid,email,,"Cost, ""center"""\r\n');
  });

  it('defuses cells a spreadsheet would run as a formula', () => {
    expect(csvTemplate([{ custom_field_id: 1, name: '=HYPERLINK("x")', position: 0, primary_field: false }])).toBe('"\'=HYPERLINK(""x"")"\r\n');
  });

  it('is empty when no column is mapped', () => {
    expect(csvTemplate([])).toBe('');
  });
});
