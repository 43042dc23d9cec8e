import { Type } from 'class-transformer';
import { ArrayMaxSize, ArrayMinSize, IsArray, IsDefined, IsInt, IsObject, Max, Min, ValidateNested } from 'class-validator';
import { MAX_ID, PageQuery, QueryInt } from '../common/query.js';
import type { JsonSchema } from '../routes/route.js';
import { CourseTemplateParams } from './course-templates.contract.js';

export const COURSE_AUTHOR_SUBJECTS = {
  list: 'catalog.course_authors.list',
  add: 'catalog.course_authors.add',
  remove: 'catalog.course_authors.remove',
} as const;

/** data: CourseAuthorEventData */
export const COURSE_AUTHOR_ADDED_EVENT = 'catalog.course_author.added';
export const COURSE_AUTHOR_REMOVED_EVENT = 'catalog.course_author.removed';

/** One user to add, by id (as group learners take them). */
export class CourseAuthorInput {
  @IsDefined() @IsInt() @Min(1) @Max(MAX_ID)
  user_id: number;
}

/** `POST .../authors`: `{ "users": [{ "user_id": 7 }] }`, all or nothing. */
export class AddCourseAuthorsBody {
  @IsDefined() @IsArray() @ArrayMinSize(1) @ArrayMaxSize(100) @IsObject({ each: true }) @ValidateNested({ each: true }) @Type(() => CourseAuthorInput)
  users: CourseAuthorInput[];
}

export class ListCourseAuthorsQuery extends PageQuery {}

/** `:id` of `DELETE .../authors/:id` is the author's user id. */
export class CourseAuthorParams extends CourseTemplateParams {
  @QueryInt() @IsInt() @Min(1) @Max(MAX_ID)
  id: number;
}

export interface CourseAuthorView {
  id: string;
  uid: string;
  name: string;
  email: string | null;
  avatar_url: string | null;
  deleted_at: string | null;
  added_at: string;
}

export interface CourseAuthorEventData {
  course_template_id: number;
  user_id: number;
}

export const COURSE_AUTHOR_SCHEMA: JsonSchema = {
  type: 'object',
  required: ['id', 'uid', 'name', 'email', 'avatar_url', 'deleted_at', 'added_at'],
  properties: {
    id: { type: 'string', description: "the author's user id" },
    uid: { type: 'string' },
    name: { type: 'string' },
    email: { type: ['string', 'null'] },
    avatar_url: { type: ['string', 'null'] },
    deleted_at: { type: ['string', 'null'], format: 'date-time', description: 'set when the user was deleted; a deleted user stays an author' },
    added_at: { type: 'string', format: 'date-time' },
  },
};
