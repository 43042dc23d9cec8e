import { Inject, Injectable } from '@nestjs/common';
import {
  DIRECTORY_SUBJECTS,
  type DirectorySubAccountsReply,
  type DirectoryUser,
  type DirectoryUsersReply,
  type RequestContext,
  type RpcReply,
  type RpcRequest,
} from '@lms/contracts';
import { CONTEXT_REFUSED, type ContextSeal, contextSealFor, DomainError, MESSAGE_BUS, type MessageBus, RUNTIME, type Runtime } from '@lms/platform';

const identityUnavailable = (detail: string) => new DomainError(503, 'IDENTITY_UNAVAILABLE', 'Service Unavailable', detail);

/**
 * Catalog's view of people and sub-accounts: asked of identity over NATS request/reply (design §1: never
 * its schema). Identity's own errors come back as they are; no answer is a 503.
 */
@Injectable()
export class IdentityDirectory {
  private readonly seal: ContextSeal;

  constructor(
    @Inject(MESSAGE_BUS) private readonly bus: MessageBus,
    @Inject(RUNTIME) private readonly runtime: Runtime,
  ) {
    this.seal = contextSealFor(runtime.config);
  }

  /** Users of the caller's account by id, deleted ones included; unknown (or hidden) ids are absent from the map. */
  async users(ctx: RequestContext, ids: number[]): Promise<Map<number, DirectoryUser>> {
    const unique = [...new Set(ids)];
    if (unique.length === 0) return new Map();
    const reply = await this.ask<DirectoryUsersReply>(ctx, DIRECTORY_SUBJECTS.users, { ids: unique });
    return new Map(reply.users.map((user) => [user.id, user]));
  }

  async subAccounts(ctx: RequestContext, ids: number[] = []): Promise<DirectorySubAccountsReply> {
    return this.ask<DirectorySubAccountsReply>(ctx, DIRECTORY_SUBJECTS.subAccounts, { ids: [...new Set(ids)] });
  }

  private async ask<T>(ctx: RequestContext, subject: string, body: object): Promise<T> {
    // Signed like the gateway's requests: identity verifies every caller context it is given.
    const request: RpcRequest = this.seal.sign(subject, { ctx, params: {}, query: {}, body });
    let answer: RpcReply;
    try {
      answer = (await this.bus.request(subject, request, this.runtime.config.rpcTimeoutMs)) as RpcReply;
    } catch (err) {
      throw identityUnavailable(`identity did not answer ${subject}: ${err instanceof Error ? err.message : String(err)}`);
    }
    if (!answer || typeof answer !== 'object') throw identityUnavailable(`identity answered ${subject} with nothing`);
    // The deployment's keys differ: an operations fault, not the caller's (a 500, logged), never relayed as a 401.
    if (!answer.ok && answer.error.code === CONTEXT_REFUSED) throw new Error(`identity refused catalog's signature on ${subject}: CONTEXT_SIGNING_KEY differs`);
    if (!answer.ok) throw new DomainError(answer.error.status, answer.error.code, answer.error.title, answer.error.detail, answer.error.errors);
    return answer.body as T;
  }
}
