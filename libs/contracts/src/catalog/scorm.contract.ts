import { IsDefined, IsInt, IsObject, IsString, Max, MaxLength, Min, MinLength } from 'class-validator';
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
}

export const SCORM_VERSIONS = ['scorm_1_2', 'scorm_2004_3rd', 'scorm_2004_4th'] as const;
export type ScormVersion = (typeof SCORM_VERSIONS)[number];

/** How a registration's score becomes the enrollment's (the spec's `score_rollup_mode`). */
export const SCORE_ROLLUP_MODES = ['score_provided_by_course', 'average_sco_score', 'last_sco_score', 'fixed_score'] as const;
export const REGISTRATION_INSTANCING_OPTIONS = ['never', 'once_per_completion', 'every_launch'] as const;
export const LAUNCH_TYPES = ['frameset', 'new_window'] as const;

/** `catalog.scorm.player.state`: what the player page starts from. */
export interface PlayerState {
  version: ScormVersion;
  launch_href: string;
  /** The registration's saved CMI (null on a first launch), for a suspended attempt to resume. */
  cmi: Record<string, unknown> | null;
  learner: { id: string; name: string };
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
  properties: { url: { type: 'string', description: 'The SCORM player for this enrollment: a signed URL, valid for 5 minutes' } },
};

/** Every player call names the registration its credential is bound to. */
export class PlayerCall {
  @IsInt() @Min(1) @Max(MAX_ID)
  registration_id: number;
}

export class PlayerFileCall extends PlayerCall {
  @IsString() @MinLength(1) @MaxLength(1024)
  path: string;
}

export class PlayerCommitCall extends PlayerCall {
  /** The runtime's commit as it sent it (scorm-again: `{ cmi }`, a commit object, or flattened keys). */
  @IsDefined() @IsObject()
  cmi: Record<string, unknown>;
}
