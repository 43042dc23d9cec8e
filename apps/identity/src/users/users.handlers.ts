import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import {
  type AuthorListUsersQuery,
  type CreateUsersBody,
  type DeleteUserQuery,
  type ListUsersQuery,
  type RpcRequest,
  type SetUserRolesBody,
  type UpdateUserBody,
  USER_SUBJECTS as S,
  type UserRefParams,
  type UserSummaryQuery,
  envelope,
} from '@lms/contracts';
import { Handles, noContent, paged } from '@lms/platform';
import { UserDeletionService } from './user-deletion.service.js';
import { UserFinder } from './user-finder.js';
import { UserSummaryService } from './user-summary.service.js';
import { toAuthorUserView, userEnvelope } from './user-view.js';
import { UsersService } from './users.service.js';

@Controller()
export class UsersHandlers {
  constructor(
    private readonly users: UsersService,
    private readonly finder: UserFinder,
    private readonly deletions: UserDeletionService,
    private readonly summaries: UserSummaryService,
  ) {}

  /** Spec: 200 (not 201) when created; only the first element is processed. */
  @Handles(S.create)
  async create(@Payload() { ctx, body }: RpcRequest<CreateUsersBody>) {
    return userEnvelope([await this.users.create(ctx, body.users[0])], ctx);
  }

  @Handles(S.list)
  async list(@Payload() { ctx, query }: RpcRequest<unknown, ListUsersQuery>) {
    const { rows, total, next } = await this.users.list(ctx, query);
    return paged(userEnvelope(rows, ctx, false), total, next);
  }

  /** The authors' list: live users only, the admin list's search and paging, the author view. */
  @Handles(S.authorList)
  async authorList(@Payload() { ctx, query }: RpcRequest<unknown, AuthorListUsersQuery>) {
    const { rows, total, next } = await this.users.list(ctx, query);
    return paged(envelope('users', rows.map(toAuthorUserView)), total, next);
  }

  @Handles(S.show)
  async show(@Payload() { ctx, params }: RpcRequest<unknown, object, UserRefParams>) {
    return userEnvelope([await this.finder.get(ctx, params.id, { withDeleted: true })], ctx);
  }

  @Handles(S.update)
  async update(@Payload() { ctx, params, body }: RpcRequest<UpdateUserBody, object, UserRefParams>) {
    return userEnvelope([await this.users.update(ctx, params.id, body.user)], ctx);
  }

  @Handles(S.delete)
  async delete(@Payload() { ctx, params, query }: RpcRequest<unknown, DeleteUserQuery, UserRefParams>) {
    await this.deletions.delete(ctx, params.id, query.async ?? false);
    return noContent();
  }

  @Handles(S.setRoles)
  async setRoles(@Payload() { ctx, params, body }: RpcRequest<SetUserRolesBody, object, UserRefParams>) {
    return userEnvelope([await this.users.setRoles(ctx, params.id, body.roles)], ctx);
  }

  @Handles(S.hide)
  async hide(@Payload() { ctx, params }: RpcRequest<unknown, object, UserRefParams>) {
    await this.users.hide(ctx, params.id);
    return noContent();
  }

  @Handles(S.summary)
  async summary(@Payload() { ctx, params, query }: RpcRequest<unknown, UserSummaryQuery, UserRefParams>) {
    return { summary: await this.summaries.summary(ctx, params.id, query) };
  }
}
