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

/** What one SCO of an attempt last committed (a `scorm_sco_states` row). */
export interface ScoResult {
  completionStatus: string | null;
  successStatus: string | null;
  score: number | null;
  progress: number | null;
  completedAt: Date | null;
  updatedAt: Date;
}

/** An attempt over all of its package's SCOs: what `scorm_registrations` keeps (whatever the rollup mode). */
export interface AttemptResult {
  completionStatus: string | null;
  successStatus: string | null;
  /** The mean of the SCOs that reported a score (0–100), null when none did. */
  score: number | null;
  /** 0–1: the mean over all SCOs (one not yet reporting counts 0), null while no SCO reported any. */
  progress: number | null;
  /** Every SCO of the package is complete (a one-SCO package: that SCO). */
  complete: boolean;
}

const mean = (values: number[]) => (values.length === 0 ? null : values.reduce((sum, v) => sum + v, 0) / values.length);

/**
 * Rolls an attempt's SCOs up (docs/scorm.md): complete when every one of the package's `scoCount` SCOs
 * is; failed when any failed, passed when all passed. 2004 sequencing rollup rules are not applied.
 */
export function attemptOf(scoCount: number, scos: ScoResult[]): AttemptResult {
  const count = Math.max(1, scoCount);
  const complete = scos.length >= count && scos.filter((s) => s.completedAt !== null).length >= count;
  const reported = scos.filter((s) => s.completionStatus !== null);
  const completionStatus = complete ? 'completed' : reported.length === 0 ? null : 'incomplete';
  const successStatus = scos.length === 0 ? null : scos.some((s) => s.successStatus === 'failed') ? 'failed' : scos.length >= count && scos.every((s) => s.successStatus === 'passed') ? 'passed' : 'unknown';
  const progresses = scos.map((s) => s.progress);
  const progress = progresses.every((p) => p === null) ? null : (progresses.reduce<number>((sum, p) => sum + (p ?? 0), 0) / count);
  return { completionStatus, successStatus, score: mean(scos.flatMap((s) => (s.score === null ? [] : [s.score]))), progress: progress === null ? null : Math.min(1, progress), complete };
}

/**
 * The enrollment's score by the course's `score_rollup_mode`, over the attempt's SCOs (docs/scorm.md):
 * - `score_provided_by_course`: the mean of the SCOs that reported a score (a one-SCO package: its score);
 * - `average_sco_score`: the mean over all `scoCount` SCOs, one without a score counting 0 (null while none has one);
 * - `last_sco_score`: the score the most recently committed scored SCO reported;
 * - `fixed_score`: 100 once the attempt is complete, else none.
 */
export function scoreOf(mode: string, scoCount: number, scos: ScoResult[], completed: boolean): number | null {
  const scored = scos.filter((s) => s.score !== null) as (ScoResult & { score: number })[];
  let score: number | null;
  if (mode === 'fixed_score') score = completed ? 100 : null;
  else if (scored.length === 0) score = null;
  else if (mode === 'last_sco_score') score = scored.reduce((last, s) => (s.updatedAt.getTime() >= last.updatedAt.getTime() ? s : last)).score;
  else if (mode === 'average_sco_score') score = scored.reduce((sum, s) => sum + s.score, 0) / Math.max(1, scoCount, scored.length);
  else score = mean(scored.map((s) => s.score));
  return score === null ? null : Math.round(score);
}

/** What the enrollment takes from an attempt: the score by mode, its progress, and its completion. */
export function rollUp(
  mode: string,
  scoCount: number,
  scos: ScoResult[],
  registration: { progress: number | null; completedAt: Date | null },
): { score: number | null; progress: number | null; completedAt?: Date } {
  const completed = registration.completedAt ?? undefined;
  return { score: scoreOf(mode, scoCount, scos, completed !== undefined), progress: registration.progress, ...(completed ? { completedAt: completed } : {}) };
}
