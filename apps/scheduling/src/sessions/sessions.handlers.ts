import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import {
  asksForDeleted,
  type CreateSessionsBody,
  envelope,
  type ListSessionsQuery,
  type LiveCourseParams,
  type RpcRequest,
  SESSION_SUBJECTS as S,
  type SessionParams,
  type UpdateSessionBody,
} from '@lms/contracts';
import { Handles, noContent, paged, reply } from '@lms/platform';
import { SessionPresenter } from './session.presenter.js';
import { SessionsService } from './sessions.service.js';

const KEY = 'sessions';

@Controller()
export class SessionsHandlers {
  constructor(
    private readonly sessions: SessionsService,
    private readonly presenter: SessionPresenter,
  ) {}

  @Handles(S.list)
  async index(@Payload() { ctx, params, query }: RpcRequest<unknown, ListSessionsQuery, LiveCourseParams>) {
    const [rows, total] = await this.sessions.page(ctx, params.live_course_id, query);
    return paged(envelope(KEY, await this.presenter.present(ctx, rows, asksForDeleted(query))), total);
  }

  @Handles(S.show)
  async show(@Payload() { ctx, params }: RpcRequest<unknown, object, SessionParams>) {
    return envelope(KEY, await this.presenter.present(ctx, [await this.sessions.find(ctx, params.live_course_id, params.id)]));
  }

  @Handles(S.create)
  async create(@Payload() { ctx, params, body }: RpcRequest<CreateSessionsBody, object, LiveCourseParams>) {
    const rows = await this.sessions.create(ctx, params.live_course_id, body);
    return reply(envelope(KEY, await this.presenter.present(ctx, rows)), { status: 201 });
  }

  @Handles(S.update)
  async update(@Payload() { ctx, params, body }: RpcRequest<UpdateSessionBody, object, SessionParams>) {
    return envelope(KEY, await this.presenter.present(ctx, [await this.sessions.update(ctx, params.live_course_id, params.id, body)]));
  }

  @Handles(S.delete)
  async delete(@Payload() { ctx, params }: RpcRequest<unknown, object, SessionParams>) {
    await this.sessions.delete(ctx, params.live_course_id, params.id);
    return noContent();
  }

  @Handles(S.conclude)
  async conclude(@Payload() { ctx, params }: RpcRequest<unknown, object, SessionParams>) {
    return envelope(KEY, await this.presenter.present(ctx, [await this.sessions.conclude(ctx, params.live_course_id, params.id)]));
  }

  @Handles(S.publish)
  async publish(@Payload() { ctx, params }: RpcRequest<unknown, object, SessionParams>) {
    return envelope(KEY, await this.presenter.present(ctx, [await this.sessions.publish(ctx, params.live_course_id, params.id)]));
  }

  @Handles(S.clone)
  async clone(@Payload() { ctx, params }: RpcRequest<unknown, object, SessionParams>) {
    const copy = await this.sessions.clone(ctx, params.live_course_id, params.id);
    return reply(envelope(KEY, await this.presenter.present(ctx, [copy])), { status: 201 });
  }
}
