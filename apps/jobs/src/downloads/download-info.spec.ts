import { DomainError } from '@lms/platform';
import { downloadInfo } from './download-info.js';

const fieldOf = (fn: () => unknown): string | undefined => {
  try {
    fn();
  } catch (err) {
    if (err instanceof DomainError && err.status === 422) return err.errors?.[0]?.field;
    throw err;
  }
  return undefined;
};

describe('downloadInfo', () => {
  it("reduces each type's info to its source's parameters", () => {
    expect(downloadInfo('users', {})).toEqual({});
    expect(downloadInfo('course_enrollments', { course_template_id: 7 })).toEqual({ course_template_id: 7 });
    expect(downloadInfo('course_enrollments', { course_template_id: '7' })).toEqual({ course_template_id: 7 });
    expect(downloadInfo('session_registrations', { session_id: 3 })).toEqual({ session_id: 3 });
    expect(downloadInfo('quiz_report', {})).toEqual({});
    expect(downloadInfo('quiz_report', { course_template_id: null })).toEqual({});
    expect(downloadInfo('sign_in_report', { start_date: '2024-02-29', end_date: '2024-03-01' })).toEqual({ start_date: '2024-02-29', end_date: '2024-03-01' });
  });

  it('leaves out what a type does not read (the spec calls info "currently unused")', () => {
    expect(downloadInfo('users', { format: 'csv', x: [1] })).toEqual({});
    expect(downloadInfo('course_enrollments', { course_template_id: 7, format: 'csv' })).toEqual({ course_template_id: 7 });
    expect(downloadInfo('sign_in_report', { course_template_id: 'not read here' })).toEqual({});
  });

  it('answers 422 naming the field for a value it reads that is not valid', () => {
    expect(fieldOf(() => downloadInfo('course_enrollments', {}))).toBe('download.info.course_template_id');
    for (const bad of [0, -1, 1.5, 2_147_483_648, '', '1e3', true, [1], { id: 1 }]) {
      expect([bad, fieldOf(() => downloadInfo('course_enrollments', { course_template_id: bad }))]).toEqual([bad, 'download.info.course_template_id']);
    }
    for (const bad of ['2023-02-29', '2024-1-01', 20240101, '2024-01-01T00:00:00Z']) {
      expect([bad, fieldOf(() => downloadInfo('sign_in_report', { end_date: bad }))]).toEqual([bad, 'download.info.end_date']);
    }
    expect(fieldOf(() => downloadInfo('sign_in_report', { start_date: '2024-03-02', end_date: '2024-03-01' }))).toBe('download.info.start_date');
  });
});
