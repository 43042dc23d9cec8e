import { Injectable } from '@nestjs/common';
import type { RequestContext } from '@lms/contracts';
import { Database, DomainError, InjectTenantRepository, type TenantRepository } from '@lms/platform';
import { CourseTemplate } from '../course-templates/course-template.entity.js';
import { EnrollmentLifecycle } from '../enrollments/enrollment-lifecycle.service.js';
import { Enrollment } from '../enrollments/enrollment.entity.js';
import { ProgramGate } from '../programs/program-gate.js';
import { servedCourse, SlideResponsesService } from '../slide-responses/slide-responses.service.js';
import { publishedFacts } from './learner-course.views.js';

/**
 * The one way a learner completes their own course enrollment (docs/learner.md): `POST /api/learner/courses/:id/complete`
 * and an LTI content item's completion both come here, so both pass the program gate and take the quiz score.
 */
@Injectable()
export class CourseCompletion {
  constructor(
    private readonly db: Database,
    private readonly lifecycle: EnrollmentLifecycle,
    private readonly responses: SlideResponsesService,
    private readonly gate: ProgramGate,
    @InjectTenantRepository(CourseTemplate) private readonly courses: TenantRepository<CourseTemplate>,
  ) {}

  /**
   * Completes the caller's course enrollment (one not withdrawn) once; a completed one is answered as it is.
   * An open one completes only while its course is served to learners (published, not archived); else
   * `refused` says, in the caller's terms, why not (`null`: the enrollment is gone).
   */
  async complete(ctx: RequestContext, e: Enrollment, refused: (course: CourseTemplate | null) => DomainError): Promise<Enrollment> {
    if (e.state === 'complete') return e;
    // A course after an incomplete blocking checkpoint of the learner's programs cannot be done yet.
    await this.gate.assertStartable(ctx, e);
    return this.withScore(ctx, e, refused);
  }

  /**
   * A native course completes with the score of the learner's answers to its questions as published now (a
   * publish since the last answer may have added or dropped one), counted under the enrollment's row lock so
   * no answer lands between the count and the completion. A course without questions keeps the score it has,
   * and an enrollment a concurrent call completed keeps the score it completed with. The course is held FOR
   * SHARE first (the order a publish takes course and enrollments in): a publish, unpublish or archive waits for
   * the completion, so a publish with `re_enroll` finds it; one that committed first is seen here, and a course
   * unpublished or archived since the caller looked is not completed.
   */
  private async withScore(ctx: RequestContext, seen: Enrollment, refused: (course: CourseTemplate | null) => DomainError): Promise<Enrollment> {
    return this.db.transaction(async () => {
      const course = await this.courses.findOne(ctx, { id: seen.enrollableId }, { lock: 'share' });
      // Removed while the call waited for it: the caller's own 404, as any later call gets.
      const e = await this.lifecycle.lockLive(ctx, seen.id).catch((err: unknown) => Promise.reject(err instanceof DomainError && err.status === 404 ? refused(null) : err));
      if (e.state === 'complete') return e;
      if (!course || !servedCourse(course)) throw refused(course);
      const score = course && publishedFacts(course).courseType === 'native' ? await this.responses.quizScore(ctx, e.id, course.id) : undefined;
      return this.lifecycle.update(ctx, e.id, { state: 'complete', ...(score === undefined ? {} : { score }) });
    });
  }
}
