import { Type } from 'class-transformer';
import { IsBoolean, IsDefined, IsIn, IsInt, IsObject, IsOptional, Max, Min, ValidateNested } from 'class-validator';
import { IsText } from '../catalog/text.js';
import { MAX_ID, PageQuery, QueryBool, QueryInt } from '../common/query.js';
import type { JsonSchema } from '../routes/route.js';
import { LiveCourseParams } from './live-courses.contract.js';

export const WEB_CONFERENCE_SUBJECTS = {
  list: 'scheduling.web_conferences.list',
  listOfCourse: 'scheduling.web_conferences.list_of_course',
  show: 'scheduling.web_conferences.show',
  save: 'scheduling.web_conferences.save',
  delete: 'scheduling.web_conferences.delete',
} as const;

/** Spec: one of eight third-party provider names, or `Other` (then `other_provider` names it). */
export const WEB_CONFERENCE_PROVIDERS = ['provider_1', 'provider_2', 'provider_3', 'provider_4', 'provider_5', 'provider_6', 'provider_7', 'provider_8', 'Other'] as const;

const Detail = () => (target: object, key: string | symbol) => {
  IsOptional()(target, key);
  IsText(2_000)(target, key);
};

/** WebConferenceRequest: every field optional here; what a saved conference must have is checked by the service (422). */
export class WebConferenceRequest {
  @IsOptional() @IsIn(WEB_CONFERENCE_PROVIDERS, { message: `provider must be one of: ${WEB_CONFERENCE_PROVIDERS.join(', ')}` })
  provider?: string;

  @Detail() other_provider?: string | null;
  @Detail() meeting_url?: string | null;
  @Detail() access_code?: string | null;
  @Detail() phone?: string | null;
  @Detail() host_key?: string | null;
  @Detail() password?: string | null;
  @Detail() registration_link?: string | null;

  /** Also save these details as the caller's defaults for new sessions. */
  @IsOptional() @IsBoolean()
  default_session?: boolean;

  /** Also save them to every other session of the live course. */
  @IsOptional() @IsBoolean()
  apply_all?: boolean;
}

export class SaveWebConferenceBody {
  @IsDefined() @IsObject() @ValidateNested() @Type(() => WebConferenceRequest)
  web_conference: WebConferenceRequest;
}

export class WebConferenceParams extends LiveCourseParams {
  @QueryInt() @IsInt() @Min(1) @Max(MAX_ID)
  session_id: number;
}

export class ListWebConferencesQuery extends PageQuery {
  @IsOptional() @QueryInt() @IsInt() @Min(1) @Max(MAX_ID)
  live_course_id?: number;

  /** Only the caller's saved defaults. */
  @IsOptional() @QueryBool() @IsBoolean()
  default_session?: boolean;
}

export interface WebConferenceView {
  id: number | null;
  live_course_session_id: number | null;
  provider: string;
  other_provider: string | null;
  meeting_url: string | null;
  access_code: string | null;
  phone: string | null;
  host_key: string | null;
  password: string | null;
  registration_link: string | null;
}

const text = { type: ['string', 'null'] };
export const WEB_CONFERENCE_SCHEMA: JsonSchema = {
  type: 'object',
  required: ['id', 'live_course_session_id', 'provider'],
  properties: {
    id: { type: ['integer', 'null'], description: "null for the caller's defaults (default_session=true)" },
    live_course_session_id: { type: ['integer', 'null'] },
    provider: { type: 'string', enum: [...WEB_CONFERENCE_PROVIDERS] },
    other_provider: text, meeting_url: text, access_code: text, phone: text, host_key: text, password: text, registration_link: text,
  },
};
