import { Inject, Injectable } from '@nestjs/common';
import { type CheckLockReply, LOCK_ID_HEADER, LOCKS_CHECK_SUBJECT, type RequestContext } from '@lms/contracts';
import { forwardedHeaders, MESSAGE_BUS, type MessageBus, requestSigned, RUNTIME, type Runtime, signedChannel, type SignedRequestOptions, signedRequestsTo } from '@lms/platform';
import type { AuthoringItem } from './authoring-guard.js';

/**
 * The locking service's fence on authoring writes (docs/locking.md): asked synchronously, inside the
 * write's transaction, so the answer is the lock as it is now (a holder who just took the lock is let
 * through; anyone else, or a stale `X-Lock-Id`, is a 409 from locking, relayed as it is).
 */
@Injectable()
export class LockFence {
  private readonly options: SignedRequestOptions;

  constructor(@Inject(MESSAGE_BUS) bus: MessageBus, @Inject(RUNTIME) runtime: Runtime) {
    this.options = signedRequestsTo('locking', signedChannel(bus, runtime.config));
  }

  async assertMayWrite(ctx: RequestContext, item: AuthoringItem): Promise<void> {
    // The X-Lock-Id the gateway forwarded with this request (authoring writes declare it: fencedByLocks).
    const lockId = forwardedHeaders(ctx)[LOCK_ID_HEADER];
    await requestSigned<CheckLockReply>(this.options, ctx, LOCKS_CHECK_SUBJECT, { lockable_type: item.type, lockable_id: item.id, ...(lockId !== undefined ? { lock_id: lockId } : {}) });
  }
}
