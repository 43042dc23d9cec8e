import { ArrayMaxSize, IsArray, IsInt, IsOptional, IsString, Max, MaxLength, Min } from 'class-validator';
import { MAX_ID } from '../common/query.js';
import type { Role } from '../context.js';

/**
 * Internal request/reply subjects (no HTTP route) through which other services ask identity about people
 * and sub-accounts instead of reading its schema (design §1). The caller's `ctx` scopes every answer to
 * its account.
 */
export const DIRECTORY_SUBJECTS = {
  users: 'identity.directory.users',
  subAccounts: 'identity.directory.sub_accounts',
  userSearch: 'identity.directory.user_search',
  groupMembers: 'identity.directory.group_members',
  userGroups: 'identity.directory.user_groups',
} as const;

/** How many ids a user search answers at most; `truncated` says when more users matched. */
export const DIRECTORY_SEARCH_LIMIT = 10_000;

/** `identity.directory.users`: the users with these ids, deleted ones included (hidden ones are nobody). */
export class DirectoryUsersRequest {
  @IsArray() @ArrayMaxSize(1000) @IsInt({ each: true }) @Min(1, { each: true }) @Max(MAX_ID, { each: true })
  ids: number[];
}

export interface DirectoryUser {
  id: number;
  uid: string;
  name: string;
  email: string | null;
  avatar_url: string | null;
  roles: Role[];
  /** RFC 3339 when the user is deleted (or its deletion is under way), else null. */
  deleted_at: string | null;
  /** The user's manager (a checkpoint's `manager` approver), or null. */
  manager_id: number | null;
}

export interface DirectoryUsersReply {
  users: DirectoryUser[];
}

/**
 * `identity.directory.sub_accounts`: the named sub-accounts of the caller's account, and the caller's
 * current one (`ctx.subAccountId`, or the root when the caller has none).
 */
export class DirectorySubAccountsRequest {
  @IsOptional() @IsArray() @ArrayMaxSize(1000) @IsInt({ each: true }) @Min(1, { each: true }) @Max(MAX_ID, { each: true })
  ids?: number[];
}

export interface DirectorySubAccount {
  id: number;
  name: string;
  is_root: boolean;
  /** Attributes this sub-account locks on the courses it owns. */
  locked_attributes: string[];
}

export interface DirectorySubAccountsReply {
  /** The caller's current sub-account; null only for an account without a root (not created through identity). */
  current: DirectorySubAccount | null;
  root: DirectorySubAccount | null;
  /** The account has sub-accounts besides its root. */
  sub_accounts_exist: boolean;
  sub_accounts: DirectorySubAccount[];
}

/**
 * `identity.directory.user_search`: ids of the live (not hidden) users of the caller's account whose
 * name, username or e-mail contains `search` (case-insensitive), lowest ids first, at most
 * DIRECTORY_SEARCH_LIMIT of them.
 */
export class DirectoryUserSearchRequest {
  @IsString() @MaxLength(255)
  search: string;
}

export interface DirectoryUserSearchReply {
  ids: number[];
  truncated: boolean;
}

/** `identity.directory.group_members`: whether the group exists in the caller's account, and its live learners. */
export class DirectoryGroupMembersRequest {
  @IsInt() @Min(1) @Max(MAX_ID)
  group_id: number;
}

export interface DirectoryGroupMembersReply {
  exists: boolean;
  user_ids: number[];
}

/** `identity.directory.user_groups`: which of these groups of the caller's account the user is a member of. */
export class DirectoryUserGroupsRequest {
  @IsInt() @Min(1) @Max(MAX_ID)
  user_id: number;

  @IsArray() @ArrayMaxSize(1000) @IsInt({ each: true }) @Min(1, { each: true }) @Max(MAX_ID, { each: true })
  group_ids: number[];
}

export interface DirectoryUserGroupsReply {
  /** Lowest first. */
  group_ids: number[];
}
