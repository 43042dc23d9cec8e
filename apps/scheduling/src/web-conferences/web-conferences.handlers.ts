import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import { envelope, type ListWebConferencesQuery, type LiveCourseParams, type RpcRequest, type SaveWebConferenceBody, WEB_CONFERENCE_SUBJECTS as S, type WebConferenceParams } from '@lms/contracts';
import { Handles, noContent, paged } from '@lms/platform';
import { toWebConferenceView, WebConferencesService } from './web-conferences.service.js';

const KEY = 'web_conferences';

@Controller()
export class WebConferencesHandlers {
  constructor(private readonly conferences: WebConferencesService) {}

  @Handles(S.list)
  async list(@Payload() { ctx, query }: RpcRequest<unknown, ListWebConferencesQuery>) {
    const [rows, total] = await this.conferences.list(ctx, query);
    return paged(envelope(KEY, rows), total);
  }

  @Handles(S.listOfCourse)
  async listOfCourse(@Payload() { ctx, params, query }: RpcRequest<unknown, ListWebConferencesQuery, LiveCourseParams>) {
    const [rows, total] = await this.conferences.list(ctx, query, params.live_course_id);
    return paged(envelope(KEY, rows), total);
  }

  @Handles(S.show)
  async show(@Payload() { ctx, params }: RpcRequest<unknown, object, WebConferenceParams>) {
    return envelope(KEY, [toWebConferenceView(await this.conferences.show(ctx, params.live_course_id, params.session_id))]);
  }

  @Handles(S.save)
  async save(@Payload() { ctx, params, body }: RpcRequest<SaveWebConferenceBody, object, WebConferenceParams>) {
    return envelope(KEY, [toWebConferenceView(await this.conferences.save(ctx, params.live_course_id, params.session_id, body.web_conference))]);
  }

  @Handles(S.delete)
  async delete(@Payload() { ctx, params }: RpcRequest<unknown, object, WebConferenceParams>) {
    await this.conferences.delete(ctx, params.live_course_id, params.session_id);
    return noContent();
  }
}
