import { Inject, Injectable } from '@nestjs/common';
import {
  DIRECTORY_SUBJECTS,
  type DirectoryGroupMembersReply,
  type DirectorySubAccountsReply,
  type DirectoryUser,
  type DirectoryUserGroupsReply,
  type DirectoryUserSearchReply,
  type DirectoryUsersReply,
  type RequestContext,
} from '@lms/contracts';
import type { MessageBus } from '../messaging/message-bus.js';
import { requestSigned, signedChannel, signedRequestsTo, type SignedRequestOptions } from '../rpc/signed-request.js';
import type { Runtime } from '../runtime/runtime.js';
import { MESSAGE_BUS, RUNTIME } from '../runtime/start-service.js';

/** The most ids one `users` or `user_groups` request carries (their contracts' cap). */
const IDS_PER_ASK = 1000;

function* batchesOf(ids: number[]): Generator<number[]> {
  for (let i = 0; i < ids.length; i += IDS_PER_ASK) yield ids.slice(i, i + IDS_PER_ASK);
}

/**
 * A service's view of people and sub-accounts: asked of identity over NATS request/reply (design §1: never
 * its schema). Identity's own errors come back as they are; no answer is a 503.
 */
@Injectable()
export class IdentityDirectory {
  private readonly identity: SignedRequestOptions;

  constructor(@Inject(MESSAGE_BUS) bus: MessageBus, @Inject(RUNTIME) runtime: Runtime) {
    this.identity = signedRequestsTo('identity', signedChannel(bus, runtime.config));
  }

  /** Users of the caller's account by id, deleted ones included; unknown (or hidden) ids are absent from the map. */
  async users(ctx: RequestContext, ids: number[]): Promise<Map<number, DirectoryUser>> {
    const users = new Map<number, DirectoryUser>();
    for (const some of batchesOf([...new Set(ids)])) {
      for (const user of (await this.ask<DirectoryUsersReply>(ctx, DIRECTORY_SUBJECTS.users, { ids: some })).users) users.set(user.id, user);
    }
    return users;
  }

  async subAccounts(ctx: RequestContext, ids: number[] = []): Promise<DirectorySubAccountsReply> {
    return this.ask<DirectorySubAccountsReply>(ctx, DIRECTORY_SUBJECTS.subAccounts, { ids: [...new Set(ids)] });
  }

  /** Ids of the live users whose name, username or e-mail contains `search` (identity caps the answer). */
  async searchUsers(ctx: RequestContext, search: string): Promise<DirectoryUserSearchReply> {
    return this.ask<DirectoryUserSearchReply>(ctx, DIRECTORY_SUBJECTS.userSearch, { search });
  }

  /** Whether the group exists in the caller's account, and its live learners. */
  async groupMembers(ctx: RequestContext, groupId: number): Promise<DirectoryGroupMembersReply> {
    return this.ask<DirectoryGroupMembersReply>(ctx, DIRECTORY_SUBJECTS.groupMembers, { group_id: groupId });
  }

  /** Which of these groups of the caller's account the user is a member of, lowest id first. */
  async userGroups(ctx: RequestContext, userId: number, groupIds: number[]): Promise<number[]> {
    const held: number[] = [];
    for (const some of batchesOf([...new Set(groupIds)])) {
      held.push(...(await this.ask<DirectoryUserGroupsReply>(ctx, DIRECTORY_SUBJECTS.userGroups, { user_id: userId, group_ids: some })).group_ids);
    }
    return held.sort((a, b) => a - b);
  }

  private ask<T>(ctx: RequestContext, subject: string, body: object): Promise<T> {
    return requestSigned<T>(this.identity, ctx, subject, body);
  }
}
