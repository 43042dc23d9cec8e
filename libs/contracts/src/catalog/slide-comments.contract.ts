import { Type } from 'class-transformer';
import { IsDefined, IsInt, IsObject, Matches, Max, Min, ValidateNested } from 'class-validator';
import { MAX_ID, PageQuery, QueryInt } from '../common/query.js';
import type { JsonSchema } from '../routes/route.js';
import { IsText } from './text.js';

export const SLIDE_COMMENT_SUBJECTS = {
  list: 'catalog.slide_comments.list',
  create: 'catalog.slide_comments.create',
  show: 'catalog.slide_comments.show',
  update: 'catalog.slide_comments.update',
  delete: 'catalog.slide_comments.delete',
  rate: 'catalog.slide_comments.rate',
} as const;

export const MAX_COMMENT_LENGTH = 10_000;

export class SlideCommentsParams {
  @QueryInt() @IsInt() @Min(1) @Max(MAX_ID)
  course_id: number;

  @QueryInt() @IsInt() @Min(1) @Max(MAX_ID)
  slide_id: number;
}

export class SlideCommentParams extends SlideCommentsParams {
  @QueryInt() @IsInt() @Min(1) @Max(MAX_ID)
  id: number;
}

export class RateSlideCommentParams extends SlideCommentsParams {
  @QueryInt() @IsInt() @Min(1) @Max(MAX_ID)
  comment_id: number;
}

export class SlideCommentFields {
  @IsDefined() @IsText(MAX_COMMENT_LENGTH) @Matches(/\S/, { message: 'body must not be blank' })
  body: string;
}

/** `{"comment": {"body": "…"}}` creates and edits a comment alike. */
export class SlideCommentBody {
  @IsDefined() @IsObject() @ValidateNested() @Type(() => SlideCommentFields)
  comment: SlideCommentFields;
}

export class ListSlideCommentsQuery extends PageQuery {}

export interface SlideCommentView {
  id: number;
  course_id: number;
  slide_id: number;
  body: string;
  author: { id: number; name: string; avatar_url: string | null };
  upvotes_count: number;
  /** Whether the caller upvoted it. */
  upvoted: boolean;
  created_at: string;
  updated_at: string;
}

export const SLIDE_COMMENT_SCHEMA: JsonSchema = {
  type: 'object',
  required: ['id', 'course_id', 'slide_id', 'body', 'author', 'upvotes_count', 'upvoted', 'created_at', 'updated_at'],
  properties: {
    id: { type: 'integer' },
    course_id: { type: 'integer' },
    slide_id: { type: 'integer' },
    body: { type: 'string' },
    author: {
      type: 'object',
      required: ['id', 'name', 'avatar_url'],
      properties: { id: { type: 'integer' }, name: { type: 'string' }, avatar_url: { type: ['string', 'null'] } },
    },
    upvotes_count: { type: 'integer', minimum: 0 },
    upvoted: { type: 'boolean', description: 'the caller upvoted it' },
    created_at: { type: 'string', format: 'date-time' },
    updated_at: { type: 'string', format: 'date-time' },
  },
};
