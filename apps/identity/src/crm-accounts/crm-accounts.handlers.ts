import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import { CRM_ACCOUNT_SUBJECTS as S, type IdParams, type RpcRequest } from '@lms/contracts';
import { Handles } from '@lms/platform';
import { CrmAccountsService } from './crm-accounts.service.js';

@Controller()
export class CrmAccountsHandlers {
  constructor(private readonly service: CrmAccountsService) {}

  /** One object under a singular key (spec convention 3); `crm_account` stands for the product-named key. */
  @Handles(S.show)
  async show(@Payload() { ctx, params }: RpcRequest<unknown, object, IdParams>) {
    return { crm_account: await this.service.show(ctx, params.id) };
  }
}
