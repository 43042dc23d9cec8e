import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import { type CreateTasksBody, envelope, type IdParams, type ListTasksQuery, type RpcRequest, TASK_SUBJECTS as S, type UpdateTaskBody } from '@lms/contracts';
import { Handles, noContent, paged, reply } from '@lms/platform';
import { TasksService } from './tasks.service.js';

@Controller()
export class TasksHandlers {
  constructor(private readonly tasks: TasksService) {}

  @Handles(S.list)
  async list(@Payload() { ctx, query }: RpcRequest<unknown, ListTasksQuery>) {
    const [tasks, total] = await this.tasks.list(ctx, query);
    return paged(envelope('tasks', await this.tasks.present(ctx, tasks)), total);
  }

  @Handles(S.show)
  async show(@Payload() { ctx, params }: RpcRequest<unknown, object, IdParams>) {
    return envelope('tasks', await this.tasks.present(ctx, [await this.tasks.find(ctx, params.id)]));
  }

  @Handles(S.create)
  async create(@Payload() { ctx, body }: RpcRequest<CreateTasksBody>) {
    return reply(envelope('tasks', await this.tasks.present(ctx, await this.tasks.create(ctx, body.tasks))), { status: 201 });
  }

  @Handles(S.update)
  async update(@Payload() { ctx, params, body }: RpcRequest<UpdateTaskBody, object, IdParams>) {
    return envelope('tasks', await this.tasks.present(ctx, [await this.tasks.update(ctx, params.id, body.task)]));
  }

  @Handles(S.delete)
  async delete(@Payload() { ctx, params }: RpcRequest<unknown, object, IdParams>) {
    await this.tasks.delete(ctx, params.id);
    return noContent();
  }

  /** Spec: 200 (not 201) with `tasks` holding the copy. */
  @Handles(S.clone)
  async clone(@Payload() { ctx, params }: RpcRequest<unknown, object, IdParams>) {
    return envelope('tasks', await this.tasks.present(ctx, [await this.tasks.clone(ctx, params.id)]));
  }
}
