import { Injectable } from '@nestjs/common';
import { In } from 'typeorm';
import type { LiveCourseEnrollmentView, LiveCourseView, RequestContext } from '@lms/contracts';
import { Database, IdentityDirectory, InjectTenantRepository, type TenantRepository } from '@lms/platform';
import { LiveCourseEnrollment } from '../learners/live-course-enrollment.entity.js';
import type { LiveCourse } from './live-course.entity.js';
import { type LiveCourseFigures, type LiveCourseViewOptions, toEnrollmentView, toLiveCourseView } from './live-course.views.js';

/** Live course records with their counts read from the rows (one query for a whole page). */
@Injectable()
export class LiveCoursePresenter {
  constructor(
    private readonly db: Database,
    private readonly directory: IdentityDirectory,
    @InjectTenantRepository(LiveCourseEnrollment) private readonly enrollments: TenantRepository<LiveCourseEnrollment>,
  ) {}

  async present(ctx: RequestContext, courses: LiveCourse[], options: LiveCourseViewOptions): Promise<LiveCourseView[]> {
    if (courses.length === 0) return [];
    const ids = courses.map((c) => c.id);
    const figures = await this.figures(ctx.accountId, ids);
    let enrollments = new Map<number, LiveCourseEnrollmentView[]>();
    if (options.enrollments) {
      const rows = await this.enrollments.find(ctx, { where: { liveCourseId: In(ids) }, order: { id: 'ASC' } });
      const users = await this.directory.users(ctx, rows.map((r) => r.userId));
      enrollments = new Map(ids.map((id) => [id, []]));
      for (const row of rows) enrollments.get(row.liveCourseId)?.push(toEnrollmentView(row, users.get(row.userId)));
    }
    return courses.map((course) => toLiveCourseView(course, figures.get(course.id) ?? { sessions: 0, enrollments: 0, published: false }, options, enrollments.get(course.id)));
  }

  /** sessions_count counts sessions, not their parts; is_published is true once one of them is published. */
  private async figures(accountId: number, ids: number[]): Promise<Map<number, LiveCourseFigures>> {
    const rows: { id: number; sessions: number; enrollments: number; published: boolean }[] = await this.db.manager.query(
      `SELECT c.id,
              (SELECT count(*)::int FROM scheduling.sessions s WHERE s.account_id = c.account_id AND s.live_course_id = c.id AND s.parent_id IS NULL AND s.deleted_at IS NULL) AS sessions,
              (SELECT count(*)::int FROM scheduling.live_course_enrollments e WHERE e.account_id = c.account_id AND e.live_course_id = c.id) AS enrollments,
              EXISTS (SELECT 1 FROM scheduling.sessions s WHERE s.account_id = c.account_id AND s.live_course_id = c.id AND s.published_at IS NOT NULL AND s.deleted_at IS NULL) AS published
         FROM scheduling.live_courses c WHERE c.account_id = $1 AND c.id = ANY($2::int[])`,
      [accountId, ids],
    );
    return new Map(rows.map((r) => [r.id, { sessions: r.sessions, enrollments: r.enrollments, published: r.published }]));
  }
}
