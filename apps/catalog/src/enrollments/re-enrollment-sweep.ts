import { Inject, Injectable, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { Any } from 'typeorm';
import { Database, InjectTenantRepository, LOGGER, type Logger, PeriodicTask, RUNTIME, type Runtime, type TenantRepository } from '@lms/platform';
import { CourseTemplate } from '../course-templates/course-template.entity.js';
import { lastPublishedSql } from '../course-templates/course-template.views.js';
import { Enrollment } from './enrollment.entity.js';
import { PublishEnrollments } from './publish-enrollments.service.js';

/** Enrollments one sweep transaction takes at most; the sweep repeats until none is due. */
const BATCH = 200;

interface DueRow {
  id: number;
  account_id: number;
  enrollable_id: number;
}

/**
 * Automatic re-enrollment: a completion of a course with `auto_re_enroll` gets a new attempt
 * `re_enrollment_period` days before it expires (at expiry when the period is 0 or unset), both as last
 * published. Every catalog replica sweeps on a timer, like the outbox relay: due enrollments are claimed `FOR UPDATE SKIP LOCKED`,
 * so replicas share the work and one enrollment is re-enrolled once (the claimed row is retired in the
 * claiming transaction; the others skip it while it is locked and no longer see it after).
 */
@Injectable()
export class ReEnrollmentSweep implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly task: PeriodicTask;

  constructor(
    private readonly db: Database,
    private readonly publish: PublishEnrollments,
    @Inject(RUNTIME) runtime: Runtime,
    @Inject(LOGGER) logger: Logger,
    @InjectTenantRepository(Enrollment) private readonly enrollments: TenantRepository<Enrollment>,
    @InjectTenantRepository(CourseTemplate) private readonly courses: TenantRepository<CourseTemplate>,
  ) {
    this.task = new PeriodicTask('re-enrollment sweep', runtime.config.enrollmentSweepIntervalMs, async () => {
      const count = await this.sweep();
      if (count > 0) logger.info({ count }, 'expiring completions re-enrolled');
    }, logger);
  }

  onApplicationBootstrap(): void {
    this.task.start();
  }

  onModuleDestroy(): Promise<void> {
    return this.task.stop();
  }

  /** Re-enrolls every due completion, batch after batch; answers how many. */
  async sweep(): Promise<number> {
    let total = 0;
    for (;;) {
      const count = await this.sweepBatch();
      total += count;
      if (count < BATCH) return total;
    }
  }

  private sweepBatch(): Promise<number> {
    return this.db.transaction(async (manager) => {
      // Across accounts by nature (a system task, not a request): each claimed row is then handled in its own account's scope.
      const due: DueRow[] = await manager.query(
        `SELECT e.id, e.account_id, e.enrollable_id
           FROM catalog.enrollments e
           JOIN catalog.course_templates c ON c.id = e.enrollable_id AND c.account_id = e.account_id
          WHERE e.enrollable_type = 'CourseTemplate' AND e.deleted_at IS NULL AND e.state = 'complete'
            AND e.expires_at IS NOT NULL AND ${lastPublishedSql('c', 'auto_re_enroll', 'boolean')} AND c.deleted_at IS NULL
            AND e.expires_at - make_interval(days => coalesce(${lastPublishedSql('c', 're_enrollment_period', 'integer')}, 0)) <= now()
            -- A deleted learner's completion is history: no new attempt (DepartedUsers).
            AND NOT EXISTS (SELECT 1 FROM catalog.departed_users d WHERE d.account_id = e.account_id AND d.user_id = e.user_id)
          ORDER BY e.expires_at, e.id
          LIMIT $1
          FOR UPDATE OF e SKIP LOCKED`,
        [BATCH],
      );
      // Each course's claimed completions get their new attempts together, in the order claimed: a few statements
      // a course, not a few an enrollment (a batch of 200 took a second, 20,000 due at once 99 s).
      const byCourse = new Map<string, DueRow[]>();
      for (const row of due) {
        const key = `${row.account_id}:${row.enrollable_id}`;
        byCourse.set(key, [...(byCourse.get(key) ?? []), row]);
      }
      for (const rows of byCourse.values()) {
        const scope = { accountId: rows[0].account_id };
        const [found, course] = await Promise.all([this.enrollments.find(scope, { where: { id: Any(rows.map((r) => r.id)) } }), this.courses.findOne(scope, { id: rows[0].enrollable_id })]);
        const byId = new Map(found.map((e) => [e.id, e]));
        const enrollments = rows.flatMap((r) => byId.get(r.id) ?? []);
        if (course && enrollments.length > 0) await this.publish.newAttempts(scope, course, enrollments);
      }
      return due.length;
    });
  }
}
