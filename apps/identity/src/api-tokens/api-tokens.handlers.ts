import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import {
  API_TOKEN_SUBJECTS as S,
  type CreateApiTokenBody,
  type CreatedApiTokenView,
  type IdParams,
  type ListApiTokensQuery,
  type RpcRequest,
  envelope,
} from '@lms/contracts';
import { Handles, noContent, paged, reply } from '@lms/platform';
import { ApiTokensService, toApiTokenView } from './api-tokens.service.js';

@Controller()
export class ApiTokensHandlers {
  constructor(private readonly service: ApiTokensService) {}

  @Handles(S.create)
  async create(@Payload() { ctx, body }: RpcRequest<CreateApiTokenBody>) {
    const { token, secret } = await this.service.create(ctx, body.api_token);
    const view: CreatedApiTokenView = { ...toApiTokenView(token), token: secret };
    return reply(envelope('api_tokens', [view]), { status: 201, secret: true });
  }

  @Handles(S.list)
  async list(@Payload() { ctx, query }: RpcRequest<unknown, ListApiTokensQuery>) {
    const [tokens, total] = await this.service.list(ctx, query);
    return paged(envelope('api_tokens', tokens.map(toApiTokenView)), total);
  }

  @Handles(S.revoke)
  async revoke(@Payload() { ctx, params }: RpcRequest<unknown, object, IdParams>) {
    await this.service.revoke(ctx, params.id);
    return noContent();
  }
}
