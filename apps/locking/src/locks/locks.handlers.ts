import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import {
  CheckLockRequest,
  type CheckLockReply,
  type IdParams,
  LOCK_ID_HEADER,
  LOCK_SUBJECTS,
  type LockableType,
  LOCKS_CHECK_SUBJECT,
  type RpcRequest,
} from '@lms/contracts';
import { Handles, noContent, type Reply } from '@lms/platform';
import { LocksService } from './locks.service.js';

type LockRequest = RpcRequest<unknown, Record<string, unknown>, IdParams>;

const lockIdHeader = (request: RpcRequest<unknown, unknown, unknown>): string | undefined => request.headers?.[LOCK_ID_HEADER];

/** Spec "Locks (author)" for one kind of lockable: the same four methods on course templates and tasks. */
abstract class LockHandlers {
  protected abstract readonly type: LockableType;

  constructor(protected readonly locks: LocksService) {}

  protected async showLock({ ctx, params }: LockRequest) {
    return { lock: await this.locks.show(ctx, { type: this.type, id: params.id }) };
  }

  protected async acquireLock({ ctx, params }: LockRequest) {
    return { lock: await this.locks.acquire(ctx, { type: this.type, id: params.id }) };
  }

  protected async renewLock(request: LockRequest): Promise<Reply> {
    await this.locks.renew(request.ctx, { type: this.type, id: request.params.id }, lockIdHeader(request));
    return noContent();
  }

  protected async releaseLock(request: LockRequest): Promise<Reply> {
    await this.locks.release(request.ctx, { type: this.type, id: request.params.id }, lockIdHeader(request));
    return noContent();
  }
}

const C = LOCK_SUBJECTS.courseTemplate;
const T = LOCK_SUBJECTS.task;

@Controller()
export class CourseTemplateLockHandlers extends LockHandlers {
  protected readonly type = 'CourseTemplate';

  // Nest reads constructor parameters from the decorated class itself, not from its parent.
  constructor(locks: LocksService) {
    super(locks);
  }

  @Handles(C.show) show(@Payload() r: LockRequest) { return this.showLock(r); }
  @Handles(C.acquire) acquire(@Payload() r: LockRequest) { return this.acquireLock(r); }
  @Handles(C.renew) renew(@Payload() r: LockRequest) { return this.renewLock(r); }
  @Handles(C.release) release(@Payload() r: LockRequest) { return this.releaseLock(r); }
}

@Controller()
export class TaskLockHandlers extends LockHandlers {
  protected readonly type = 'Task';

  // Nest reads constructor parameters from the decorated class itself, not from its parent.
  constructor(locks: LocksService) {
    super(locks);
  }

  @Handles(T.show) show(@Payload() r: LockRequest) { return this.showLock(r); }
  @Handles(T.acquire) acquire(@Payload() r: LockRequest) { return this.acquireLock(r); }
  @Handles(T.renew) renew(@Payload() r: LockRequest) { return this.renewLock(r); }
  @Handles(T.release) release(@Payload() r: LockRequest) { return this.releaseLock(r); }
}

/** `locking.locks.check`: catalog asks it inside every authoring write (docs/locking.md). */
@Controller()
export class LockCheckHandlers {
  constructor(private readonly locks: LocksService) {}

  @Handles(LOCKS_CHECK_SUBJECT, { body: CheckLockRequest })
  check(@Payload() { ctx, body }: RpcRequest<CheckLockRequest>): Promise<CheckLockReply> {
    return this.locks.check(ctx, { type: body.lockable_type, id: body.lockable_id }, body.lock_id);
  }
}
