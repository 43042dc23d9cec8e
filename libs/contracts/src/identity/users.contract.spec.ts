import 'reflect-metadata';
import { validateInput } from '../common/validate.js';
import { CatalogEnrollmentCompletedData, LiveCourseEnrollmentCompletedData } from '../events/completion-events.js';
import { CreateUsersBody, isLanguageTag, isPlainDate, isUserReference, UpdateUserBody, UserSummaryQuery } from './users.contract.js';

const fieldsOf = async (cls: Parameters<typeof validateInput>[0], body: unknown) => {
  const result = await validateInput(cls, body);
  return result.ok ? [] : [...new Set(result.errors.map((e) => e.field))];
};

describe('users contract', () => {
  it.each([
    ['2024-02-29', true],
    ['2025-12-31', true],
    ['0001-01-01', true],
    ['0050-06-30', true],
    ['9999-12-31', true],
    ['0000-01-01', false],
    ['0000-12-31', false],
    ['2025-02-29', false],
    ['2025-02-30', false],
    ['2025-13-01', false],
    ['2025-1-01', false],
    ['2025-01-01T00:00:00Z', false],
    [20250101, false],
  ])('isPlainDate(%p) is %p', (value, expected) => {
    expect(isPlainDate(value)).toBe(expected);
  });

  it.each([
    ['en', true],
    ['en-US', true],
    ['pt-br', true],
    ['zh-Hant-TW', true],
    ['fil', true],
    ['e', false],
    ['english', false],
    ['en_US', false],
    ['en-', false],
    ['12', false],
    ['', false],
  ])('isLanguageTag(%p) is %p', (value, expected) => {
    expect(isLanguageTag(value)).toBe(expected);
  });

  it.each([
    [12, true],
    ['12', true],
    ['uid:jane.doe@acme.com', true],
    ['uid:', false],
    ['uid:a b', false],
    ['uid:a/b', false],
    ['0', false],
    [-1, false],
    ['abc', false],
  ])('isUserReference(%p) is %p', (value, expected) => {
    expect(isUserReference(value)).toBe(expected);
  });

  it('validates only the first element of users and drops the others', async () => {
    const result = await validateInput<CreateUsersBody>(CreateUsersBody, { users: [{ uid: 'a' }, { uid: 'b c', roles: ['admin'] }, 'junk'] });
    expect(result.ok).toBe(true);
    if (result.ok) expect(JSON.parse(JSON.stringify(result.value))).toEqual({ users: [{ uid: 'a' }] });
  });

  it('rejects a first element with unknown, mass-assigned or invalid fields, naming them', async () => {
    expect(await fieldsOf(CreateUsersBody, { users: [{ uid: 'a', roles: ['admin'], id: 3, account_id: 9 }] })).toEqual(
      expect.arrayContaining(['users[0].roles', 'users[0].id', 'users[0].account_id']),
    );
    expect(await fieldsOf(CreateUsersBody, { users: [{ first_name: 'x' }] })).toEqual(['users[0].uid']);
    expect(await fieldsOf(CreateUsersBody, { users: [] })).toEqual(['users']);
    expect(await fieldsOf(CreateUsersBody, { users: [{ uid: 'a', hire_date: '2025-02-30', locale: 'xx_YY', email: 'nope', manager_id: 'boss' }] })).toEqual(
      expect.arrayContaining(['users[0].hire_date', 'users[0].locale', 'users[0].email', 'users[0].manager_id']),
    );
    expect(await fieldsOf(CreateUsersBody, { users: [{ uid: 'a', custom_fields: [{ id: 'x', value: 1 }, { name: 'Region', value: 'N' }] }] })).toEqual(
      expect.arrayContaining(['users[0].custom_fields[0].id', 'users[0].custom_fields[0].value', 'users[0].custom_fields[1].name']),
    );
  });

  it.each([
    ['https://cdn.example.test/j.png', true],
    ['http://intranet/avatars/j.png', true],
    ['http://localhost:8080/j.png', true],
    ['https://10.1.2.3/j.png', true],
    ['/avatars/j.png', false],
    ['javascript:alert(1)', false],
    ['ftp://files.example.test/j.png', false],
    ['not a url', false],
  ])('takes avatar_url %p: %p (absolute http(s), any host)', async (url, ok) => {
    expect(await fieldsOf(CreateUsersBody, { users: [{ uid: 'a', avatar_url: url }] })).toEqual(ok ? [] : ['users[0].avatar_url']);
  });

  it('lets an update name any subset, clear with null, but never clear the uid', async () => {
    expect(await fieldsOf(UpdateUserBody, { user: { first_name: null, custom_fields: [{ id: '3', value: null }] } })).toEqual([]);
    expect(await fieldsOf(UpdateUserBody, { user: { uid: null } })).toEqual(['user.uid']);
    expect(await fieldsOf(UpdateUserBody, { user: { roles: ['admin'] } })).toEqual(['user.roles']);
  });

  it('checks summary dates', async () => {
    expect(await fieldsOf(UserSummaryQuery, { start_date: '2025-01-01', end_date: '2025-12-31' })).toEqual([]);
    expect(await fieldsOf(UserSummaryQuery, { start_date: '2025-02-30' })).toEqual(['start_date']);
  });
});

describe('completion event contracts', () => {
  const base = { user_id: 1, enrollment_id: 2, completed_at: '2025-03-01T10:00:00Z', due_at: null };

  it('accepts a course or a program catalog completion, not both nor neither', async () => {
    expect(await fieldsOf(CatalogEnrollmentCompletedData, { ...base, course_id: 5 })).toEqual([]);
    expect(await fieldsOf(CatalogEnrollmentCompletedData, { ...base, program_id: 5 })).toEqual([]);
    expect(await fieldsOf(CatalogEnrollmentCompletedData, { ...base, course_id: 5, program_id: 6 })).toEqual(['course_id']);
    expect(await fieldsOf(CatalogEnrollmentCompletedData, base)).toEqual(['course_id']);
  });

  it('requires the due_at key (null allowed), RFC 3339 times and integer ids', async () => {
    const { due_at: _omitted, ...noDue } = base;
    expect(await fieldsOf(LiveCourseEnrollmentCompletedData, { ...noDue, live_course_id: 3 })).toEqual(['due_at']);
    expect(await fieldsOf(LiveCourseEnrollmentCompletedData, { ...base, live_course_id: 3, due_at: '2025-03-02T00:00:00Z' })).toEqual([]);
    expect(await fieldsOf(LiveCourseEnrollmentCompletedData, { ...base, live_course_id: '3', completed_at: 'yesterday' })).toEqual(
      expect.arrayContaining(['live_course_id', 'completed_at']),
    );
    expect(await fieldsOf(LiveCourseEnrollmentCompletedData, { ...base, live_course_id: 3, extra: 1 })).toEqual(['extra']);
  });
});
