import { Inject, Injectable } from '@nestjs/common';
import type { RpcReply, RpcRequest } from '@lms/contracts';
import { CONTEXT_REFUSED, contextSealFor, type ContextSeal } from '@lms/platform';
import { GATEWAY_DEPS, type GatewayDeps } from '../gateway-deps.js';
import { parseRpcReply } from './rpc-reply.js';

/** A service refused the gateway's own signature: the deployables do not share CONTEXT_SIGNING_KEY. */
export class ContextKeyMismatchError extends Error {
  constructor(subject: string) {
    super(`the service behind ${subject} refused the gateway's signature: CONTEXT_SIGNING_KEY differs between gateway and service`);
  }
}

/**
 * How the gateway asks a service: the one place where it signs the caller context (ContextSeal), sends the
 * request with the RPC timeout and checks the reply's shape.
 */
@Injectable()
export class ServiceClient {
  private readonly seal: ContextSeal;

  constructor(@Inject(GATEWAY_DEPS) private readonly deps: GatewayDeps) {
    this.seal = contextSealFor(deps.runtime.config);
  }

  /** `timeoutMs`: longer than the RPC timeout for work that grows with an uploaded file. */
  async request(subject: string, request: RpcRequest<unknown, unknown, unknown>, timeoutMs = this.deps.runtime.config.rpcTimeoutMs): Promise<RpcReply> {
    const { bus } = this.deps.runtime;
    const reply = parseRpcReply(subject, await bus.request(subject, request, timeoutMs, () => this.seal.sign(subject, request)));
    // Never relayed as a 401: the caller's token is fine, the deployment is not (a 500, logged).
    if (!reply.ok && reply.error.code === CONTEXT_REFUSED) throw new ContextKeyMismatchError(subject);
    return reply;
  }
}
