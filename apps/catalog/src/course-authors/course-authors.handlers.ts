import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import {
  type AddCourseAuthorsBody,
  COURSE_AUTHOR_SUBJECTS as S,
  type CourseAuthorParams,
  type CourseTemplateParams,
  envelope,
  type ListCourseAuthorsQuery,
  type RpcRequest,
} from '@lms/contracts';
import { Handles, noContent, paged, reply } from '@lms/platform';
import { CourseAuthorsService } from './course-authors.service.js';

@Controller()
export class CourseAuthorsHandlers {
  constructor(private readonly authors: CourseAuthorsService) {}

  @Handles(S.list)
  async list(@Payload() { ctx, params, query }: RpcRequest<unknown, ListCourseAuthorsQuery, CourseTemplateParams>) {
    const [authors, total] = await this.authors.list(ctx, params.course_template_id, query);
    return paged(envelope('authors', authors), total);
  }

  @Handles(S.add)
  async add(@Payload() { ctx, params, body }: RpcRequest<AddCourseAuthorsBody, object, CourseTemplateParams>) {
    const added = await this.authors.add(ctx, params.course_template_id, body.users.map((u) => u.user_id));
    return reply(envelope('authors', added), { status: 201 });
  }

  @Handles(S.remove)
  async remove(@Payload() { ctx, params }: RpcRequest<unknown, object, CourseAuthorParams>) {
    await this.authors.remove(ctx, params.course_template_id, params.id);
    return noContent();
  }
}
