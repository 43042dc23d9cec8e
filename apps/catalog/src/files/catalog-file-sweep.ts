import { Inject, Injectable, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { UUID_PATTERN } from '@lms/contracts';
import { claimSweep, createFileStore, Database, type FileStore, fileSweepPolicy, inBatches, LOGGER, type Logger, MESSAGE_BUS, type MessageBus, PeriodicTask, queryResult, removeUnnamedFiles, RUNTIME, type Runtime } from '@lms/platform';

/**
 * A file younger than this is never swept here, whatever FILE_SWEEP_MIN_AGE_MS says: a package's files are
 * stored before its rows commit, and unpacking the largest package takes minutes, not a day.
 */
const MIN_AGE_MS = 86_400_000;

/** Unused packages deleted per statement: each takes its file rows with it, up to 20,000. */
const UNUSED_BATCH = 20;

/** `scorm/<package id>/<n>` (ScormService.upload) and `evidence/<account>/<enrollment>/<uuid>` (CheckpointsService). */
const PACKAGE_FILE = new RegExp(`^scorm/(${UUID_PATTERN})/[0-9]+$`);
const EVIDENCE_FILE = new RegExp(`^evidence/([0-9]+)/([0-9]+)/${UUID_PATTERN}$`);

/**
 * Removes the files catalog stored that no row names (docs/scorm.md "Packages"): those of a package whose
 * unpacking was killed before its rows committed, of a package nothing plays any more (its rows go first),
 * and an evidence file whose process died before recording it. Once per FILE_SWEEP_INTERVAL_MS for all
 * replicas (`claimSweep`); a failed upload removes its files itself.
 */
@Injectable()
export class CatalogFileSweep implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly files: FileStore;
  private readonly task: PeriodicTask;

  constructor(
    private readonly db: Database,
    @Inject(RUNTIME) runtime: Runtime,
    @Inject(MESSAGE_BUS) bus: MessageBus,
    @Inject(LOGGER) logger: Logger,
  ) {
    this.files = createFileStore(runtime.config, bus, { writer: true });
    const policy = fileSweepPolicy();
    this.task = new PeriodicTask('file sweep', Math.min(policy.intervalMs, 3_600_000), async () => {
      if (!(await claimSweep(db, 'files', policy.intervalMs))) return;
      logger.info(await this.sweep(new Date(Date.now() - Math.max(policy.minAgeMs, MIN_AGE_MS))), 'file sweep done');
    }, logger);
  }

  onApplicationBootstrap(): void {
    // At once too: the claim keeps it to once a FILE_SWEEP_INTERVAL_MS, and a replica restarted more often
    // than its first tick would otherwise never sweep.
    this.task.start({ now: true });
  }

  onModuleDestroy(): Promise<void> {
    return this.task.stop();
  }

  /**
   * Removes the packages nothing plays any more, made before `before`, then the package and evidence files
   * last written before `before` that no row names (a removed package's among them); answers how many of each.
   */
  async sweep(before: Date): Promise<{ unused: number; packages: number; evidence: number }> {
    const schema = `"${this.db.schema}"`;
    const unused = await this.removeUnusedPackages(before);
    const packages = await removeUnnamedFiles(this.files, 'scorm/', before, (keys) => {
      const ours = keys.flatMap((key) => {
        const packageId = PACKAGE_FILE.exec(key)?.[1];
        return packageId ? [{ key, packageId }] : [];
      });
      return this.unnamed(
        `SELECT k.key FROM unnest($1::text[], $2::uuid[]) AS k (key, package_id)
          WHERE NOT EXISTS (SELECT 1 FROM ${schema}.scorm_package_files f WHERE f.package_id = k.package_id AND f.file_key = k.key)`,
        [ours.map((f) => f.key), ours.map((f) => f.packageId)],
      );
    });
    const evidence = await removeUnnamedFiles(this.files, 'evidence/', before, (keys) => {
      const ours = keys.flatMap((key) => {
        const [, accountId, enrollmentId] = EVIDENCE_FILE.exec(key) ?? [];
        return accountId ? [{ key, accountId: Number(accountId), enrollmentId: Number(enrollmentId) }] : [];
      });
      return this.unnamed(
        `SELECT k.key FROM unnest($1::text[], $2::int[], $3::int[]) AS k (key, account_id, enrollment_id)
          WHERE NOT EXISTS (SELECT 1 FROM ${schema}.checkpoint_evidence e WHERE e.account_id = k.account_id AND e.enrollment_id = k.enrollment_id AND e.file_key = k.key)`,
        [ours.map((f) => f.key), ours.map((f) => f.accountId), ours.map((f) => f.enrollmentId)],
      );
    });
    return { unused, packages, evidence };
  }

  /**
   * Deletes the rows of packages no course plays (a deleted course's counts: it may be restored) and no
   * attempt keeps, with their file rows (cascade): a course's earlier packages, once their last attempt is
   * gone. Their files are then unnamed, and the file pass removes them.
   */
  private removeUnusedPackages(before: Date): Promise<number> {
    const schema = `"${this.db.schema}"`;
    return inBatches(UNUSED_BATCH, async () =>
      queryResult(
        await this.db.manager.query(
          `DELETE FROM ${schema}.scorm_packages WHERE id = ANY(ARRAY(
             SELECT p.id FROM ${schema}.scorm_packages p
              WHERE p.created_at < $1
                AND NOT EXISTS (SELECT 1 FROM ${schema}.course_templates c WHERE c.scorm_package_id = p.id)
                AND NOT EXISTS (SELECT 1 FROM ${schema}.scorm_registrations r WHERE r.package_id = p.id)
              LIMIT $2 FOR UPDATE SKIP LOCKED))`,
          [before, UNUSED_BATCH],
        ),
      ).count,
    );
  }

  private async unnamed(sql: string, params: unknown[]): Promise<string[]> {
    return ((await this.db.manager.query(sql, params)) as { key: string }[]).map((r) => r.key);
  }
}
