import { Injectable } from '@nestjs/common';
import { In } from 'typeorm';
import { LIVE_COURSE_ENROLLMENT_CREATED_EVENT, type ListLiveCourseLearnersQuery, type LiveCourseEnrollmentView, pageWindow, type RequestContext } from '@lms/contracts';
import { Database, DepartedUsers, IdentityDirectory, InjectTenantRepository, Outbox, type TenantRepository } from '@lms/platform';
import { cannotEnroll, liveCourseEnrollmentNotFound } from '../live-courses/live-course.errors.js';
import { toEnrollmentView } from '../live-courses/live-course.views.js';
import { LiveCoursesService } from '../live-courses/live-courses.service.js';
import { enrollmentEventData, SeatRelease } from '../registrations/seat-release.js';
import { LiveCourseEnrollment } from './live-course-enrollment.entity.js';

/** Who takes part in a live course: only enrolled users register for its sessions. */
@Injectable()
export class LiveCourseLearnersService {
  constructor(
    private readonly db: Database,
    private readonly outbox: Outbox,
    private readonly courses: LiveCoursesService,
    private readonly directory: IdentityDirectory,
    private readonly seats: SeatRelease,
    private readonly departed: DepartedUsers,
    @InjectTenantRepository(LiveCourseEnrollment) private readonly enrollments: TenantRepository<LiveCourseEnrollment>,
  ) {}

  async list(ctx: RequestContext, courseId: number, query: ListLiveCourseLearnersQuery): Promise<[LiveCourseEnrollmentView[], number]> {
    await this.courses.find(ctx, courseId);
    const { skip, take } = pageWindow(query);
    const [rows, total] = await this.enrollments.findAndCount(ctx, { where: { liveCourseId: courseId }, order: { id: 'ASC' }, skip, take });
    const users = await this.directory.users(ctx, rows.map((r) => r.userId));
    return [rows.map((row) => toEnrollmentView(row, users.get(row.userId))), total];
  }

  /**
   * All or nothing: each user must exist, not be deleted, and not be enrolled already. A user deleted since
   * identity vouched for them is refused too (DepartedUsers: the deletion's withdrawal meets this insert).
   */
  async enroll(ctx: RequestContext, courseId: number, userIds: number[]): Promise<LiveCourseEnrollmentView[]> {
    const users = await this.directory.users(ctx, userIds);
    const rows = await this.db.transaction(async () => {
      // The users' departure locks before the course, the order the deletion's consumer takes them in.
      const departed = await this.departed.among(ctx, userIds);
      await this.courses.lock(ctx, courseId);
      const existing = new Set((await this.enrollments.find(ctx, { where: { liveCourseId: courseId, userId: In(userIds) } })).map((e) => e.userId));
      const seen = new Set<number>();
      for (const [i, userId] of userIds.entries()) {
        const user = users.get(userId);
        if (!user || user.deleted_at !== null || departed.has(userId)) throw cannotEnroll(userId, i, 'no such user');
        if (existing.has(userId) || seen.has(userId)) throw cannotEnroll(userId, i, 'the user is enrolled in this live course already');
        seen.add(userId);
      }
      const created: LiveCourseEnrollment[] = [];
      for (const userId of userIds) {
        const row = await this.enrollments.insert(ctx, { liveCourseId: courseId, userId });
        await this.outbox.add(ctx, LIVE_COURSE_ENROLLMENT_CREATED_EVENT, enrollmentEventData(row), String(courseId));
        created.push(row);
      }
      return created;
    });
    return rows.map((row) => toEnrollmentView(row, users.get(row.userId)));
  }

  /** Removes the enrollment with the user's registrations and waitlist places in the course's sessions; freed seats go to the waitlist. */
  async remove(ctx: RequestContext, courseId: number, enrollmentId: number): Promise<void> {
    await this.db.transaction(async () => {
      await this.courses.lock(ctx, courseId);
      // Locked before any session: a registration or waitlist place being taken holds the enrollment and
      // commits first, so the withdrawal sees it; one that starts later finds no enrollment.
      const row = await this.enrollments.findOne(ctx, { id: enrollmentId, liveCourseId: courseId }, { lock: 'update' });
      if (!row) throw liveCourseEnrollmentNotFound(courseId, enrollmentId);
      await this.seats.removeEnrollment(ctx, row);
    });
  }
}
