import { Injectable } from '@nestjs/common';
import type { ProgramEnrollmentEntry, RequestContext, SkippedEnrollmentView, SkippedProgramCourseView } from '@lms/contracts';
import { Database, InjectTenantRepository, type TenantRepository } from '@lms/platform';
import { CourseTemplate } from '../course-templates/course-template.entity.js';
import type { Enrollment } from '../enrollments/enrollment.entity.js';
import { EnrollmentsService } from '../enrollments/enrollments.service.js';
import { Program } from './program.entity.js';
import { programNotFound, programNotPublished } from './program.errors.js';
import { ProgramsService } from './programs.service.js';

export interface ProgramEnrollResult {
  created: Enrollment[];
  skipped: (SkippedEnrollmentView & { course_template_id: string })[];
  skippedCourses: SkippedProgramCourseView[];
}

/**
 * Enrolling users in a program enrolls them in each of its published courses, in program order, through
 * the enrollment feature's one way to enroll (so due dates, skips and events are the course's own), with
 * the program recorded on every enrollment. All courses or none: one transaction.
 */
@Injectable()
export class ProgramEnrollmentsService {
  constructor(
    private readonly db: Database,
    private readonly programs: ProgramsService,
    private readonly enrollments: EnrollmentsService,
    @InjectTenantRepository(Program) private readonly programRows: TenantRepository<Program>,
    @InjectTenantRepository(CourseTemplate) private readonly courses: TenantRepository<CourseTemplate>,
  ) {}

  async enroll(ctx: RequestContext, programId: number, entries: ProgramEnrollmentEntry[]): Promise<ProgramEnrollResult> {
    this.enrollments.assertMayManage(ctx);
    return this.db.transaction(async () => {
      // The program stays as it is (its course list too) until the enrollments commit.
      const program = await this.programRows.query(ctx, 'p').andWhere('p.id = :id AND p.deleted_at IS NULL', { id: programId }).setLock('pessimistic_read').getOne();
      if (!program) throw programNotFound(programId);
      if (!program.isPublished) throw programNotPublished(programId);
      const result: ProgramEnrollResult = { created: [], skipped: [], skippedCourses: [] };
      for (const courseId of await this.programs.courseIdsOf(ctx, programId)) {
        const course = await this.courses.findOne(ctx, { id: courseId });
        if (!course?.isPublished) {
          result.skippedCourses.push({ course_template_id: String(courseId), reason: 'not_published' });
          continue;
        }
        const { created, skipped } = await this.enrollments.enroll(ctx, courseId, entries.map((e) => ({ user_id: e.user_id, required: e.required, end_at: e.end_at })), { programId });
        result.created.push(...created);
        result.skipped.push(...skipped.map((s) => ({ ...s, course_template_id: String(courseId) })));
      }
      return result;
    });
  }
}
