import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import {
  asksForDeleted,
  COURSE_TEMPLATE_SUBJECTS as S,
  type CourseTemplateTitlesQuery,
  type CreateCourseTemplatesBody,
  envelope,
  type IdParams,
  type ListCourseTemplatesQuery,
  type PublishCourseTemplateBody,
  type RpcRequest,
  type ShowCourseTemplateQuery,
  type UpdateCourseTemplateBody,
} from '@lms/contracts';
import { Handles, noContent, paged, reply } from '@lms/platform';
import { CourseTemplateLifecycle } from './course-template-lifecycle.service.js';
import { CourseTemplateList } from './course-template-list.js';
import { CourseTemplatePresenter, SINGLE_RECORD } from './course-template.presenter.js';
import { ScormPlayerService } from '../scorm/scorm-player.service.js';
import { CourseTemplatesService } from './course-templates.service.js';

const KEY = 'course_templates';

@Controller()
export class CourseTemplatesHandlers {
  constructor(
    private readonly templates: CourseTemplatesService,
    private readonly lifecycle: CourseTemplateLifecycle,
    private readonly list: CourseTemplateList,
    private readonly presenter: CourseTemplatePresenter,
    private readonly scorm: ScormPlayerService,
  ) {}

  @Handles(S.list)
  async index(@Payload() { ctx, query }: RpcRequest<unknown, ListCourseTemplatesQuery>) {
    const [courses, total] = await this.list.page(ctx, query);
    const includes = new Set(query.includes ?? []);
    const views = await this.presenter.present(ctx, courses, {
      counts: includes.has('counts'),
      expiration: includes.has('expiration'),
      enrollmentProfiles: includes.has('enrollment_profiles'),
      programs: includes.has('programs'),
      deletedAt: asksForDeleted(query),
    });
    return paged(envelope(KEY, views), total);
  }

  @Handles(S.titles)
  async titles(@Payload() { ctx, query }: RpcRequest<unknown, CourseTemplateTitlesQuery>) {
    const [courses, total] = await this.list.titles(ctx, query);
    return paged(envelope(KEY, courses.map((c) => ({ id: String(c.id), title: c.title }))), total);
  }

  @Handles(S.show)
  async show(@Payload() { ctx, params, query }: RpcRequest<unknown, ShowCourseTemplateQuery, IdParams>) {
    const includes = new Set(query.includes ?? []);
    const course = await this.templates.find(ctx, params.id);
    return envelope(KEY, await this.presenter.present(ctx, [course], { ...SINGLE_RECORD, programs: includes.has('programs') }, includes.has('with_content')));
  }

  @Handles(S.create)
  async create(@Payload() { ctx, body }: RpcRequest<CreateCourseTemplatesBody>) {
    const courses = await this.templates.create(ctx, body.course_templates);
    return reply(envelope(KEY, await this.presenter.present(ctx, courses, { ...SINGLE_RECORD, programs: true })), { status: 201 });
  }

  @Handles(S.update)
  async update(@Payload() { ctx, params, body }: RpcRequest<UpdateCourseTemplateBody, object, IdParams>) {
    const course = await this.templates.update(ctx, params.id, body.course_template);
    return envelope(KEY, await this.presenter.present(ctx, [course], { ...SINGLE_RECORD, programs: true }));
  }

  @Handles(S.delete)
  async delete(@Payload() { ctx, params }: RpcRequest<unknown, object, IdParams>) {
    await this.lifecycle.archive(ctx, params.id);
    return noContent();
  }

  @Handles(S.restore)
  async restore(@Payload() { ctx, params }: RpcRequest<unknown, object, IdParams>) {
    const course = await this.lifecycle.restore(ctx, params.id);
    if (!course) return noContent();
    return envelope(KEY, await this.presenter.present(ctx, [course], SINGLE_RECORD));
  }

  @Handles(S.sync)
  async sync(@Payload() { ctx, params }: RpcRequest<unknown, object, IdParams>) {
    await this.lifecycle.sync(ctx, params.id);
    // The enrollments follow their stored SCORM registrations again (docs/scorm.md).
    await this.scorm.sync(ctx, params.id);
    return noContent();
  }

  @Handles(S.publish)
  async publish(@Payload() { ctx, params, body }: RpcRequest<PublishCourseTemplateBody, object, IdParams>) {
    const course = await this.lifecycle.publish(ctx, params.id, body);
    return envelope(KEY, await this.presenter.present(ctx, [course], SINGLE_RECORD));
  }
}
