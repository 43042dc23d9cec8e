import { EXCEPTION_FILTERS_METADATA, GUARDS_METADATA, INTERCEPTORS_METADATA, PIPES_METADATA, ROUTE_ARGS_METADATA } from '@nestjs/common/constants.js';
import type { RpcRequest } from '@lms/contracts';
import { handledMethods, type HandledMethod } from './handles.js';

/** Calls one handler with a request that has not been validated yet; answers what the handler returns. */
export type DirectHandler = (request: RpcRequest) => Promise<unknown>;

/** Nest's RpcParamtype.PAYLOAD: `@Payload()` is recorded as `3:<index>`. */
const PAYLOAD_ARG = '3:0';

/**
 * True when Nest would do nothing for this method but validate with our pipe and pass the request as
 * its first argument: no guards, interceptors, filters, other pipes or parameter decorators.
 */
function plainHandler({ controller, method, pipe }: HandledMethod): boolean {
  const handler = (controller.prototype as Record<string, unknown>)[method];
  if (typeof handler !== 'function') return false;
  for (const key of [GUARDS_METADATA, INTERCEPTORS_METADATA, EXCEPTION_FILTERS_METADATA]) {
    if ((Reflect.getMetadata(key, handler) as unknown[] | undefined)?.length || (Reflect.getMetadata(key, controller) as unknown[] | undefined)?.length) return false;
  }
  const pipes = Reflect.getMetadata(PIPES_METADATA, handler) as unknown[] | undefined;
  if (pipes?.length !== 1 || pipes[0] !== pipe || (Reflect.getMetadata(PIPES_METADATA, controller) as unknown[] | undefined)?.length) return false;
  const args = (Reflect.getMetadata(ROUTE_ARGS_METADATA, controller, method) ?? {}) as Record<string, { index: number; data?: unknown; pipes?: unknown[] }>;
  const entries = Object.entries(args);
  if (entries.length === 0) return true;
  if (entries.length !== 1) return false;
  const [key, arg] = entries[0];
  return key === PAYLOAD_ARG && arg.data === undefined && !arg.pipes?.length;
}

/**
 * The @Handles methods of the controllers `instanceOf` can resolve, as direct calls: validate with the
 * route's compiled DTOs, then call the method on the controller instance Nest built. This skips Nest's
 * per-request execution context, pipe consumer and observable plumbing; anything that needs them (a guard,
 * an interceptor, `@Ctx()`) is left out of the map and keeps Nest's dispatch.
 */
export function directHandlers(instanceOf: (controller: HandledMethod['controller']) => object | undefined): Map<string, DirectHandler> {
  const direct = new Map<string, DirectHandler>();
  for (const entry of handledMethods()) {
    if (!plainHandler(entry)) continue;
    const instance = instanceOf(entry.controller) as Record<string, (request: RpcRequest) => unknown> | undefined;
    if (!instance) continue;
    const { pipe, method } = entry;
    direct.set(entry.subject, async (request) => instance[method](await pipe.transform(request)));
  }
  return direct;
}
