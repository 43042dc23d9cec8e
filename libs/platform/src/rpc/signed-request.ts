import type { RequestContext, RpcReply, RpcRequest } from '@lms/contracts';
import type { PlatformConfig } from '../config/config.js';
import type { MessageBus } from '../messaging/message-bus.js';
import { CONTEXT_REFUSED, type ContextSeal, contextSealFor } from './context-seal.js';
import { DomainError } from './rpc-errors.js';

export interface SignedRequestOptions {
  bus: MessageBus;
  seal: ContextSeal;
  timeoutMs: number;
  /** The service asked, for messages: `catalog`, `locking`. */
  service: string;
  /** The 503 code when it does not answer, e.g. `CATALOG_UNAVAILABLE`. */
  unavailableCode: string;
}

/** How a deployable's requests travel and are signed. */
export interface SignedRequestChannel {
  bus: MessageBus;
  seal: ContextSeal;
  timeoutMs: number;
}

/** The channel of a deployable's configuration: its signing key and RPC time-out. */
export function signedChannel(bus: MessageBus, config: Pick<PlatformConfig, 'contextSigningKey' | 'rpcTimeoutMs'>): SignedRequestChannel {
  return { bus, seal: contextSealFor(config), timeoutMs: config.rpcTimeoutMs };
}

/** Asking `service` over `channel`: no answer is a 503 `<SERVICE>_UNAVAILABLE`. */
export function signedRequestsTo(service: string, channel: SignedRequestChannel): SignedRequestOptions {
  return { bus: channel.bus, seal: channel.seal, timeoutMs: channel.timeoutMs, service, unavailableCode: `${service.toUpperCase()}_UNAVAILABLE` };
}

/**
 * One service asking another over request/reply on behalf of the caller: sealed like the gateway's
 * requests when it goes over NATS (every service verifies what reaches it over the network), the other
 * service's own errors re-thrown as they are, no answer a 503. A refused signature is an operations
 * fault (keys differ), a 500, never a 401.
 */
export async function requestSigned<T>(options: SignedRequestOptions, ctx: RequestContext, subject: string, body: object): Promise<T> {
  const { bus, seal, timeoutMs, service, unavailableCode } = options;
  const unavailable = (detail: string) => new DomainError(503, unavailableCode, 'Service Unavailable', detail);
  // The client's Idempotency-Key names its request to the service it called, not this service's own
  // questions: forwarded, the asked service would keep its first answer under the key and refuse the next.
  const { idempotencyKey: _clientKey, ...forwarded } = ctx;
  const request: RpcRequest = { ctx: forwarded, params: {}, query: {}, body };
  let answer: RpcReply;
  try {
    answer = (await bus.request(subject, request, timeoutMs, () => seal.sign(subject, request))) as RpcReply;
  } catch (err) {
    throw unavailable(`${service} did not answer ${subject}: ${err instanceof Error ? err.message : String(err)}`);
  }
  if (!answer || typeof answer !== 'object') throw unavailable(`${service} answered ${subject} with nothing`);
  if (!answer.ok && answer.error.code === CONTEXT_REFUSED) throw new Error(`${service} refused the signature on ${subject}: CONTEXT_SIGNING_KEY differs`);
  if (!answer.ok) throw new DomainError(answer.error.status, answer.error.code, answer.error.title, answer.error.detail, answer.error.errors);
  return answer.body as T;
}
