import { Injectable } from '@nestjs/common';
import type { LockableType, RequestContext } from '@lms/contracts';
import { notAnAuthor } from '../course-templates/course-template.errors.js';
import { LockFence } from './lock-fence.js';

export interface AuthoringItem {
  type: LockableType;
  id: number;
}

/**
 * The one gate every authoring write passes (template fields, slides, authors, publish, tasks): the caller
 * must be allowed to edit the item. It is also where the locking service's fence plugs in (issue 9): a
 * write must then also hold the item's live lock, else 409 naming the holder. `canEdit` answers
 * `catalog.lockables.describe` too, so locks and writes use one rule.
 */
@Injectable()
export class AuthoringGuard {
  constructor(private readonly fence: LockFence) {}

  /**
   * Administrators and authors of the account edit its courses and tasks (the author audience, as the
   * route matrix checks it); the item must exist in the account, which the callers have checked.
   */
  async canEdit(ctx: RequestContext, _item: AuthoringItem): Promise<boolean> {
    return ctx.roles.includes('admin') || ctx.roles.includes('author');
  }

  async assertCanWrite(ctx: RequestContext, item: AuthoringItem): Promise<void> {
    if (!(await this.canEdit(ctx, item))) throw notAnAuthor(item.type === 'CourseTemplate' ? 'course template' : 'task', item.id);
    await this.fence.assertMayWrite(ctx, item);
  }
}
