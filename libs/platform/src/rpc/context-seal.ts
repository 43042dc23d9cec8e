import { createHmac, timingSafeEqual, type KeyObject } from 'node:crypto';
import type { RequestSeal, RpcRequest } from '@lms/contracts';
import type { PlatformConfig } from '../config/config.js';
import { DomainError } from './rpc-errors.js';

/** The code a service answers when a request's caller context is not the gateway's; the gateway never relays it as is. */
export const CONTEXT_REFUSED = 'CONTEXT_NOT_SIGNED';

/** Clocks of different pods disagree a little: a seal this far in the future or past (beyond the RPC timeout) still counts. */
export const CLOCK_SKEW_MS = 30_000;

const SEAL_VERSION = 1;
const MAC_BYTES = 32;

/** Why a seal was refused: logged by the service, not told to the sender. */
export type SealRefusal = 'missing' | 'malformed' | 'expired' | 'mismatch';

export class ContextRefusedError extends DomainError {
  constructor(readonly reason: SealRefusal) {
    super(401, CONTEXT_REFUSED, 'Unauthorized', 'The request is not signed by the gateway.');
  }
}

/** A request as it travels, before or after the wire: every part is covered by the seal. */
type Sealable = Pick<RpcRequest<unknown, unknown, unknown>, 'ctx' | 'params' | 'query' | 'body' | 'headers'>;

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Signs the caller context of a bus request that goes over NATS (gateway) and verifies it (every
 * service), so a NATS credential alone cannot speak for a user (one answered in its own process is on no
 * wire and goes unsealed: MessageBus.request's `overWire`): HMAC-SHA256 with the shared CONTEXT_SIGNING_KEY over the
 * subject, the signing time, ctx, params, query, body and the forwarded headers (when a route declares any). Binding the subject stops a seal from being
 * replayed on another subject; binding the time bounds replays on the same one.
 *
 * The MAC input is one `JSON.stringify` of those parts. The bus carries JSON, and stringify after parse
 * gives back the same text for the plain data a request holds (key order is kept), so the service
 * recomputes it from what it decoded without a canonical-JSON library. HMAC rather than signatures:
 * a few microseconds per request; the cost is that every holder of the key can sign (docs/security.md).
 */
export class ContextSeal {
  constructor(
    private readonly key: KeyObject,
    private readonly maxAgeMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** The request with its seal, ready for `bus.request(subject, …)`. */
  sign<T extends Sealable>(subject: string, request: T): T & { seal: RequestSeal } {
    const at = this.now();
    return { ...request, seal: { v: SEAL_VERSION, at, mac: this.mac(subject, at, request).toString('base64url') } };
  }

  /** Why the payload received on `subject` must be refused, or undefined when its seal holds. */
  check(subject: string, payload: unknown): SealRefusal | undefined {
    if (!isObject(payload) || payload.seal === undefined) return 'missing';
    const seal = payload.seal;
    if (!isObject(seal) || seal.v !== SEAL_VERSION || !Number.isSafeInteger(seal.at) || typeof seal.mac !== 'string' || !isObject(payload.ctx)) return 'malformed';
    const given = Buffer.from(seal.mac, 'base64url');
    if (given.length !== MAC_BYTES) return 'malformed';
    if (!timingSafeEqual(given, this.mac(subject, seal.at as number, payload as unknown as Sealable))) return 'mismatch';
    // Checked after the MAC, so a sender without the key learns nothing from the answer about its clock.
    if (Math.abs(this.now() - (seal.at as number)) > this.maxAgeMs) return 'expired';
    return undefined;
  }

  /** Throws ContextRefusedError (401) unless the payload carries a valid seal for `subject`. */
  verify(subject: string, payload: unknown): void {
    const refusal = this.check(subject, payload);
    if (refusal) throw new ContextRefusedError(refusal);
  }

  private mac(subject: string, at: number, { ctx, params, query, body, headers }: Sealable): Buffer {
    // Headers join the input only when present, so requests without any sign exactly as before.
    const parts = headers === undefined ? [SEAL_VERSION, subject, at, ctx, params, query, body] : [SEAL_VERSION, subject, at, ctx, params, query, body, headers];
    return createHmac('sha256', this.key).update(JSON.stringify(parts)).digest();
  }
}

/** The seal of a deployable: its key, and seals valid for an RPC timeout plus clock skew. */
export function contextSealFor(config: Pick<PlatformConfig, 'contextSigningKey' | 'rpcTimeoutMs'>): ContextSeal {
  return new ContextSeal(config.contextSigningKey, config.rpcTimeoutMs + CLOCK_SKEW_MS);
}
