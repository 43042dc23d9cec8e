import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import { DIRECTORY_SUBJECTS, DirectorySubAccountsRequest, DirectoryUsersRequest, type RpcRequest } from '@lms/contracts';
import { Handles } from '@lms/platform';
import { DirectoryService } from './directory.service.js';

/** Internal subjects other services ask identity through (no HTTP route): people and sub-accounts by id. */
@Controller()
export class DirectoryHandlers {
  constructor(private readonly directory: DirectoryService) {}

  @Handles(DIRECTORY_SUBJECTS.users, { body: DirectoryUsersRequest })
  async users(@Payload() { ctx, body }: RpcRequest<DirectoryUsersRequest>) {
    return { users: await this.directory.users(ctx, body.ids) };
  }

  @Handles(DIRECTORY_SUBJECTS.subAccounts, { body: DirectorySubAccountsRequest })
  async subAccounts(@Payload() { ctx, body }: RpcRequest<DirectorySubAccountsRequest>) {
    return this.directory.subAccounts(ctx, body.ids ?? []);
  }
}
