import { Type } from 'class-transformer';
import { ArrayMaxSize, ArrayMinSize, IsArray, IsDefined, IsInt, IsObject, IsOptional, IsUrl, Matches, Max, MaxLength, Min, ValidateNested } from 'class-validator';
import { MAX_ID, QueryInt } from '../common/query.js';
import type { JsonSchema } from '../routes/route.js';
import { IsText } from './text.js';

export const LTI_SUBJECTS = {
  create: 'catalog.lti_content_items.create',
  show: 'catalog.lti_content_items.show',
  complete: 'catalog.lti_content_items.complete',
  launch: 'catalog.lti_content_items.launch',
} as const;

/** An LTI 1.1 tool link of a course: what a learner sees of it (spec: LTI content item). */
export interface LtiContentItemView {
  id: number;
  title: string;
  description: string;
}

/** What its authors see: the tool's address and consumer key too, never the secret. */
export interface AuthorLtiContentItemView extends LtiContentItemView {
  course_template_id: number;
  launch_url: string;
  consumer_key: string;
  custom_field: string;
  created_at: string;
}

export const LTI_CONTENT_ITEM_SCHEMA: JsonSchema = {
  type: 'object',
  required: ['id', 'title', 'description'],
  properties: { id: { type: 'integer' }, title: { type: 'string' }, description: { type: 'string' } },
};

export const AUTHOR_LTI_CONTENT_ITEM_SCHEMA: JsonSchema = {
  type: 'object',
  required: ['id', 'title', 'description', 'course_template_id', 'launch_url', 'consumer_key', 'custom_field', 'created_at'],
  properties: {
    ...(LTI_CONTENT_ITEM_SCHEMA.properties as Record<string, unknown>),
    course_template_id: { type: 'integer' },
    launch_url: { type: 'string', format: 'uri' },
    consumer_key: { type: 'string' },
    custom_field: { type: 'string', description: 'sent as the custom_field launch parameter' },
    created_at: { type: 'string', format: 'date-time' },
  },
};

const LAUNCH_PARAMETERS = [
  'context_id', 'context_label', 'custom_field', 'launch_presentation_document_target', 'launch_presentation_return_url', 'lis_person_contact_email_primary',
  'lis_person_name_family', 'lis_person_name_full', 'lis_person_name_given', 'lti_message_type', 'lti_version', 'oauth_callback', 'oauth_consumer_key',
  'oauth_nonce', 'oauth_signature', 'oauth_signature_method', 'oauth_timestamp', 'oauth_version', 'resource_link_description', 'resource_link_id', 'roles',
  'tool_consumer_info_product_family_code', 'tool_consumer_instance_guid', 'tool_consumer_instance_name', 'tool_consumer_instance_url', 'user_id',
] as const;
export type LtiLaunchParameter = (typeof LAUNCH_PARAMETERS)[number];

export interface LtiLaunchView {
  lti_content_item_id: string;
  program_id: string;
  launch_url: string;
  launch_data: Record<LtiLaunchParameter, string>;
}

export const LTI_LAUNCH_SCHEMA: JsonSchema = {
  type: 'object',
  required: ['lti_content_item_id', 'program_id', 'launch_url', 'launch_data'],
  properties: {
    lti_content_item_id: { type: 'string' },
    program_id: { type: 'string', description: 'the program given, else empty' },
    launch_url: { type: 'string', description: 'where the launch form is POSTed' },
    launch_data: {
      type: 'object',
      description: 'LTI 1.1 launch parameters, signed with OAuth 1.0a HMAC-SHA1 over POST launch_url with the item\'s consumer key and secret',
      required: [...LAUNCH_PARAMETERS],
      properties: Object.fromEntries(LAUNCH_PARAMETERS.map((name) => [name, { type: 'string' }])),
    },
  },
};

export class LtiContentItemRequest {
  @IsDefined() @IsText(255) @Matches(/\S/, { message: 'title must not be blank' })
  title: string;

  @IsOptional() @IsText(20_000)
  description?: string;

  @IsDefined() @IsUrl({ protocols: ['http', 'https'], require_protocol: true }) @MaxLength(2048)
  launch_url: string;

  @IsDefined() @IsText(255) @Matches(/\S/, { message: 'consumer_key must not be blank' })
  consumer_key: string;

  @IsDefined() @IsText(255) @Matches(/\S/, { message: 'consumer_secret must not be blank' })
  consumer_secret: string;

  @IsOptional() @IsText(2000)
  custom_field?: string;
}

export class CreateLtiContentItemsBody {
  @IsDefined() @IsArray() @ArrayMinSize(1) @ArrayMaxSize(100) @IsObject({ each: true }) @ValidateNested({ each: true }) @Type(() => LtiContentItemRequest)
  lti_content_items: LtiContentItemRequest[];
}

export class LtiLaunchQuery {
  @IsDefined() @QueryInt() @IsInt() @Min(1) @Max(MAX_ID)
  lti_content_item_id: number;

  @IsOptional() @QueryInt() @IsInt() @Min(1) @Max(MAX_ID)
  program_id?: number;
}
