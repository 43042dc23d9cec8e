import { randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { Inject, Injectable } from '@nestjs/common';
import { COURSE_TEMPLATE_UPDATED_EVENT, type PlayerFile, type PlayerState, type RequestContext, type UploadedFile } from '@lms/contracts';
import {
  badRequest,
  createFileStore,
  Database,
  type FileStore,
  IdentityDirectory,
  InjectTenantRepository,
  MESSAGE_BUS,
  notFound,
  type MessageBus,
  Outbox,
  RUNTIME,
  type Runtime,
  signPlayerToken,
  type TenantRepository,
  type TenantScope,
} from '@lms/platform';
import { AuthoringGuard } from '../authoring/authoring-guard.js';
import { courseTemplateArchived, courseTemplateNotFound, courseTemplateNotScorm } from '../course-templates/course-template.errors.js';
import { CourseTemplate } from '../course-templates/course-template.entity.js';
import { courseTemplateEventData, DEFAULT_SCORM_SETTINGS } from '../course-templates/course-template.views.js';
import { EnrollmentLifecycle } from '../enrollments/enrollment-lifecycle.service.js';
import { ProgramGate } from '../programs/program-gate.js';
import { Enrollment } from '../enrollments/enrollment.entity.js';
import { learnerCourseNotFound } from '../learner-courses/learner-course.errors.js';
import { contentTypeOf } from './content-types.js';
import { PackageError, ScormPackageFile } from './package-reader.js';
import { cmiTree, resumeOf, rollUp, trackingOf } from './rollup.js';
import { ScormPackage, ScormRegistration } from './scorm-package.entity.js';

const invalidPackage = (detail: string) => badRequest('SCORM_PACKAGE_INVALID', `The SCORM package cannot be used: ${detail}.`);
const notLaunchable = (id: number) => badRequest('NOT_A_SCORM_ENROLLMENT', `Enrollment ${id} is not in a SCORM course with a package to play.`);
const registrationGone = () => notFound('SCORM_REGISTRATION_NOT_FOUND', 'This SCORM attempt does not exist any more.');
const fileNotInPackage = () => notFound('SCORM_FILE_NOT_FOUND', 'The package has no such file.');

/** A zip bomb stops at this many times the upload limit, or this many files. */
const UNPACKED_FACTOR = 4;
const MAX_FILES = 20_000;

/**
 * SCORM courses that play (issue 23; docs/scorm.md): packages checked and unpacked into the file store, one
 * registration per attempt of an enrollment, the runtime's commits stored and rolled up into the enrollment.
 */
@Injectable()
export class ScormService {
  private readonly files: FileStore;
  private readonly uploads: FileStore;

  constructor(
    private readonly db: Database,
    private readonly outbox: Outbox,
    private readonly guard: AuthoringGuard,
    private readonly lifecycle: EnrollmentLifecycle,
    private readonly gate: ProgramGate,
    private readonly directory: IdentityDirectory,
    @Inject(RUNTIME) private readonly runtime: Runtime,
    @Inject(MESSAGE_BUS) bus: MessageBus,
    @InjectTenantRepository(CourseTemplate) private readonly courses: TenantRepository<CourseTemplate>,
    @InjectTenantRepository(ScormPackage) private readonly packages: TenantRepository<ScormPackage>,
    @InjectTenantRepository(ScormRegistration) private readonly registrations: TenantRepository<ScormRegistration>,
    @InjectTenantRepository(Enrollment) private readonly enrollments: TenantRepository<Enrollment>,
  ) {
    this.files = createFileStore(runtime.config, bus, { writer: true });
    this.uploads = createFileStore(runtime.config, bus, { writer: false, bucket: 'UPLOADS' });
  }

  /**
   * Checks and unpacks an uploaded package, then makes it the course's: new attempts play it, open ones
   * keep theirs. A package that fails any check changes nothing (its files are removed again).
   */
  async upload(ctx: RequestContext, courseId: number, upload: UploadedFile): Promise<CourseTemplate> {
    const course = await this.courses.findOne(ctx, { id: courseId });
    if (!course) throw courseTemplateNotFound(courseId);
    if (course.deletedAt) throw courseTemplateArchived(courseId);
    if (course.courseType !== 'scorm') throw courseTemplateNotScorm(courseId);
    await this.guard.assertCanWrite(ctx, { type: 'CourseTemplate', id: courseId });

    const packageId = randomUUID();
    const stored: string[] = [];
    const folder = await mkdtemp(join(tmpdir(), 'lms-scorm-'));
    try {
      // yauzl reads the central directory at the end of the zip: a local copy gives it random access.
      const zipPath = join(folder, 'package.zip');
      const opened = await this.uploads.open(upload.key);
      if (!opened) throw invalidPackage('the upload is gone');
      await pipeline(opened.stream, createWriteStream(zipPath));
      const pkg = await ScormPackageFile.read(zipPath, { maxEntries: MAX_FILES, maxBytes: this.runtime.config.uploadMaxBytes * UNPACKED_FACTOR }).catch((err: unknown) => {
        throw err instanceof PackageError ? invalidPackage(err.message) : err;
      });
      const rows: { path: string; key: string; size: number }[] = [];
      await pkg.extract(async (index, entry, stream) => {
        const key = `scorm/${packageId}/${index}`;
        stored.push(key);
        const file = await this.files.put(key, stream);
        rows.push({ path: entry.path, key, size: file.size });
      });
      const launch = pkg.manifest.scos[0];
      return await this.db.transaction(async (manager) => {
        const locked = await this.courses.query(ctx, 'c').andWhere('c.id = :id', { id: courseId }).setLock('pessimistic_write').getOne();
        if (!locked || locked.deletedAt) throw courseTemplateNotFound(courseId);
        if (locked.courseType !== 'scorm') throw courseTemplateNotScorm(courseId);
        await this.packages.insert(ctx, {
          id: packageId,
          courseTemplateId: courseId,
          version: pkg.manifest.version,
          title: pkg.manifest.title,
          launchHref: launch.href,
          launchSco: launch.identifier,
          filesCount: rows.length,
          size: upload.size,
          createdBy: ctx.userId,
        });
        await manager.query(
          `INSERT INTO catalog.scorm_package_files (package_id, path, file_key, size)
           SELECT $1, path, key, size FROM unnest($2::text[], $3::text[], $4::bigint[]) AS f(path, key, size)`,
          [packageId, rows.map((r) => r.path), rows.map((r) => r.key), rows.map((r) => r.size)],
        );
        locked.scormPackageId = packageId;
        locked.hasUnpublishedChanges = true;
        const saved = await this.courses.save(ctx, locked);
        await this.outbox.add(ctx, COURSE_TEMPLATE_UPDATED_EVENT, courseTemplateEventData(saved), String(saved.id));
        stored.length = 0; // kept: the package is the course's now
        return saved;
      });
    } finally {
      await rm(folder, { recursive: true, force: true });
      for (const key of stored) await this.files.delete(key).catch(() => undefined);
    }
  }

  /**
   * The player URL of the caller's enrollment in a SCORM course: its open registration, or a new one on
   * the course's current package (a completed enrollment replays its last attempt).
   */
  async launchUrl(ctx: RequestContext, enrollmentId: number): Promise<string> {
    const enrollment = await this.enrollments.findOne(ctx, { id: enrollmentId, userId: ctx.userId, enrollableType: 'CourseTemplate' });
    if (!enrollment || enrollment.deletedAt) throw learnerCourseNotFound(enrollmentId);
    const course = await this.courses.findOne(ctx, { id: enrollment.enrollableId });
    if (!course || course.courseType !== 'scorm' || !course.scormPackageId) throw notLaunchable(enrollmentId);
    // Behind an incomplete blocking checkpoint of the learner's programs: not startable (a completed course still replays).
    if (enrollment.state !== 'complete') await this.gate.assertOpen(ctx, ctx.userId, { type: 'CourseTemplate', id: course.id });
    const packageId = course.scormPackageId;
    const registration = await this.db.transaction(async () => {
      const [open] = await this.registrations.find(ctx, { where: { enrollmentId }, order: { id: 'DESC' }, take: 1 });
      if (open && (!open.completedAt || enrollment.state === 'complete')) return open;
      return this.registrations.insert(ctx, { enrollmentId, userId: ctx.userId, courseTemplateId: course.id, packageId });
    });
    const token = signPlayerToken(this.runtime.config.fileUrlSigningKey, { kind: 'launch', accountId: ctx.accountId, userId: ctx.userId, registrationId: registration.id, packageId: registration.packageId });
    return `/scorm/launch/${token}`;
  }

  /** What the player page starts from: the package's launch SCO, and the attempt's saved data to resume. */
  async playerState(ctx: RequestContext, registrationId: number): Promise<PlayerState> {
    const registration = await this.ownRegistration(ctx, registrationId);
    const pkg = await this.packages.findOne(ctx, { id: registration.packageId });
    if (!pkg) throw registrationGone();
    const name = (await this.directory.users(ctx, [ctx.userId])).get(ctx.userId)?.name ?? '';
    return { version: pkg.version, launch_href: pkg.launchHref, cmi: resumeOf(pkg.version, registration.cmi), learner: { id: String(ctx.userId), name } };
  }

  /** Where a file of the attempt's package is; only files of that package exist for it. */
  async playerFile(ctx: RequestContext, registrationId: number, path: string): Promise<PlayerFile> {
    const registration = await this.ownRegistration(ctx, registrationId);
    const [row]: { file_key: string; size: string }[] = await this.db.manager.query(
      'SELECT file_key, size FROM catalog.scorm_package_files WHERE package_id = $1 AND path = $2',
      [registration.packageId, path],
    );
    if (!row) throw fileNotInPackage();
    return { file_key: row.file_key, size: Number(row.size), content_type: contentTypeOf(path) };
  }

  /**
   * A runtime commit: the CMI data as the SCO left it. A commit is the whole state, so a retried one
   * changes nothing; the enrollment follows (started, progress, score, complete once).
   */
  async commit(ctx: RequestContext, registrationId: number, committed: Record<string, unknown>): Promise<void> {
    await this.db.transaction(async () => {
      const registration = await this.registrations
        .query(ctx, 'r')
        .andWhere('r.id = :id AND r.user_id = :userId', { id: registrationId, userId: ctx.userId })
        .setLock('pessimistic_write')
        .getOne();
      if (!registration) throw registrationGone();
      const pkg = await this.packages.findOne(ctx, { id: registration.packageId });
      if (!pkg) throw registrationGone();
      const tree = cmiTree(committed);
      const tracking = trackingOf(pkg.version, tree);
      Object.assign(registration, {
        cmi: tree,
        completionStatus: tracking.completionStatus,
        successStatus: tracking.successStatus,
        score: tracking.score,
        progress: tracking.progress,
        commits: registration.commits + 1,
        completedAt: registration.completedAt ?? (tracking.complete ? new Date() : null),
        updatedAt: new Date(),
      });
      await this.registrations.save(ctx, registration);
      await this.applyToEnrollment(ctx, registration);
    });
  }

  /**
   * `POST .../sync`: every enrollment of the course is derived again from its latest registration (after a
   * change of the rollup mode, or a repair). Running it twice changes nothing the second time.
   */
  async sync(scope: TenantScope, courseId: number): Promise<void> {
    const latest: { id: number }[] = await this.db.manager.query(
      `SELECT DISTINCT ON (enrollment_id) id FROM catalog.scorm_registrations
        WHERE account_id = $1 AND course_template_id = $2 ORDER BY enrollment_id, id DESC`,
      [scope.accountId, courseId],
    );
    for (const { id } of latest) {
      await this.db.transaction(async () => {
        const registration = await this.registrations.findOne(scope, { id });
        if (registration) await this.applyToEnrollment(scope, registration);
      });
    }
  }

  private async applyToEnrollment(scope: TenantScope, registration: ScormRegistration): Promise<void> {
    const course = await this.courses.findOne(scope, { id: registration.courseTemplateId });
    const mode = (course?.scorm ?? DEFAULT_SCORM_SETTINGS).score_rollup_mode;
    const enrollment = await this.enrollments.findOne(scope, { id: registration.enrollmentId });
    if (!enrollment || enrollment.deletedAt) return; // removed since: the attempt stays as history
    await this.lifecycle.track(scope, registration.enrollmentId, rollUp(mode, registration));
  }

  private async ownRegistration(ctx: RequestContext, id: number): Promise<ScormRegistration> {
    const registration = await this.registrations.findOne(ctx, { id, userId: ctx.userId });
    return registration ?? Promise.reject(registrationGone());
  }
}
