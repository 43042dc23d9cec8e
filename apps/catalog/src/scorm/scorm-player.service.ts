import { Injectable } from '@nestjs/common';
import { Any } from 'typeorm';
import type { PlayerFile, PlayerState, RequestContext } from '@lms/contracts';
import { Database, DepartedUsers, IdentityDirectory, InjectTenantRepository, notFound, type RowLock, type TenantRepository, type TenantScope } from '@lms/platform';
import { CourseTemplate } from '../course-templates/course-template.entity.js';
import { DEFAULT_SCORM_SETTINGS } from '../course-templates/course-template.views.js';
import { EnrollmentLifecycle, type Tracking } from '../enrollments/enrollment-lifecycle.service.js';
import { Enrollment } from '../enrollments/enrollment.entity.js';
import { publishedFacts } from '../learner-courses/learner-course.views.js';
import { servedCourse } from '../slide-responses/slide-responses.service.js';
import { contentTypeOf } from './content-types.js';
import { startingSco } from './attempts.js';
import { attemptOf, cmiTree, resumeOf, rollUp, trackingOf } from './rollup.js';
import { type PackageSco, ScormPackage, ScormRegistration, ScormScoState } from './scorm-package.entity.js';

/** Enrollments a SCORM sync derives again in one transaction. */
const SYNC_BATCH = 5_000;

const registrationGone = () => notFound('SCORM_REGISTRATION_NOT_FOUND', 'This SCORM attempt does not exist any more.');
const fileNotInPackage = () => notFound('SCORM_FILE_NOT_FOUND', 'The package has no such file.');
const scoNotInPackage = (index: number) => notFound('SCORM_SCO_NOT_FOUND', `The package has no SCO ${index} in its table of contents.`);

/** A package's SCOs; one stored before the table of contents was kept is its launch SCO alone. */
const scosOf = (pkg: ScormPackage): PackageSco[] => (pkg.scos?.length ? pkg.scos : [{ identifier: pkg.launchSco, title: pkg.title, href: pkg.launchHref }]);

/**
 * What the player does with an attempt (docs/scorm.md): the table of contents and the SCO to start at,
 * each SCO's files and saved data, its commits stored per SCO and rolled up into the attempt and the
 * enrollment by the course's `score_rollup_mode`.
 */
@Injectable()
export class ScormPlayerService {
  constructor(
    private readonly db: Database,
    private readonly lifecycle: EnrollmentLifecycle,
    private readonly directory: IdentityDirectory,
    @InjectTenantRepository(CourseTemplate) private readonly courses: TenantRepository<CourseTemplate>,
    @InjectTenantRepository(ScormPackage) private readonly packages: TenantRepository<ScormPackage>,
    @InjectTenantRepository(ScormRegistration) private readonly registrations: TenantRepository<ScormRegistration>,
    @InjectTenantRepository(ScormScoState) private readonly scoStates: TenantRepository<ScormScoState>,
    @InjectTenantRepository(Enrollment) private readonly enrollments: TenantRepository<Enrollment>,
    private readonly departed: DepartedUsers,
  ) {}

  /**
   * The table of contents with each SCO's completion, and the saved data of SCO `index` (absent: the
   * SCO the learner left off at; when that one is complete, the next one in order that is not).
   */
  async playerState(ctx: RequestContext, registrationId: number, index?: number): Promise<PlayerState> {
    const registration = await this.ownRegistration(ctx, registrationId);
    const pkg = await this.packages.findOne(ctx, { id: registration.packageId });
    if (!pkg) throw registrationGone();
    const scos = scosOf(pkg);
    if (index !== undefined && index >= scos.length) throw scoNotInPackage(index);
    const states = new Map((await this.scoStates.find(ctx, { where: { registrationId } })).map((s) => [s.sco, s]));
    const toc = scos.map((sco) => ({ identifier: sco.identifier, title: sco.title || sco.identifier, href: sco.href, complete: Boolean(states.get(sco.identifier)?.completedAt) }));
    const current = index ?? startingSco(scos, states);
    const course = await this.courses.findOne(ctx, { id: registration.courseTemplateId });
    const settings = course?.scorm ?? DEFAULT_SCORM_SETTINGS;
    const name = (await this.directory.users(ctx, [ctx.userId])).get(ctx.userId)?.name ?? '';
    return {
      version: pkg.version,
      scos: toc,
      sco: current,
      cmi: resumeOf(pkg.version, states.get(scos[current].identifier)?.cmi ?? null),
      learner: { id: String(ctx.userId), name },
      player_launch_type: settings.player_launch_type,
      sco_launch_type: settings.sco_launch_type,
    };
  }

  /** Where a file of the attempt's package is; only files of that package exist for it. */
  async playerFile(ctx: RequestContext, registrationId: number, path: string): Promise<PlayerFile> {
    const registration = await this.ownRegistration(ctx, registrationId);
    const [row]: { file_key: string; size: string }[] = await this.db.manager.query(
      // Paths are stored composed (NFC), and were stored as the zip wrote them before: either form is the file.
      'SELECT file_key, size FROM catalog.scorm_package_files WHERE package_id = $1 AND path = ANY($2::text[]) ORDER BY path = $3 DESC LIMIT 1',
      [registration.packageId, [path, path.normalize('NFC')], path],
    );
    if (!row) throw fileNotInPackage();
    return { file_key: row.file_key, size: Number(row.size), content_type: contentTypeOf(path) };
  }

  /**
   * A runtime commit of SCO `index` (0, the launch SCO, when absent): the CMI data as that SCO left it. A
   * commit is the whole state of its SCO, so a retried one changes nothing; the attempt rolls its SCOs up,
   * and the enrollment follows (started, progress, score, complete once).
   */
  async commit(ctx: RequestContext, registrationId: number, index: number, committed: Record<string, unknown>): Promise<void> {
    await this.db.transaction(async () => {
      const registration = await this.ownRegistration(ctx, registrationId, 'update');
      const pkg = await this.packages.findOne(ctx, { id: registration.packageId });
      if (!pkg) throw registrationGone();
      const scos = scosOf(pkg);
      const sco = scos[index];
      if (!sco) throw scoNotInPackage(index);
      const tree = cmiTree(committed);
      const tracking = trackingOf(pkg.version, tree);
      const now = new Date();
      const values = { cmi: tree, completionStatus: tracking.completionStatus, successStatus: tracking.successStatus, score: tracking.score, progress: tracking.progress, updatedAt: now };
      const state = await this.scoStates.findOne(ctx, { registrationId, sco: sco.identifier });
      if (state) await this.scoStates.save(ctx, Object.assign(state, values, { commits: state.commits + 1, completedAt: state.completedAt ?? (tracking.complete ? now : null) }));
      else await this.scoStates.insert(ctx, { registrationId, sco: sco.identifier, ...values, commits: 1, completedAt: tracking.complete ? now : null });

      const states = await this.scoStatesOf(ctx, registration, scos);
      const attempt = attemptOf(scos.length, states);
      Object.assign(registration, {
        completionStatus: attempt.completionStatus,
        successStatus: attempt.successStatus,
        score: attempt.score,
        progress: attempt.progress,
        commits: registration.commits + 1,
        completedAt: registration.completedAt ?? (attempt.complete ? now : null),
        updatedAt: now,
      });
      await this.registrations.save(ctx, registration);
      await this.applyToEnrollment(ctx, registration, scos, states);
    });
  }

  /**
   * `POST .../sync`: every enrollment of the course is derived again from its latest registration (after a
   * change of the rollup mode, or a repair). Running it twice changes nothing the second time. SYNC_BATCH
   * enrollments a transaction, each step one statement for all of them (`EnrollmentLifecycle.trackAll`): a
   * course of 20,000 attempts syncs within its request.
   */
  async sync(scope: TenantScope, courseId: number): Promise<void> {
    const latest: { id: number }[] = await this.db.manager.query(
      `SELECT DISTINCT ON (enrollment_id) id FROM catalog.scorm_registrations
        WHERE account_id = $1 AND course_template_id = $2 ORDER BY enrollment_id, id DESC`,
      [scope.accountId, courseId],
    );
    for (let start = 0; start < latest.length; start += SYNC_BATCH) {
      const ids = latest.slice(start, start + SYNC_BATCH).map((r) => r.id);
      await this.db.transaction(async () => {
        // Shared locks, in id order: a commit in flight (it holds its attempt FOR UPDATE until its enrollment has
        // followed) ends first, and this reads what it wrote, instead of putting the enrollment back to what it read before.
        const registrations = await this.registrations.find(scope, { where: { id: Any(ids) }, order: { id: 'ASC' }, lock: 'share' });
        if (registrations.length === 0) return;
        const packages = new Map((await this.packages.find(scope, { where: { id: Any([...new Set(registrations.map((r) => r.packageId))]) } })).map((p) => [p.id, p]));
        const courses = new Map((await this.courses.find(scope, { where: { id: Any([...new Set(registrations.map((r) => r.courseTemplateId))]) } })).map((c) => [c.id, c]));
        const states = new Map<number, ScormScoState[]>();
        for (const state of await this.scoStates.find(scope, { where: { registrationId: Any(registrations.map((r) => r.id)) } })) states.set(state.registrationId, [...(states.get(state.registrationId) ?? []), state]);
        // The enrollment follows its latest attempt only, as a commit's applies (one started since is the latest now).
        const newest: { enrollment_id: number; latest: number }[] = await this.db.manager.query(
          'SELECT enrollment_id, max(id) AS latest FROM catalog.scorm_registrations WHERE account_id = $1 AND enrollment_id = ANY($2::int[]) GROUP BY enrollment_id',
          [scope.accountId, registrations.map((r) => r.enrollmentId)],
        );
        const latestOf = new Map(newest.map((n) => [Number(n.enrollment_id), Number(n.latest)]));
        const tracking = new Map<number, Tracking>();
        for (const registration of registrations) {
          const pkg = packages.get(registration.packageId);
          if (!pkg || latestOf.get(registration.enrollmentId) !== registration.id) continue;
          const scos = scosOf(pkg);
          const listed = new Set(scos.map((sco) => sco.identifier));
          const mode = (courses.get(registration.courseTemplateId)?.scorm ?? DEFAULT_SCORM_SETTINGS).score_rollup_mode;
          tracking.set(registration.enrollmentId, rollUp(mode, scos.length, (states.get(registration.id) ?? []).filter((state) => listed.has(state.sco)), registration));
        }
        // A removed enrollment is left as it is: the attempt stays as history.
        await this.lifecycle.trackAll(scope, tracking);
      });
    }
  }

  /** The enrollment follows its latest attempt only: a superseded one's commits are kept, not rolled up. */
  private async applyToEnrollment(scope: TenantScope, registration: ScormRegistration, scos: PackageSco[], states: ScormScoState[]): Promise<void> {
    const [{ latest }]: { latest: number }[] = await this.db.manager.query(
      'SELECT max(id) AS latest FROM catalog.scorm_registrations WHERE account_id = $1 AND enrollment_id = $2',
      [scope.accountId, registration.enrollmentId],
    );
    if (Number(latest) !== registration.id) return;
    const course = await this.courses.findOne(scope, { id: registration.courseTemplateId });
    const mode = (course?.scorm ?? DEFAULT_SCORM_SETTINGS).score_rollup_mode;
    const enrollment = await this.enrollments.findOne(scope, { id: registration.enrollmentId });
    if (!enrollment || enrollment.deletedAt) return; // removed since: the attempt stays as history
    await this.lifecycle.track(scope, registration.enrollmentId, rollUp(mode, scos.length, states, registration));
  }

  /** The attempt's SCO rows of SCOs the package lists. */
  private async scoStatesOf(scope: TenantScope, registration: ScormRegistration, scos: PackageSco[]): Promise<ScormScoState[]> {
    const listed = new Set(scos.map((s) => s.identifier));
    return (await this.scoStates.find(scope, { where: { registrationId: registration.id } })).filter((s) => listed.has(s.sco));
  }

  /**
   * The caller's attempt, while its enrollment is live, its learner not deleted and its course served (published,
   * not archived) as a SCORM course (its published type): a player session outlives none of them (its credential is good for hours), so it serves no
   * file and takes no commit after them.
   */
  private async ownRegistration(ctx: RequestContext, id: number, lock?: RowLock): Promise<ScormRegistration> {
    const registration = await this.registrations.findOne(ctx, { id, userId: ctx.userId }, lock ? { lock } : {});
    if (!registration) throw registrationGone();
    const enrollment = await this.enrollments.findOne(ctx, { id: registration.enrollmentId });
    const course = await this.courses.findOne(ctx, { id: registration.courseTemplateId });
    if (!enrollment || enrollment.deletedAt || !course || !servedCourse(course) || publishedFacts(course).courseType !== 'scorm' || (await this.departed.has(ctx, ctx.userId))) throw registrationGone();
    return registration;
  }
}
