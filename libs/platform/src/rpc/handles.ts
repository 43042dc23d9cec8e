import { applyDecorators, Injectable, type PipeTransform, UsePipes } from '@nestjs/common';
import { MessagePattern } from '@nestjs/microservices';
import { type DtoClass, type FieldError, isUploadRequestBody, ROUTES, type RpcRequest, unsafeInput, validateInput } from '@lms/contracts';
import { badRequest } from './rpc-errors.js';

interface RequestShape {
  params?: DtoClass;
  query?: DtoClass;
  body?: DtoClass;
  /** The route also takes an upload in place of its JSON body (`upload.orJson`). */
  uploadOrBody?: boolean;
}

/** What a subject's request must look like: the route's DTOs when it is an HTTP route, else the given shape. */
function shapeOf(subject: string, explicit?: RequestShape): RequestShape {
  if (explicit) return explicit;
  const route = ROUTES.find((r) => r.subject === subject);
  if (!route) throw new Error(`${subject} is in no route; give its request shape to @Handles`);
  return { params: route.params, query: route.query, body: route.body, uploadOrBody: route.upload?.orJson === true };
}

/** Re-validates what the gateway sent (the consumer does not trust a cast) and hands the handler DTO instances. */
@Injectable()
export class RpcRequestPipe implements PipeTransform<RpcRequest, Promise<RpcRequest>> {
  constructor(private readonly shape: RequestShape) {}

  async transform(request: RpcRequest): Promise<RpcRequest> {
    const errors: FieldError[] = [];
    const out = { ...request };
    for (const part of ['params', 'query', 'body'] as const) {
      const cls = this.shape[part];
      if (!cls) continue;
      if (part === 'body' && this.shape.uploadOrBody && isUploadRequestBody(request.body)) continue;
      const unsafe = unsafeInput(request[part]);
      if (unsafe.length > 0) {
        errors.push(...unsafe);
        continue;
      }
      const result = await validateInput(cls, request[part] ?? {});
      if (result.ok) out[part] = result.value as never;
      else errors.push(...result.errors);
    }
    if (errors.length > 0) throw badRequest('VALIDATION_FAILED', 'The request is not valid.', errors);
    return out;
  }
}

/** A method marked with @Handles: what BusTransport needs to call it without Nest's per-call dispatch. */
export interface HandledMethod {
  subject: string;
  controller: abstract new (...args: never[]) => object;
  method: string;
  pipe: RpcRequestPipe;
}

const handled: HandledMethod[] = [];

/** Every @Handles method declared in this process (each deployable picks the ones of its own controllers). */
export const handledMethods = (): readonly HandledMethod[] => handled;

/**
 * Marks a handler for a NATS subject and validates its request against the contract. The handler takes
 * the request as its one argument (`@Payload()`); Nest's @MessagePattern stays the declaration, and
 * BusTransport calls the method directly (see `directHandlers`).
 */
export const Handles = (subject: string, shape?: RequestShape): MethodDecorator => {
  const pipe = new RpcRequestPipe(shapeOf(subject, shape));
  const nest = applyDecorators(MessagePattern(subject), UsePipes(pipe));
  return (target, key, descriptor) => {
    nest(target, key, descriptor);
    handled.push({ subject, controller: target.constructor as HandledMethod['controller'], method: String(key), pipe });
  };
};
