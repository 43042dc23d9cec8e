/** NATS token matching on dot-separated names: `*` is exactly one token, a trailing `>` one or more. */
export function subjectMatches(pattern: string, subject: string): boolean {
  const want = pattern.split('.');
  const have = subject.split('.');
  for (let i = 0; i < want.length; i++) {
    if (want[i] === '>') return i === want.length - 1 && have.length > i;
    if (i >= have.length) return false;
    if (want[i] !== '*' && want[i] !== have[i]) return false;
  }
  return want.length === have.length;
}

const hasWildcard = (pattern: string): boolean => pattern.split('.').some((token) => token === '*' || token === '>');

/** One test against several patterns: a set lookup for those without wildcards, token matching for the rest. */
export function subjectMatcher(patterns: readonly string[]): (subject: string) => boolean {
  const exact = new Set(patterns.filter((pattern) => !hasWildcard(pattern)));
  const wild = patterns.filter(hasWildcard);
  return (subject) => exact.has(subject) || wild.some((pattern) => subjectMatches(pattern, subject));
}

/**
 * The narrowest one subject that matches each of `subjects` (which may hold wildcards): token by token the
 * common token or `*`, and `>` from the last token of the shortest when their lengths differ or one ends in
 * `>`. `a.x.created`, `a.y.created` -> `a.*.created`; `a.b`, `a.b.c` -> `a.>`.
 */
export function coveringSubject(subjects: string[]): string {
  if (subjects.length === 0) throw new Error('coveringSubject needs at least one subject');
  const split = subjects.map((s) => s.split('.'));
  const shortest = Math.min(...split.map((tokens) => tokens.length));
  const sameShape = split.every((tokens) => tokens.length === shortest && tokens[shortest - 1] !== '>');
  const exact = sameShape ? shortest : shortest - 1;
  const covering: string[] = [];
  for (let i = 0; i < exact; i++) {
    const token = split[0][i];
    covering.push(split.every((tokens) => tokens[i] === token) ? token : '*');
  }
  if (!sameShape) covering.push('>');
  return covering.join('.');
}
