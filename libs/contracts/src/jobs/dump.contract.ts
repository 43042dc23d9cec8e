import { ArrayMaxSize, IsArray, IsIn, IsInt, IsOptional, IsString, Matches, Max, MaxLength, Min } from 'class-validator';

/**
 * The one generic dump subject pair every service with tables serves (platform `dumpModule`): the models it
 * exports, and a page of one model's rows of the caller's account. A service joins the data dump by serving
 * them and being listed in DUMP_SERVICES; its tables are in the dump without jobs changing.
 */
export const dumpSubjects = (service: string) => ({ models: `${service}.dump.models`, rows: `${service}.dump.rows` }) as const;

/** Services asked for their part of a data dump, in the order their models appear. */
export const DUMP_SERVICES = ['identity', 'catalog', 'scheduling'] as const;

/** Most rows a page may ask for; a service may answer fewer (it also caps a page's size in bytes). */
export const MAX_DUMP_PAGE = 10_000;

/** `rows`: values in column order (DumpRowsReply); `csv`: the page already written as CSV lines (DumpCsvReply). */
export const DUMP_FORMATS = ['rows', 'csv'] as const;
export type DumpFormat = (typeof DUMP_FORMATS)[number];

export interface DumpModelsReply {
  models: string[];
}

/** `<service>.dump.rows`: the rows of `model` after `after` (the previous page's `next`), in key order. */
export class DumpRowsRequest {
  @IsString() @Matches(/^[a-z][a-z0-9_]{0,62}$/)
  model: string;

  @IsOptional() @IsArray() @ArrayMaxSize(8) @IsString({ each: true }) @MaxLength(200, { each: true })
  after?: string[];

  @IsInt() @Min(1) @Max(MAX_DUMP_PAGE)
  limit: number;

  @IsOptional() @IsIn(DUMP_FORMATS)
  format?: DumpFormat;
}

interface DumpPage {
  /** Column names, the CSV header. */
  columns: string[];
  /** Where the next page starts; absent on the last page. */
  next?: string[];
}

export interface DumpRowsReply extends DumpPage {
  /** Values in column order: strings, numbers, booleans, null, or JSON for arrays and objects. */
  rows: unknown[][];
}

/**
 * The page as CSV lines (no header), written by the service that read it: the rows cross the bus once as
 * text instead of as JSON to be parsed and written again, which more than doubles a dump's rate.
 */
export interface DumpCsvReply extends DumpPage {
  csv: string;
}
