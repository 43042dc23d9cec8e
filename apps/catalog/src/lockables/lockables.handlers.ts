import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import { DescribeLockableRequest, type DescribeLockableReply, LOCKABLES_DESCRIBE_SUBJECT, type RpcRequest } from '@lms/contracts';
import { InjectTenantRepository, type TenantRepository } from '@lms/platform';
import { IsNull } from 'typeorm';
import { Handles } from '@lms/platform';
import { AuthoringGuard } from '../authoring/authoring-guard.js';
import { CourseTemplate } from '../course-templates/course-template.entity.js';
import { Task } from '../tasks/task.entity.js';

/** `catalog.lockables.describe`: the locking service asks before it hands out a lock (one rule with the writes: AuthoringGuard). */
@Controller()
export class LockablesHandlers {
  constructor(
    private readonly guard: AuthoringGuard,
    @InjectTenantRepository(CourseTemplate) private readonly courses: TenantRepository<CourseTemplate>,
    @InjectTenantRepository(Task) private readonly tasks: TenantRepository<Task>,
  ) {}

  @Handles(LOCKABLES_DESCRIBE_SUBJECT, { body: DescribeLockableRequest })
  async describe(@Payload() { ctx, body }: RpcRequest<DescribeLockableRequest>): Promise<DescribeLockableReply> {
    const item = { type: body.lockable_type, id: body.lockable_id };
    const exists =
      item.type === 'CourseTemplate'
        ? (await this.courses.count(ctx, { id: item.id })) > 0
        : (await this.tasks.count(ctx, { id: item.id, deletedAt: IsNull() })) > 0;
    return { exists, canEdit: exists && (await this.guard.canEdit(ctx, item)) };
  }
}
