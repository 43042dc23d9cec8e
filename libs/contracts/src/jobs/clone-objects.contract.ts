import { Type } from 'class-transformer';
import { ArrayMaxSize, ArrayMinSize, IsArray, IsBoolean, IsDefined, IsIn, IsInt, IsNotEmpty, IsObject, IsString, IsUUID, Matches, Max, MaxLength, Min, ValidateNested } from 'class-validator';
import { PageQuery } from '../common/query.js';
import type { JsonSchema } from '../routes/route.js';

export const CLONE_OBJECT_SUBJECTS = {
  list: 'jobs.clone_objects.list',
  show: 'jobs.clone_objects.show',
  create: 'jobs.clone_objects.create',
} as const;

/** The job kind of a clone object (docs/jobs.md "Sub-account clones"). */
export const CLONE_OBJECT_JOB = 'clone_object';

/** The one source type there is: a sub-account of the caller's account, cloned into a new one beside it. */
export const CLONE_SOURCE_TYPES = ['SubAccount'] as const;
export type CloneSourceType = (typeof CLONE_SOURCE_TYPES)[number];

/** A sub-account's subdomain: one DNS label, as an account's. */
export const CLONE_SUBDOMAIN_PATTERN = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

/** What the new sub-account gets: its subdomain (unique among accounts and sub-accounts) and its name. */
export class CloneOptions {
  @IsString() @Matches(CLONE_SUBDOMAIN_PATTERN, { message: 'subdomain must be a DNS label: 1 to 63 of a-z, 0-9 and "-", not starting or ending with "-"' })
  subdomain: string;

  @IsString() @IsNotEmpty() @MaxLength(255) @Matches(/\S/, { message: 'name must not be blank' })
  name: string;
}

export class CloneObjectRequest {
  @IsInt() @Min(1) @Max(2_147_483_647)
  source_id: number;

  @IsString() @IsIn(CLONE_SOURCE_TYPES, { message: `source_type must be one of: ${CLONE_SOURCE_TYPES.join(', ')}` })
  source_type: string;

  @IsDefined() @IsObject() @ValidateNested() @Type(() => CloneOptions)
  options: CloneOptions;
}

export class CreateCloneObjectsBody {
  @IsDefined() @IsArray() @ArrayMinSize(1) @ArrayMaxSize(20) @IsObject({ each: true }) @ValidateNested({ each: true }) @Type(() => CloneObjectRequest)
  clone_objects: CloneObjectRequest[];
}

/** `pending` (waiting or between attempts), `running`, `complete` (with its destination) or `failed` (with its messages). */
export type CloneObjectState = 'pending' | 'running' | 'complete' | 'failed';

export interface CloneObjectView {
  id: number;
  state: CloneObjectState;
  destination_id: number | null;
  destination_type: string | null;
  source_id: number;
  source_type: string;
  error_messages: string[];
  created_at: string;
  updated_at: string;
  /** The applied options. */
  parameters: { subdomain: string; name: string };
}

export const CLONE_OBJECT_SCHEMA: JsonSchema = {
  type: 'object',
  required: ['id', 'state', 'destination_id', 'destination_type', 'source_id', 'source_type', 'error_messages', 'created_at', 'updated_at', 'parameters'],
  properties: {
    id: { type: 'integer' },
    state: { type: 'string', enum: ['pending', 'running', 'complete', 'failed'] },
    destination_id: { type: ['integer', 'null'] },
    destination_type: { type: ['string', 'null'] },
    source_id: { type: 'integer' },
    source_type: { type: 'string', enum: [...CLONE_SOURCE_TYPES] },
    error_messages: { type: 'array', items: { type: 'string' } },
    created_at: { type: 'string', format: 'date-time' },
    updated_at: { type: 'string', format: 'date-time' },
    parameters: { type: 'object', properties: { subdomain: { type: 'string' }, name: { type: 'string' } } },
  },
};

// ---- The saga's steps, each served by the service that owns the data (docs/jobs.md) ----

/** Subjects of a clone's steps; every step is keyed by the clone's job id (`clone_id`), so a redelivered step does nothing twice. */
export const CLONE_STEP_SUBJECTS = {
  /** identity: is this subdomain free, and is the source a sub-account of the caller's account? (asked when a clone is accepted) */
  identityCheck: 'identity.clones.check',
  /** identity: the new sub-account, hidden until activated. */
  identityCreate: 'identity.clones.create',
  /** identity: the clone is complete, the sub-account is shown. */
  identityActivate: 'identity.clones.activate',
  /** identity: compensation, the hidden sub-account is removed. */
  identityUndo: 'identity.clones.undo',
  catalogCopy: 'catalog.clones.copy',
  catalogUndo: 'catalog.clones.undo',
  schedulingCopy: 'scheduling.clones.copy',
  schedulingUndo: 'scheduling.clones.undo',
} as const;

export class CloneCheckRequest {
  @IsArray() @ArrayMaxSize(20) @IsInt({ each: true })
  source_ids: number[];

  @IsArray() @ArrayMaxSize(20) @IsString({ each: true }) @MaxLength(63, { each: true })
  subdomains: string[];
}

export interface CloneCheckReply {
  /** Source ids that are no sub-account of the caller's account. */
  unknown_sources: number[];
  /** Subdomains an account or a sub-account already has. */
  taken_subdomains: string[];
}

export class CloneSubAccountRequest {
  @IsUUID()
  clone_id: string;

  @IsInt() @Min(1)
  source_id: number;

  @IsString() @Matches(CLONE_SUBDOMAIN_PATTERN)
  subdomain: string;

  @IsString() @IsNotEmpty() @MaxLength(255)
  name: string;
}

export interface CloneSubAccountReply {
  sub_account_id: number;
  source_is_root: boolean;
}

/** catalog and scheduling: copy what the source sub-account owns into the destination (created by identity). */
export class CloneCopyRequest {
  @IsUUID()
  clone_id: string;

  @IsInt() @Min(1)
  source_id: number;

  @IsInt() @Min(1)
  destination_id: number;

  /** Whether the source is its account's root sub-account: rows with no owner recorded are the root's. */
  @IsBoolean()
  source_is_root: boolean;
}

export interface CloneCopyReply {
  /** Copies made, by table. */
  copied: Record<string, number>;
}

export class CloneUndoRequest {
  @IsUUID()
  clone_id: string;
}

export interface CloneUndoReply {
  removed: number;
}

/** The list's paging: newest first, every clone object up to 1,000 a page when the request names no size. */
export class ListCloneObjectsQuery extends PageQuery {}
