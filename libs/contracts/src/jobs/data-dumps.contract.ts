import { ArrayMaxSize, ArrayMinSize, IsArray, IsOptional, IsString, Matches } from 'class-validator';
import type { JsonSchema } from '../routes/route.js';

export const DATA_DUMP_SUBJECTS = {
  list: 'jobs.data_dumps.list',
  create: 'jobs.data_dumps.create',
  modelNames: 'jobs.data_dumps.model_names',
  download: 'jobs.data_dumps.download',
} as const;

/**
 * `POST /api/admin/data_dumps`: an empty body dumps every model; `only` limits it (an unknown name is a 400).
 * `only: []` is a 400, not an empty dump: the new dump replaces the account's one.
 */
export class CreateDataDumpBody {
  @IsOptional() @IsArray() @ArrayMinSize(1, { message: 'only must name at least one model; leave it out to dump every model' }) @ArrayMaxSize(100) @IsString({ each: true }) @Matches(/^[a-z][a-z0-9_]{0,62}$/, { each: true, message: 'each model name is a lower-case identifier' })
  only?: string[];
}

/** `pending` until the dump is complete; `failed` when it could not be made (its job's messages are logged). */
export type DataDumpStatus = 'pending' | 'complete' | 'failed';

export interface DataDumpView {
  status: DataDumpStatus;
  /** When the dump was asked for (RFC 3339). */
  date: string;
}

export const DATA_DUMP_SCHEMA: JsonSchema = {
  type: 'object',
  required: ['status', 'date'],
  properties: { status: { type: 'string', enum: ['pending', 'complete', 'failed'] }, date: { type: 'string', format: 'date-time' } },
};

export const MODEL_NAMES_SCHEMA: JsonSchema = { type: 'array', items: { type: 'string' } };
