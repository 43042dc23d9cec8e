import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import { COURSE_REPORT_SUBJECTS as S, type CourseTemplateParams, envelope, type RpcRequest } from '@lms/contracts';
import { Handles } from '@lms/platform';
import { CourseReportsService } from './course-reports.service.js';

@Controller()
export class CourseReportsHandlers {
  constructor(private readonly reports: CourseReportsService) {}

  @Handles(S.list)
  async list(@Payload() { ctx, params }: RpcRequest<unknown, object, CourseTemplateParams>) {
    return envelope('reports', await this.reports.reports(ctx, params.course_template_id));
  }
}
