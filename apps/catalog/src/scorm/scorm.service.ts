import { randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { Inject, Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import { COURSE_TEMPLATE_UPDATED_EVENT, MARKET_IDS, type MarketId, type RequestContext, type UploadedFile } from '@lms/contracts';
import {
  badRequest,
  createFileStore,
  Database,
  type FileStore,
  InjectTenantRepository,
  isUniqueViolation,
  MESSAGE_BUS,
  type MessageBus,
  Outbox,
  RUNTIME,
  type Runtime,
  signPlayerToken,
  type TenantRepository,
} from '@lms/platform';
import { AuthoringGuard } from '../authoring/authoring-guard.js';
import { courseTemplateArchived, courseTemplateNotFound, courseTemplateNotScorm } from '../course-templates/course-template.errors.js';
import { CourseTemplate } from '../course-templates/course-template.entity.js';
import { courseTemplateEventData, DEFAULT_SCORM_SETTINGS } from '../course-templates/course-template.views.js';
import { Enrollment } from '../enrollments/enrollment.entity.js';
import { MarketItem } from '../markets/market.entity.js';
import { ProgramGate } from '../programs/program-gate.js';
import { learnerCourseNotFound } from '../learner-courses/learner-course.errors.js';
import { publishedFacts } from '../learner-courses/learner-course.views.js';
import { servedCourse } from '../slide-responses/slide-responses.service.js';
import { reuses } from './attempts.js';
import { PackageError, ScormPackageFile } from './package-reader.js';
import { ScormPackage, ScormRegistration } from './scorm-package.entity.js';

const invalidPackage = (detail: string) => badRequest('SCORM_PACKAGE_INVALID', `The SCORM package cannot be used: ${detail}.`);
const notLaunchable = (id: number, kinds: 'external' | 'scorm') =>
  badRequest('NOT_A_SCORM_ENROLLMENT', `Enrollment ${id} is not in a SCORM course with a package to play${kinds === 'external' ? ', nor in a third-party course' : ' (the mobile SCORM launch plays SCORM courses only)'}.`);

/** A zip bomb stops at this many times the upload limit, or this many files. */
const UNPACKED_FACTOR = 4;
const MAX_FILES = 20_000;

/** The working folder of one upload's unpacking, under the temporary folder. */
const WORK_FOLDER_PREFIX = 'lms-scorm-';

/** Removes the upload working folders under `parent` last changed before `before`; answers how many. */
export async function removeStaleWorkFolders(parent: string, before: number): Promise<number> {
  let removed = 0;
  for (const name of await readdir(parent)) {
    if (!name.startsWith(WORK_FOLDER_PREFIX)) continue;
    const path = join(parent, name);
    const changed = await stat(path).then((s) => s.mtimeMs, () => Infinity);
    if (changed >= before) continue;
    await rm(path, { recursive: true, force: true });
    removed += 1;
  }
  return removed;
}

/**
 * SCORM courses that play (issue 23; docs/scorm.md): packages checked and unpacked into the file store, and
 * the attempts (registrations) of an enrollment launched; the player's calls are ScormPlayerService's.
 */
@Injectable()
export class ScormService implements OnApplicationBootstrap {
  private readonly files: FileStore;
  private readonly uploads: FileStore;

  constructor(
    private readonly db: Database,
    private readonly outbox: Outbox,
    private readonly guard: AuthoringGuard,
    private readonly gate: ProgramGate,
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
   * Removes the working folders of uploads a killed catalog left in the temporary folder, whose `finally`
   * never ran: in Kubernetes that folder is a size-limited volume that outlives a container restart, so
   * each killed upload would leave up to UPLOAD_MAX_BYTES there until the pod is evicted. Only those an hour
   * old: a process sharing the folder (two on one machine) may be unpacking into its own.
   */
  onApplicationBootstrap(): void {
    void removeStaleWorkFolders(tmpdir(), Date.now() - 3_600_000).catch((err: unknown) => this.runtime.logger.warn({ err }, 'could not remove old SCORM working folders'));
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
    const folder = await mkdtemp(join(tmpdir(), WORK_FOLDER_PREFIX));
    try {
      // yauzl reads the central directory at the end of the zip: a local copy gives it random access.
      const zipPath = join(folder, 'package.zip');
      const opened = await this.uploads.open(upload.key);
      if (!opened) throw invalidPackage('the upload is gone');
      await pipeline(opened.stream, createWriteStream(zipPath));
      const refused = (err: unknown) => {
        throw err instanceof PackageError ? invalidPackage(err.message) : err;
      };
      const pkg = await ScormPackageFile.read(zipPath, { maxEntries: MAX_FILES, maxBytes: this.runtime.config.uploadMaxBytes * UNPACKED_FACTOR }).catch(refused);
      const rows: { path: string; key: string; size: number }[] = [];
      await pkg.extract(async (index, entry, stream) => {
        const key = `scorm/${packageId}/${index}`;
        stored.push(key);
        const file = await this.files.put(key, stream);
        rows.push({ path: entry.path, key, size: file.size });
      }).catch(refused);
      const launch = pkg.manifest.scos[0];
      return await this.db.transaction(async (manager) => {
        const locked = await this.courses.findOne(ctx, { id: courseId }, { lock: 'no key update' });
        if (!locked) throw courseTemplateNotFound(courseId);
        // Archived while the package unpacked: answered as an upload sent after the archive is.
        if (locked.deletedAt) throw courseTemplateArchived(courseId);
        if (locked.courseType !== 'scorm') throw courseTemplateNotScorm(courseId);
        await this.packages.insert(ctx, {
          id: packageId,
          courseTemplateId: courseId,
          version: pkg.manifest.version,
          title: pkg.manifest.title,
          launchHref: launch.href,
          launchSco: launch.identifier,
          scos: pkg.manifest.scos,
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
   * The player URL of the caller's enrollment in a SCORM course, on the attempt the course's
   * `registration_instancing_option` picks (docs/scorm.md): `never` keeps the enrollment's one attempt,
   * `once_per_completion` starts a new one after a completed one, `every_launch` starts a new one on every
   * launch (an attempt nobody committed to yet is reused). A new attempt plays the course's current package.
   */
  async launchUrl(ctx: RequestContext, enrollmentId: number, kinds: 'external' | 'scorm' = 'external'): Promise<{ url: string; playerLaunchType: string }> {
    const enrollment = await this.enrollments.findOne(ctx, { id: enrollmentId, userId: ctx.userId, enrollableType: 'CourseTemplate' });
    if (!enrollment || enrollment.deletedAt) throw learnerCourseNotFound(enrollmentId);
    const course = await this.courses.findOne(ctx, { id: enrollment.enrollableId });
    // A course taken away from learners (unpublished, archived) plays for nobody, as its slides show to nobody.
    if (!course || !servedCourse(course)) throw learnerCourseNotFound(enrollmentId);
    // Its type as last published, as learners see it: a draft change of type plays nothing before a publish.
    const courseType = publishedFacts(course).courseType;
    const market = kinds === 'external' ? MARKET_IDS.find((id) => id === courseType) : undefined;
    if (!market && (courseType !== 'scorm' || !course.scormPackageId)) throw notLaunchable(enrollmentId, kinds);
    // Behind an incomplete blocking checkpoint of the learner's programs: not startable (a completed course still replays).
    await this.gate.assertStartable(ctx, enrollment);
    if (market) return { url: await this.vendorUrl(enrollmentId, market, course.thirdPartyCourseId), playerLaunchType: 'new_window' };
    const settings = course.scorm ?? DEFAULT_SCORM_SETTINGS;
    const attempt = () =>
      this.db.undoable(async () => {
        // The latest attempt, locked: two launches at once take turns, and a commit to it waits.
        const latest = await this.registrations
          .query(ctx, 'r')
          .andWhere('r.enrollment_id = :enrollmentId', { enrollmentId })
          .orderBy('r.id', 'DESC')
          .limit(1)
          .setLock('pessimistic_write')
          .getOne();
        if (latest && reuses(settings.registration_instancing_option, latest)) return latest;
        if (latest && !latest.completedAt && !latest.supersededAt) await this.registrations.update(ctx, { id: latest.id }, { supersededAt: new Date() });
        return this.registrations.insert(ctx, { enrollmentId, userId: ctx.userId, courseTemplateId: course.id, packageId: course.scormPackageId! });
      });
    // A concurrent first launch made the open attempt between our read and insert: the second try takes it.
    const registration = await attempt().catch((err: unknown) => (isUniqueViolation(err) ? attempt() : Promise.reject(err)));
    const token = signPlayerToken(this.runtime.config.fileUrlSigningKey, { kind: 'launch', accountId: ctx.accountId, userId: ctx.userId, registrationId: registration.id, packageId: registration.packageId });
    return { url: `/scorm/launch/${token}`, playerLaunchType: settings.player_launch_type };
  }

  /** A third-party course plays at its vendor: the launch URL its market item has (docs/catalog.md "Content markets"). */
  private async vendorUrl(enrollmentId: number, market: MarketId, itemId: string | null): Promise<string> {
    const item = itemId === null ? null : await this.db.manager.getRepository(MarketItem).findOne({ where: { marketId: market, id: itemId } });
    if (!item?.launchUrl) throw badRequest('NO_LAUNCH_URL', `Enrollment ${enrollmentId} is in a ${market} course whose market gives no launch URL.`);
    return item.launchUrl;
  }
}
