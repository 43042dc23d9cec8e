import { coveringSubject, subjectMatcher, subjectMatches } from './subject-match.js';

describe('coveringSubject', () => {
  it.each([
    [['a.b.c'], 'a.b.c'],
    [['events.catalog.enrollment.created', 'events.catalog.enrollment.removed'], 'events.catalog.enrollment.*'],
    [['events.catalog.enrollment.completed', 'events.scheduling.live_course_enrollment.completed'], 'events.*.*.completed'],
    [['events.identity.group_membership.added', 'events.identity.group.deleted'], 'events.identity.*.*'],
    [['a.b', 'a.b.c'], 'a.>'],
    [['a.b.c', 'a.b.>'], 'a.b.>'],
    [['a.b.>', 'a.c.d'], 'a.*.>'],
    [['a.*.c', 'a.b.d'], 'a.*.*'],
    [['a', 'b'], '*'],
    [['a', 'b.c'], '>'],
  ])('%j -> %s', (subjects, expected) => {
    expect(coveringSubject(subjects)).toBe(expected);
  });

  it('matches every subject it covers, wildcards included', () => {
    const subjects = ['ns.events.catalog.course_template.deleted', 'ns.events.catalog.task.deleted', 'ns.events.catalog.task.deleted.v2', 'ns.events.catalog.program.*'];
    for (let n = 1; n <= subjects.length; n++) {
      const pattern = coveringSubject(subjects.slice(0, n));
      for (const subject of subjects.slice(0, n)) expect(subjectMatches(pattern, subject.replace('*', 'any'))).toBe(true);
    }
  });

  it('needs a subject', () => {
    expect(() => coveringSubject([])).toThrow('at least one');
  });
});

describe('subjectMatcher', () => {
  const patterns = ['ns.events.identity.user.created', 'ns.events.*.task.deleted', 'ns.events.catalog.>'];
  const wants = subjectMatcher(patterns);

  it.each([
    ['ns.events.identity.user.created', true],
    ['ns.events.identity.user.created.v2', false],
    ['ns.events.identity.user.deleted', false],
    ['ns.events.scheduling.task.deleted', true],
    ['ns.events.scheduling.task.created', false],
    ['ns.events.catalog.course_template.deleted', true],
    ['ns.events.catalog', false],
  ])('%s -> %s, as subjectMatches over the list says', (subject, expected) => {
    expect(wants(subject)).toBe(expected);
    expect(patterns.some((pattern) => subjectMatches(pattern, subject))).toBe(expected);
  });

  it('matches nothing without patterns', () => {
    expect(subjectMatcher([])('a.b')).toBe(false);
  });
});
