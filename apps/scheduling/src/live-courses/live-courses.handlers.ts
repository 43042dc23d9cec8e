import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import {
  asksForDeleted,
  type CreateLiveCoursesBody,
  envelope,
  type IdParams,
  LIVE_COURSE_SUBJECTS as S,
  type ListLiveCoursesQuery,
  type RpcRequest,
  type ShowLiveCourseQuery,
  type UpdateLiveCourseBody,
} from '@lms/contracts';
import { Handles, noContent, paged, reply } from '@lms/platform';
import { LiveCoursePresenter } from './live-course.presenter.js';
import { SINGLE_RECORD } from './live-course.views.js';
import { LiveCoursesService } from './live-courses.service.js';

const KEY = 'live_courses';

@Controller()
export class LiveCoursesHandlers {
  constructor(
    private readonly courses: LiveCoursesService,
    private readonly presenter: LiveCoursePresenter,
  ) {}

  @Handles(S.list)
  async index(@Payload() { ctx, query }: RpcRequest<unknown, ListLiveCoursesQuery>) {
    const [courses, total] = await this.courses.page(ctx, query);
    const includes = new Set(query.includes ?? []);
    const views = await this.presenter.present(ctx, courses, {
      expiration: includes.has('expiration'),
      enrollmentProfiles: includes.has('enrollment_profiles'),
      enrollments: includes.has('enrollments'),
      deletedAt: asksForDeleted(query),
    });
    return paged(envelope(KEY, views), total);
  }

  @Handles(S.show)
  async show(@Payload() { ctx, params, query }: RpcRequest<unknown, ShowLiveCourseQuery, IdParams>) {
    const course = await this.courses.find(ctx, params.id);
    const enrollments = (query.includes ?? []).includes('enrollments');
    return envelope(KEY, await this.presenter.present(ctx, [course], { ...SINGLE_RECORD, enrollments }));
  }

  @Handles(S.create)
  async create(@Payload() { ctx, body }: RpcRequest<CreateLiveCoursesBody>) {
    const courses = await this.courses.create(ctx, body.live_courses);
    return reply(envelope(KEY, await this.presenter.present(ctx, courses, SINGLE_RECORD)), { status: 201 });
  }

  @Handles(S.update)
  async update(@Payload() { ctx, params, body }: RpcRequest<UpdateLiveCourseBody, object, IdParams>) {
    const course = await this.courses.update(ctx, params.id, body.live_course);
    return envelope(KEY, await this.presenter.present(ctx, [course], SINGLE_RECORD));
  }

  @Handles(S.delete)
  async delete(@Payload() { ctx, params }: RpcRequest<unknown, object, IdParams>) {
    await this.courses.delete(ctx, params.id);
    return noContent();
  }
}
