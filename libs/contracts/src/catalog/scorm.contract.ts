import { IsDefined, IsInt, IsObject, IsOptional, IsString, Max, MaxLength, Min, MinLength } from 'class-validator';
import { MAX_ID } from '../common/query.js';
import type { JsonSchema } from '../routes/route.js';

/** Subjects of SCORM packages and their player (catalog; docs/scorm.md). */
export const SCORM_SUBJECTS = {
  upload: 'catalog.scorm.upload',
  launchUrl: 'catalog.scorm.launch_url',
  mobileLaunch: 'catalog.scorm.mobile_launch',
  /** The player's own calls, made by the gateway with a player credential, not by any route. */
  playerState: 'catalog.scorm.player.state',
  playerFile: 'catalog.scorm.player.file',
  playerCommit: 'catalog.scorm.player.commit',
} as const;

/** What the gateway hands a service for an upload route: the request body, streamed into the file store. */
export interface UploadedFile {
  key: string;
  size: number;
  content_type: string;
  /** The file name a multipart part gave (its last path segment), when it gave one. */
  name?: string;
}

/** What an upload route's service receives: the staged file, and the text fields of a multipart body. */
export interface UploadRequestBody {
  upload: UploadedFile;
  fields?: Record<string, string>;
}

const isString = (v: unknown): v is string => typeof v === 'string';

/** Whether a body is an upload as the gateway stages it (a service checks, as it checks JSON bodies against their DTO). */
export function isUploadRequestBody(body: unknown): body is UploadRequestBody {
  if (typeof body !== 'object' || body === null) return false;
  const { upload, fields, ...rest } = body as Record<string, unknown>;
  if (Object.keys(rest).length > 0 || typeof upload !== 'object' || upload === null) return false;
  const { key, size, content_type: type, name, ...extra } = upload as Record<string, unknown>;
  const fileOk = Object.keys(extra).length === 0 && isString(key) && key.startsWith('uploads/') && Number.isSafeInteger(size) && (size as number) >= 0 && isString(type) && (name === undefined || isString(name));
  const fieldsOk = fields === undefined || (typeof fields === 'object' && fields !== null && Object.values(fields).every(isString));
  return fileOk && fieldsOk;
}

export const SCORM_VERSIONS = ['scorm_1_2', 'scorm_2004_3rd', 'scorm_2004_4th'] as const;
export type ScormVersion = (typeof SCORM_VERSIONS)[number];

/** How a registration's score becomes the enrollment's (the spec's `score_rollup_mode`). */
export const SCORE_ROLLUP_MODES = ['score_provided_by_course', 'average_sco_score', 'last_sco_score', 'fixed_score'] as const;
export const REGISTRATION_INSTANCING_OPTIONS = ['never', 'once_per_completion', 'every_launch'] as const;
export const LAUNCH_TYPES = ['frameset', 'new_window'] as const;

/** One entry of the player's table of contents: a SCO of the package, in organization order. */
export interface PlayerSco {
  identifier: string;
  title: string;
  /** Relative to the package root, with the item's parameters. */
  href: string;
  /** The SCO's completion in this attempt. */
  complete: boolean;
}

/** `catalog.scorm.player.state`: what the player page starts from, or what one SCO resumes from (`sco`). */
export interface PlayerState {
  version: ScormVersion;
  /** The package's SCOs in organization order (one for a single-SCO package). */
  scos: PlayerSco[];
  /** The SCO this state is about: the one asked for, else where the learner left off (docs/scorm.md). */
  sco: number;
  /** That SCO's saved CMI (null on its first launch), for a suspended SCO to resume. */
  cmi: Record<string, unknown> | null;
  learner: { id: string; name: string };
  /** The course's launch settings as the player applies them: frameset or new_window. */
  player_launch_type: string;
  sco_launch_type: string;
}

/** `catalog.scorm.player.file`: where a package file lives in the file store. */
export interface PlayerFile {
  file_key: string;
  size: number;
  content_type: string;
}

export const LAUNCH_URL_SCHEMA: JsonSchema = {
  type: 'object',
  required: ['url'],
  properties: {
    url: { type: 'string', description: 'The SCORM player for this enrollment: a signed URL, valid for 5 minutes' },
    player_launch_type: { type: 'string', enum: ['frameset', 'new_window'], description: "The course's player_launch_type: open the URL in a new window, or in a frame of a page of this origin" },
  },
};

/** Every player call names the registration its credential is bound to. */
export class PlayerCall {
  @IsInt() @Min(1) @Max(MAX_ID)
  registration_id: number;
}

/** The SCOs a package may list (a manifest with more is refused): each is addressed by its place, 0 to MAX_SCOS - 1. */
export const MAX_SCOS = 20_000;
/** A SCO of the package by its place in the table of contents (0 is the launch SCO). */
const MAX_SCO_INDEX = MAX_SCOS - 1;

export class PlayerStateCall extends PlayerCall {
  /** Absent: the SCO the learner left off at. */
  @IsOptional() @IsInt() @Min(0) @Max(MAX_SCO_INDEX)
  sco?: number;
}

export class PlayerFileCall extends PlayerCall {
  @IsString() @MinLength(1) @MaxLength(1024)
  path: string;
}

export class PlayerCommitCall extends PlayerCall {
  /** The SCO that committed, by its place in the table of contents; absent: the launch SCO. */
  @IsOptional() @IsInt() @Min(0) @Max(MAX_SCO_INDEX)
  sco?: number;

  /** The runtime's commit as it sent it (scorm-again: `{ cmi }`, a commit object, or flattened keys). */
  @IsDefined() @IsObject()
  cmi: Record<string, unknown>;
}
