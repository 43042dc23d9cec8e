import type { PackageSco } from './scorm-package.entity.js';

/** Which attempt a launch plays and where it starts (docs/scorm.md); pure, so the rules are unit-tested. */

/** Whether a launch plays the enrollment's latest attempt again, by the course's instancing option. */
export function reuses(option: string, latest: { completedAt: Date | null; supersededAt: Date | null; commits: number }): boolean {
  if (option === 'never') return true;
  const open = !latest.completedAt && !latest.supersededAt;
  if (option === 'every_launch') return open && latest.commits === 0;
  return open; // once_per_completion
}

/** Where a sitting starts: the SCO last committed to; once that one is complete, the next one in order that is not. */
export function startingSco(scos: PackageSco[], states: Map<string, { completedAt: Date | null; updatedAt: Date }>): number {
  let last = -1;
  scos.forEach((sco, i) => {
    const state = states.get(sco.identifier);
    if (state && (last < 0 || state.updatedAt.getTime() >= states.get(scos[last].identifier)!.updatedAt.getTime())) last = i;
  });
  if (last < 0) return 0;
  if (!states.get(scos[last].identifier)?.completedAt) return last;
  const open = (i: number) => !states.get(scos[i].identifier)?.completedAt;
  for (let i = last + 1; i < scos.length; i += 1) if (open(i)) return i;
  for (let i = 0; i < last; i += 1) if (open(i)) return i;
  return last;
}
