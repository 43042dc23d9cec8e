import { Injectable } from '@nestjs/common';
import type { LockableType, RequestContext } from '@lms/contracts';
import { InjectTenantRepository, type TenantRepository } from '@lms/platform';
import { CourseAuthor } from '../course-authors/course-author.entity.js';
import { notAnAuthor } from '../course-templates/course-template.errors.js';
import { Task } from '../tasks/task.entity.js';
import { LockFence } from './lock-fence.js';

export interface AuthoringItem {
  type: LockableType;
  id: number;
}

/**
 * The one gate every authoring write passes (template fields, slides, authors, publish, archive, tasks):
 * the caller must be allowed to edit the item. It is also where the locking service's fence plugs in
 * (issue 9): a write must then also hold the item's live lock, else 409 naming the holder. `canEdit`
 * answers `catalog.lockables.describe` too, so locks and writes follow one rule.
 */
@Injectable()
export class AuthoringGuard {
  constructor(
    private readonly fence: LockFence,
    @InjectTenantRepository(CourseAuthor) private readonly courseAuthors: TenantRepository<CourseAuthor>,
    @InjectTenantRepository(Task) private readonly tasks: TenantRepository<Task>,
  ) {}

  /**
   * An administrator edits every course and task of the account; an author the courses they are an
   * author of and the tasks they created (issue 9). Every author of the account still reads them all.
   * The item must exist in the account, which the callers have checked.
   */
  async canEdit(ctx: RequestContext, item: AuthoringItem): Promise<boolean> {
    if (ctx.roles.includes('admin')) return true;
    if (!ctx.roles.includes('author')) return false;
    return item.type === 'CourseTemplate'
      ? (await this.courseAuthors.count(ctx, { courseTemplateId: item.id, userId: ctx.userId })) > 0
      : (await this.tasks.count(ctx, { id: item.id, authorId: ctx.userId })) > 0;
  }

  async assertCanWrite(ctx: RequestContext, item: AuthoringItem): Promise<void> {
    if (!(await this.canEdit(ctx, item))) throw notAnAuthor(item.type === 'CourseTemplate' ? 'course template' : 'task', item.id);
    await this.fence.assertMayWrite(ctx, item);
  }
}
