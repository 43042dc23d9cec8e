import { Inject, Injectable } from '@nestjs/common';
import { type DescribeLockableReply, LOCKABLES_DESCRIBE_SUBJECT, type RequestContext } from '@lms/contracts';
import { MESSAGE_BUS, type MessageBus, requestSigned, RUNTIME, type Runtime, signedChannel, type SignedRequestOptions, signedRequestsTo } from '@lms/platform';
import type { LockKey } from './lock.repository.js';

/**
 * What the locking service knows of the catalog: only its answer to `catalog.lockables.describe`, asked for
 * each request (design §1: no copy of another service's tables), so a lock follows catalog's own rule
 * of who may edit what.
 */
@Injectable()
export class CatalogLockables {
  private readonly options: SignedRequestOptions;

  constructor(@Inject(MESSAGE_BUS) bus: MessageBus, @Inject(RUNTIME) runtime: Runtime) {
    this.options = signedRequestsTo('catalog', signedChannel(bus, runtime.config));
  }

  describe(ctx: RequestContext, item: LockKey): Promise<DescribeLockableReply> {
    return requestSigned<DescribeLockableReply>(this.options, ctx, LOCKABLES_DESCRIBE_SUBJECT, { lockable_type: item.type, lockable_id: item.id });
  }
}
