import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsBoolean,
  IsDefined,
  IsInt,
  IsObject,
  IsOptional,
  IsString,
  IsUUID,
  Matches,
  MaxLength,
  Min,
  ValidateNested,
} from 'class-validator';
import { PageQuery, QueryBool } from '../common/query.js';
import type { JsonSchema } from '../routes/route.js';

/**
 * Scheduled CSV imports (docs/jobs.md "Scheduled CSV imports"): jobs records a run (an `import` job), the
 * worker fetches the profile's file, and identity creates and updates the users.
 */
export const IMPORT_RUN_SUBJECTS = {
  run: 'jobs.import_runs.create',
  list: 'jobs.import_runs.list',
  show: 'jobs.import_runs.show',
} as const;

/** The job kind of an import run. */
export const IMPORT_JOB = 'import';

/**
 * Identity's subjects the import worker calls (never routed by the gateway): the profile's source with the
 * decrypted password, and a batch of rows applied with the users API's validation.
 */
export const USER_IMPORT_SUBJECTS = {
  source: 'identity.import_profile.source',
  rows: 'identity.users.import_rows',
} as const;

/** `POST /api/admin/import_profile/run?dry_run=true`: report what would change, change nothing. */
export class RunImportQuery {
  @IsOptional() @QueryBool() @IsBoolean()
  dry_run?: boolean;
}

export class ListImportRunsQuery extends PageQuery {}

export class ImportRunParams {
  @IsDefined() @IsUUID('4', { message: 'id must be the id of an import run' })
  id: string;
}

export type ImportRunStatus = 'pending' | 'running' | 'complete' | 'failed';

export interface ImportRowError {
  /** The line of the file (1 = the first line, the header when there is one). */
  line: number;
  field: string | null;
  message: string;
}

export interface ImportChange {
  line: number;
  uid: string;
  action: 'create' | 'update';
  /** The attributes that change (custom fields as `custom_fields.<id>`). */
  fields: string[];
}

export interface ImportRunCounts {
  created: number;
  updated: number;
  unchanged: number;
  failed: number;
}

export interface ImportRunView {
  id: string;
  status: ImportRunStatus;
  /** `manual` (the run route) or `schedule` (the profile's days and time). */
  trigger: 'manual' | 'schedule';
  dry_run: boolean;
  /** The scheduled slot (RFC 3339, UTC) a scheduled run stands for; null for a manual run. */
  slot: string | null;
  created_at: string;
  finished_at: string | null;
  /** Data rows read from the file; null until the run has read it. */
  rows: number | null;
  /** For a dry run: what would have happened. Null until complete. */
  counts: ImportRunCounts | null;
  /** The first row errors, by line. */
  errors: ImportRowError[];
  /** The first changes (a dry run's answer to "what would change"). */
  changes: ImportChange[];
  /** Why the run as a whole failed (fetch refused, file too large, share guard…). */
  error: string | null;
}

/** What identity answers the worker about the account's profile: all it needs to fetch and map the file. */
export interface ImportSourceReply {
  csv_url: string | null;
  csv_user: string | null;
  /** Decrypted for this call only; never logged, never stored by the worker. */
  csv_password: string | null;
  has_headers: boolean;
  columns: ({ position: number; field: string } | { position: number; custom_field_id: number })[];
}

/** One CSV row mapped to user attributes: built-in fields by key, custom field values by id. */
export class ImportRowInput {
  @IsInt() @Min(1)
  line: number;

  /** A user request as `POST /api/admin/users` takes it; identity validates it like the API does. */
  @IsDefined() @IsObject()
  user: Record<string, unknown>;
}

export class ImportRowsRequest {
  @IsBoolean()
  dry_run: boolean;

  @IsArray() @ArrayMaxSize(500) @ValidateNested({ each: true }) @Type(() => ImportRowInput)
  rows: ImportRowInput[];
}

export interface ImportRowOutcome {
  line: number;
  uid: string | null;
  outcome: 'created' | 'updated' | 'unchanged' | 'failed';
  fields?: string[];
  errors?: { field: string | null; message: string }[];
}

export interface ImportRowsReply {
  outcomes: ImportRowOutcome[];
  /** The account's live users now (the share guard's base). */
  account_users: number;
}

/** What jobs keeps of the profile's schedule, from identity's `identity.import_profile.updated` events. */
export class ImportScheduleEventData {
  @IsInt()
  id: number;

  @IsOptional() @IsString() @MaxLength(4096)
  csv_url: string | null;

  @IsArray() @ArrayMaxSize(7) @IsBoolean({ each: true })
  csv_days: boolean[];

  @IsOptional() @IsString() @Matches(/^([01]\d|2[0-3]):[0-5]\d$/)
  csv_time: string | null;

  @IsBoolean()
  has_headers: boolean;
}

const COUNTS_SCHEMA: JsonSchema = {
  type: ['object', 'null'],
  required: ['created', 'updated', 'unchanged', 'failed'],
  properties: { created: { type: 'integer' }, updated: { type: 'integer' }, unchanged: { type: 'integer' }, failed: { type: 'integer' } },
};

export const IMPORT_RUN_SCHEMA: JsonSchema = {
  type: 'object',
  required: ['id', 'status', 'trigger', 'dry_run', 'slot', 'created_at', 'finished_at', 'rows', 'counts', 'errors', 'changes', 'error'],
  properties: {
    id: { type: 'string', format: 'uuid' },
    status: { type: 'string', enum: ['pending', 'running', 'complete', 'failed'] },
    trigger: { type: 'string', enum: ['manual', 'schedule'] },
    dry_run: { type: 'boolean' },
    slot: { type: ['string', 'null'], format: 'date-time' },
    created_at: { type: 'string', format: 'date-time' },
    finished_at: { type: ['string', 'null'], format: 'date-time' },
    rows: { type: ['integer', 'null'] },
    counts: COUNTS_SCHEMA,
    errors: {
      type: 'array',
      items: { type: 'object', required: ['line', 'field', 'message'], properties: { line: { type: 'integer' }, field: { type: ['string', 'null'] }, message: { type: 'string' } } },
    },
    changes: {
      type: 'array',
      items: {
        type: 'object',
        required: ['line', 'uid', 'action', 'fields'],
        properties: { line: { type: 'integer' }, uid: { type: 'string' }, action: { type: 'string', enum: ['create', 'update'] }, fields: { type: 'array', items: { type: 'string' } } },
      },
    },
    error: { type: ['string', 'null'] },
  },
};
