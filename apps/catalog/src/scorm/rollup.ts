import type { ScormVersion } from '@lms/contracts';

/** What a registration's CMI data says, in one shape for both SCORM versions. */
export interface Tracking {
  completionStatus: string | null;
  successStatus: string | null;
  /** 0–100. */
  score: number | null;
  /** 0–1. */
  progress: number | null;
  complete: boolean;
}

type Tree = Record<string, unknown>;
const at = (tree: unknown, path: string): unknown => path.split('.').reduce<unknown>((node, key) => (node && typeof node === 'object' ? (node as Tree)[key] : undefined), tree);
const num = (value: unknown): number | null => {
  if (value === '' || value === null || value === undefined) return null;
  const n = Number(value);
  return Number.isFinite(n) ? n : null;
};
const str = (value: unknown): string | null => (typeof value === 'string' && value !== '' ? value : null);
const clamp = (n: number, low: number, high: number) => Math.min(high, Math.max(low, n));

/** A raw score on its min–max scale (0–100 when the SCO gives none) as a percentage. */
function percent(raw: number | null, min: number | null, max: number | null): number | null {
  if (raw === null) return null;
  const low = min ?? 0;
  const high = max ?? 100;
  return high > low ? clamp(((raw - low) / (high - low)) * 100, 0, 100) : null;
}

/**
 * The `cmi` tree of a commit, whatever form the runtime sent it in: `{ cmi: {...} }`, a commit object
 * with `runtimeData`, or flattened keys (`"cmi.core.lesson_status": "passed"`).
 */
export function cmiTree(committed: Record<string, unknown>): Tree {
  const source = (committed.runtimeData && typeof committed.runtimeData === 'object' ? committed.runtimeData : committed) as Tree;
  const tree: Tree = {};
  for (const [key, value] of Object.entries(source)) {
    const path = key.split('.');
    if (path.some((part) => part === '__proto__' || part === 'constructor' || part === 'prototype')) continue;
    let node = tree;
    for (const part of path.slice(0, -1)) node = (node[part] = node[part] && typeof node[part] === 'object' ? node[part] : {}) as Tree;
    node[path[path.length - 1]] = value;
  }
  return (tree.cmi && typeof tree.cmi === 'object' ? tree.cmi : tree) as Tree;
}

/** What a new sitting of a suspended attempt starts from: the learner's place and data, nothing read-only. */
export function resumeOf(version: ScormVersion, cmi: Tree | null): Tree | null {
  if (!cmi) return null;
  if (version === 'scorm_1_2') {
    const core = (cmi.core ?? {}) as Tree;
    return {
      core: { lesson_location: core.lesson_location ?? '', lesson_status: core.lesson_status ?? 'not attempted', score: core.score ?? {}, ...(core.exit === 'suspend' ? { entry: 'resume' } : {}) },
      suspend_data: cmi.suspend_data ?? '',
    };
  }
  return {
    location: cmi.location ?? '',
    completion_status: cmi.completion_status ?? 'unknown',
    success_status: cmi.success_status ?? 'unknown',
    suspend_data: cmi.suspend_data ?? '',
    score: cmi.score ?? {},
    ...(cmi.exit === 'suspend' ? { entry: 'resume' } : {}),
  };
}

/** Reads a commit's CMI tree (`cmiTree`). */
export function trackingOf(version: ScormVersion, cmi: Tree): Tracking {
  if (version === 'scorm_1_2') {
    const status = str(at(cmi, 'core.lesson_status'));
    const score = percent(num(at(cmi, 'core.score.raw')), num(at(cmi, 'core.score.min')), num(at(cmi, 'core.score.max')));
    const complete = status === 'completed' || status === 'passed';
    return {
      completionStatus: status === null ? null : complete || status === 'failed' ? 'completed' : 'incomplete',
      successStatus: status === 'passed' ? 'passed' : status === 'failed' ? 'failed' : 'unknown',
      score,
      progress: complete ? 1 : null,
      complete,
    };
  }
  const completionStatus = str(at(cmi, 'completion_status'));
  const successStatus = str(at(cmi, 'success_status'));
  const scaled = num(at(cmi, 'score.scaled'));
  const score = scaled !== null ? clamp(scaled * 100, 0, 100) : percent(num(at(cmi, 'score.raw')), num(at(cmi, 'score.min')), num(at(cmi, 'score.max')));
  const measure = num(at(cmi, 'progress_measure'));
  const complete = completionStatus === 'completed' || successStatus === 'passed';
  return { completionStatus, successStatus, score, progress: complete ? 1 : measure === null ? null : clamp(measure, 0, 1), complete };
}

/** What the enrollment takes from a registration, by the course's `score_rollup_mode` (docs/scorm.md). */
export function rollUp(mode: string, registration: { score: number | null; progress: number | null; completedAt: Date | null }): { score: number | null; progress: number | null; completedAt?: Date } {
  const completed = registration.completedAt ?? undefined;
  // One SCO is launched and tracked per attempt, so the last and the average SCO score are its score.
  const score = mode === 'fixed_score' ? (completed ? 100 : null) : registration.score === null ? null : Math.round(registration.score);
  return { score, progress: registration.progress, ...(completed ? { completedAt: completed } : {}) };
}
