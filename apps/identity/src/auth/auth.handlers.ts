import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import { AUTH_RESOLVE_SUBJECT, AuthResolveRequest, type RpcRequest } from '@lms/contracts';
import { Handles } from '@lms/platform';
import { AuthService } from './auth.service.js';

@Controller()
export class AuthHandlers {
  constructor(private readonly auth: AuthService) {}

  @Handles(AUTH_RESOLVE_SUBJECT, { body: AuthResolveRequest })
  resolve(@Payload() request: RpcRequest<AuthResolveRequest>) {
    return this.auth.resolve(request.body.token);
  }
}
