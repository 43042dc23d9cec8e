import { Type } from 'class-transformer';
import { IsDefined, IsNotEmpty, IsObject, IsOptional, IsString, Length, ValidateBy, ValidateNested, type ValidationOptions } from 'class-validator';
import { IsTimestamp } from '../common/timestamp.js';
import { PageQuery } from '../common/query.js';
import type { JsonSchema } from '../routes/route.js';
import { IsUserReference } from './users.contract.js';

export const API_TOKEN_SUBJECTS = {
  list: 'identity.api_tokens.list',
  create: 'identity.api_tokens.create',
  revoke: 'identity.api_tokens.revoke',
} as const;

/** Events recorded through the outbox when a token is issued and revoked (data: ApiTokenEventData). */
export const API_TOKEN_CREATED_EVENT = 'identity.api_token.created';
export const API_TOKEN_REVOKED_EVENT = 'identity.api_token.revoked';

/** Expiry must be a moment still ahead: a token born expired is a mistake, not a request. */
const IsFutureTimestamp = (options?: ValidationOptions) =>
  ValidateBy(
    {
      name: 'isFutureTimestamp',
      validator: { validate: (value: unknown) => typeof value === 'string' && Date.parse(value) > Date.now(), defaultMessage: () => '$property must be in the future' },
    },
    options,
  );

export class ApiTokenInput {
  @IsDefined() @IsUserReference()
  user_id: number | string;

  @IsString() @IsNotEmpty() @Length(1, 100)
  name: string;

  @IsOptional() @IsTimestamp() @IsFutureTimestamp()
  expires_at?: string;
}

export class CreateApiTokenBody {
  @IsDefined() @IsObject() @ValidateNested() @Type(() => ApiTokenInput)
  api_token: ApiTokenInput;
}

export class ListApiTokensQuery extends PageQuery {
  @IsOptional() @IsUserReference()
  user_id?: string;
}

/** A token as listed: never the secret. */
export interface ApiTokenView {
  id: string;
  user_id: string;
  name: string;
  expires_at: string | null;
  created_at: string;
}

/** The create answer: the only time the secret is shown. */
export interface CreatedApiTokenView extends ApiTokenView {
  token: string;
}

export interface ApiTokenEventData {
  id: number;
  userId: number;
  name: string;
}

const TOKEN_PROPERTIES = {
  id: { type: 'string', description: 'numeric text' },
  user_id: { type: 'string', description: 'numeric text: the user the token authenticates as' },
  name: { type: 'string' },
  expires_at: { type: ['string', 'null'], format: 'date-time' },
  created_at: { type: 'string', format: 'date-time' },
};

export const API_TOKEN_SCHEMA: JsonSchema = {
  type: 'object',
  required: ['id', 'user_id', 'name', 'expires_at', 'created_at'],
  properties: TOKEN_PROPERTIES,
};

export const CREATED_API_TOKEN_SCHEMA: JsonSchema = {
  type: 'object',
  required: ['id', 'user_id', 'name', 'token', 'expires_at', 'created_at'],
  properties: { ...TOKEN_PROPERTIES, token: { type: 'string', description: 'the bearer secret; shown in this answer only' } },
};
