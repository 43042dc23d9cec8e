import { AsyncLocalStorage } from 'node:async_hooks';
import { type CallHandler, type ExecutionContext, Inject, Injectable, type NestInterceptor } from '@nestjs/common';
import { type CheckLockReply, LOCK_ID_HEADER, LOCKS_CHECK_SUBJECT, type RequestContext, type RpcRequest } from '@lms/contracts';
import { contextSealFor, MESSAGE_BUS, type MessageBus, requestSigned, RUNTIME, type Runtime, type SignedRequestOptions } from '@lms/platform';
import type { Observable } from 'rxjs';
import type { AuthoringItem } from './authoring-guard.js';

/** The `X-Lock-Id` of the request being handled, wherever in its call tree the guard runs. */
const presentedLock = new AsyncLocalStorage<{ lockId?: string }>();

/**
 * Keeps each request's `X-Lock-Id` (forwarded by the gateway on authoring writes) for the guard, so no
 * handler or service signature has to carry it.
 */
@Injectable()
export class PresentedLockInterceptor implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const request = context.switchToRpc().getData<RpcRequest | undefined>();
    const lockId = request?.headers?.[LOCK_ID_HEADER];
    // Nest binds the handler to the async context it is called from, so the store reaches the service.
    return presentedLock.run({ lockId }, () => next.handle());
  }
}

/**
 * The locking service's fence on authoring writes (docs/locking.md): asked synchronously, inside the
 * write's transaction, so the answer is the lock as it is now (a holder who just took the lock is let
 * through; anyone else, or a stale lock id, is a 409 from locking, relayed as it is).
 */
@Injectable()
export class LockFence {
  private readonly options: SignedRequestOptions;

  constructor(@Inject(MESSAGE_BUS) bus: MessageBus, @Inject(RUNTIME) runtime: Runtime) {
    this.options = { bus, seal: contextSealFor(runtime.config), timeoutMs: runtime.config.rpcTimeoutMs, service: 'locking', unavailableCode: 'LOCKING_UNAVAILABLE' };
  }

  async assertMayWrite(ctx: RequestContext, item: AuthoringItem): Promise<void> {
    const lockId = presentedLock.getStore()?.lockId;
    await requestSigned<CheckLockReply>(this.options, ctx, LOCKS_CHECK_SUBJECT, { lockable_type: item.type, lockable_id: item.id, ...(lockId !== undefined ? { lock_id: lockId } : {}) });
  }
}
