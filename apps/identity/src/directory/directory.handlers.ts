import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import {
  DIRECTORY_SUBJECTS,
  DirectoryGroupMembersRequest,
  DirectorySubAccountsRequest,
  DirectoryUserGroupsRequest,
  DirectoryUserSearchRequest,
  DirectoryUsersRequest,
  type RpcRequest,
} from '@lms/contracts';
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

  @Handles(DIRECTORY_SUBJECTS.userSearch, { body: DirectoryUserSearchRequest })
  async userSearch(@Payload() { ctx, body }: RpcRequest<DirectoryUserSearchRequest>) {
    return this.directory.search(ctx, body.search);
  }

  @Handles(DIRECTORY_SUBJECTS.groupMembers, { body: DirectoryGroupMembersRequest })
  async groupMembers(@Payload() { ctx, body }: RpcRequest<DirectoryGroupMembersRequest>) {
    return this.directory.groupMembers(ctx, body.group_id);
  }

  @Handles(DIRECTORY_SUBJECTS.userGroups, { body: DirectoryUserGroupsRequest })
  async userGroups(@Payload() { ctx, body }: RpcRequest<DirectoryUserGroupsRequest>) {
    return { group_ids: await this.directory.userGroups(ctx, body.user_id, body.group_ids) };
  }
}
