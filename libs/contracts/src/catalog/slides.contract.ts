import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsBoolean,
  IsDefined,
  IsIn,
  IsInt,
  IsNumber,
  IsObject,
  IsOptional,
  Matches,
  Max,
  MaxLength,
  Min,
  ValidateBy,
  ValidateIf,
  ValidateNested,
  type ValidationArguments,
} from 'class-validator';
import { MAX_ID, PageQuery, QueryInt } from '../common/query.js';
import type { JsonSchema } from '../routes/route.js';
import { IsText, NoNul } from './text.js';
import { CourseTemplateParams } from './course-templates.contract.js';
import { NullAllowed } from '../common/documented.js';
import { IsLink } from '../common/link.js';

export const SLIDE_SUBJECTS = {
  list: 'catalog.slides.list',
  show: 'catalog.slides.show',
  create: 'catalog.slides.create',
  update: 'catalog.slides.update',
  delete: 'catalog.slides.delete',
} as const;

export const ATTACHMENT_ALIGNS = ['top', 'left', 'wide', 'bottom'] as const;
/** The slide type whose cover data must carry a heading. */
export const COVER_SLIDE_TYPE = 'cover';
export const MAX_SLIDES_PER_COURSE = 1000;
/** Slide types that hold questions (SlideAttributes `type` is a lower-case word the player knows). */
export const QUIZ_SLIDE_TYPES: readonly string[] = ['quiz', 'question'];
export const MIN_QUESTION_CHOICES = 2;
export const MAX_QUESTION_CHOICES = 20;
/** A choice id: what a learner's answer names (letters, digits, `_` and `-`). */
export const CHOICE_ID = /^[A-Za-z0-9_-]{1,50}$/;

const HEX_COLOUR = /^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/;
const hexMessage = { message: '$property must be a hex colour such as #1a2b3c' };
const hasImage = (o: CoverSlideData) => o.backgroundImageUrl !== undefined && o.backgroundImageUrl !== null;

/** The spec's CoverSlideData (camelCase keys as the spec spells them). */
export class CoverSlideData {
  @IsDefined() @IsBoolean()
  dark: boolean;

  /** Required on cover slides (checked with the slide's type, see SlideAttributes). */
  @IsOptional() @IsText(500)
  heading?: string;

  @IsOptional() @IsText(5000)
  intro?: string;

  @IsOptional() @IsText(7) @Matches(HEX_COLOUR, hexMessage)
  backgroundColor?: string;

  @IsOptional() @IsText(7) @Matches(HEX_COLOUR, hexMessage)
  primaryColor?: string;

  @IsOptional() @IsLink() @MaxLength(2048)
  backgroundImageUrl?: string;

  @ValidateIf(hasImage) @IsDefined({ message: 'backgroundImageStyle is required with backgroundImageUrl' }) @IsText(50)
  backgroundImageStyle?: string;

  @ValidateIf(hasImage) @IsDefined({ message: 'backgroundImageOpacity is required with backgroundImageUrl' }) @IsNumber({ allowNaN: false, allowInfinity: false }) @Min(0) @Max(1)
  backgroundImageOpacity?: number;
}

/** One answer a learner may pick; `correct` is the authors' (learners never see it, docs/catalog.md). */
export class SlideQuestionChoice {
  @IsDefined() @IsText(50) @Matches(CHOICE_ID, { message: 'id must be 1 to 50 letters, digits, _ or -' })
  id: string;

  @IsDefined() @IsText(2000) @Matches(/\S/, { message: 'text must not be blank' })
  text: string;

  @IsDefined() @IsBoolean()
  correct: boolean;
}

type ChoiceLike = { id?: unknown; correct?: unknown };
const choiceList = (value: unknown): ChoiceLike[] | undefined =>
  Array.isArray(value) && value.every((c) => typeof c === 'object' && c !== null) ? (value as ChoiceLike[]) : undefined;

/** The rules across a question's choices: unique ids, at least one correct, exactly one unless `multiple`. */
const ChoiceRules = () =>
  ValidateBy({
    name: 'choiceRules',
    validator: {
      validate: (value: unknown, args?: ValidationArguments) => choiceProblem(value, (args?.object as SlideQuestion | undefined)?.multiple === true) === undefined,
      defaultMessage: (args?: ValidationArguments) => choiceProblem(args?.value, (args?.object as SlideQuestion | undefined)?.multiple === true) ?? 'choices are not valid',
    },
  });

function choiceProblem(value: unknown, multiple: boolean): string | undefined {
  const choices = choiceList(value);
  if (!choices) return undefined; // the array and object checks say what is wrong
  const ids = choices.map((c) => c.id);
  if (new Set(ids).size !== ids.length) return 'choices must have unique ids';
  const correct = choices.filter((c) => c.correct === true).length;
  if (correct === 0) return 'at least one choice must be correct';
  if (!multiple && correct > 1) return 'exactly one choice must be correct unless multiple is true';
  return undefined;
}

/** The answer model of a quiz slide: a prompt and its choices, one correct (or several with `multiple`). */
export class SlideQuestion {
  @IsDefined() @IsText(5000) @Matches(/\S/, { message: 'prompt must not be blank' })
  prompt: string;

  @IsDefined() @IsArray() @ArrayMinSize(MIN_QUESTION_CHOICES) @ArrayMaxSize(MAX_QUESTION_CHOICES) @IsObject({ each: true })
  @ChoiceRules() @ValidateNested({ each: true }) @Type(() => SlideQuestionChoice)
  choices: SlideQuestionChoice[];

  /** Several choices may be correct, and the learner picks several; absent is false. */
  @IsOptional() @IsBoolean()
  multiple?: boolean;
}

/** A question belongs on a quiz slide only (its type says so). */
const OnQuizSlide = () =>
  ValidateBy({
    name: 'onQuizSlide',
    validator: {
      validate: (_value: unknown, args?: ValidationArguments) => QUIZ_SLIDE_TYPES.includes(String((args?.object as SlideAttributes | undefined)?.type)),
      defaultMessage: () => `question is only for slides of type ${QUIZ_SLIDE_TYPES.join(' or ')}`,
    },
  });

const isCover = (o: SlideAttributes) => o.type === COVER_SLIDE_TYPE;

/** A cover slide's heading lives in its cover data, but whether it is required depends on the slide's type. */
const CoverHeading = () =>
  ValidateBy({
    name: 'coverHeading',
    validator: {
      validate: (value: unknown, args?: ValidationArguments) => {
        if (!args || !isCover(args.object as SlideAttributes)) return true;
        const heading = (value as { heading?: unknown } | null)?.heading;
        return typeof heading === 'string' && /\S/.test(heading);
      },
      defaultMessage: () => 'cover_slide_data.heading is required on cover slides',
    },
  });

/** The spec's SlideAttributes. `allow_comments` must be present (true, false or null). */
export class SlideAttributes {
  @IsOptional() @IsText(500)
  title?: string;

  @IsOptional() @IsText(100_000)
  body?: string;

  @IsOptional() @IsText(50) @Matches(/^[a-z][a-z0-9_]{0,49}$/, { message: 'type must be a lower-case slide type such as "cover" or "content"' })
  type?: string;

  @NullAllowed() @IsDefined({ message: 'allow_comments is required (true, false or null)' }) @IsBoolean()
  allow_comments: boolean | null;

  @ValidateIf((o: SlideAttributes, value) => isCover(o) || value !== undefined)
  @IsDefined({ message: 'cover_slide_data is required on cover slides' }) @IsObject() @CoverHeading() @ValidateNested() @Type(() => CoverSlideData)
  cover_slide_data?: CoverSlideData;

  @IsOptional() @IsLink() @MaxLength(2048)
  attachment_url?: string | null;

  @IsOptional() @IsIn(ATTACHMENT_ALIGNS, { message: `attachment_align must be one of: ${ATTACHMENT_ALIGNS.join(', ')}` })
  attachment_align?: string | null;

  @IsOptional() @IsBoolean()
  static_order?: boolean | null;

  /** The answer model of a quiz slide (type quiz or question); null or absent: none. */
  @IsOptional() @IsObject() @OnQuizSlide() @ValidateNested() @Type(() => SlideQuestion)
  question?: SlideQuestion | null;
}

/** Fields of one slide in a create (draft_attributes required) or an update (all optional). */
export class SlideInput {
  @IsDefined() @IsObject() @ValidateNested() @Type(() => SlideAttributes)
  draft_attributes: SlideAttributes;

  /** 1-based draft position; absent appends. A position past the end appends too. */
  @IsOptional() @IsInt() @Min(1) @Max(MAX_SLIDES_PER_COURSE)
  new_position?: number;

  /** Minutes. */
  @IsOptional() @IsInt() @Min(0) @Max(100_000)
  estimated_time?: number;

  @IsOptional() @IsArray() @ArrayMaxSize(50) @IsObject({ each: true }) @NoNul()
  attachments?: Record<string, unknown>[];
}

export class SlideChanges {
  @ValidateIf((_, value) => value !== undefined) @IsObject() @ValidateNested() @Type(() => SlideAttributes)
  draft_attributes?: SlideAttributes;

  @ValidateIf((_, value) => value !== undefined) @IsInt() @Min(1) @Max(MAX_SLIDES_PER_COURSE)
  new_position?: number;

  @ValidateIf((_, value) => value !== undefined) @IsInt() @Min(0) @Max(100_000)
  estimated_time?: number;

  @ValidateIf((_, value) => value !== undefined) @IsArray() @ArrayMaxSize(50) @IsObject({ each: true }) @NoNul()
  attachments?: Record<string, unknown>[];
}

export class CreateSlidesBody {
  @IsDefined() @IsArray() @ArrayMinSize(1) @ArrayMaxSize(100) @IsObject({ each: true }) @ValidateNested({ each: true }) @Type(() => SlideInput)
  slides: SlideInput[];
}

export class UpdateSlideBody {
  @IsDefined() @IsObject() @ValidateNested() @Type(() => SlideChanges)
  slide: SlideChanges;
}

export class ListSlidesQuery extends PageQuery {}

export class SlideParams extends CourseTemplateParams {
  @QueryInt() @IsInt() @Min(1) @Max(MAX_ID)
  id: number;
}

export interface CoverSlideDataView {
  dark: boolean;
  heading?: string;
  intro?: string;
  backgroundColor?: string;
  primaryColor?: string;
  backgroundImageUrl?: string;
  backgroundImageStyle?: string;
  backgroundImageOpacity?: number;
}

export interface SlideAttributesView {
  title?: string;
  body?: string;
  type?: string;
  allow_comments: boolean | null;
  cover_slide_data?: CoverSlideDataView;
  attachment_url?: string | null;
  attachment_align?: string | null;
  static_order?: boolean | null;
  question?: SlideQuestionView | null;
}

export interface SlideQuestionView {
  prompt: string;
  choices: { id: string; text: string; correct: boolean }[];
  multiple?: boolean;
}

export interface OrderedSlideView {
  id: number;
  position: number | null;
  new_position: number | null;
  published_attributes: SlideAttributesView | null;
  draft_attributes: SlideAttributesView;
  published_at: string | null;
  estimated_time: number;
  attachments: unknown[];
}

const LINK_DESCRIPTION = 'an absolute http(s) URL (any host) or a relative reference such as /api/files/a.png; other schemes are refused';

const COVER_SLIDE_DATA_SCHEMA: JsonSchema = {
  type: 'object',
  required: ['dark'],
  properties: {
    dark: { type: 'boolean' }, heading: { type: 'string', description: 'required on cover slides' }, intro: { type: 'string' },
    backgroundColor: { type: 'string', pattern: HEX_COLOUR.source }, primaryColor: { type: 'string', pattern: HEX_COLOUR.source },
    backgroundImageUrl: { type: 'string', maxLength: 2048, description: LINK_DESCRIPTION },
    backgroundImageStyle: { type: 'string', description: 'required with backgroundImageUrl' },
    backgroundImageOpacity: { type: 'number', minimum: 0, maximum: 1, description: 'required with backgroundImageUrl' },
  },
};

const SLIDE_QUESTION_SCHEMA: JsonSchema = {
  type: ['object', 'null'],
  description: 'the answer model of a quiz slide (type quiz or question); authors only',
  required: ['prompt', 'choices'],
  properties: {
    prompt: { type: 'string' },
    choices: {
      type: 'array', minItems: MIN_QUESTION_CHOICES, maxItems: MAX_QUESTION_CHOICES,
      items: { type: 'object', required: ['id', 'text', 'correct'], properties: { id: { type: 'string', pattern: CHOICE_ID.source }, text: { type: 'string' }, correct: { type: 'boolean' } } },
    },
    multiple: { type: 'boolean', description: 'several choices correct; absent is false' },
  },
};

const SLIDE_ATTRIBUTES_SCHEMA: JsonSchema = {
  type: ['object', 'null'],
  required: ['allow_comments'],
  properties: {
    title: { type: 'string' }, body: { type: 'string' }, type: { type: 'string' },
    allow_comments: { type: ['boolean', 'null'] }, cover_slide_data: COVER_SLIDE_DATA_SCHEMA,
    attachment_url: { type: ['string', 'null'], maxLength: 2048, description: LINK_DESCRIPTION }, attachment_align: { type: ['string', 'null'], enum: [...ATTACHMENT_ALIGNS, null] },
    static_order: { type: ['boolean', 'null'] },
    question: SLIDE_QUESTION_SCHEMA,
  },
};

/** What a learner sees of a question: its choices, without which are correct. */
const LEARNER_QUESTION_SCHEMA: JsonSchema = {
  type: ['object', 'null'],
  description: 'the question of a quiz slide, null on other slides; which choices are correct is not shown',
  required: ['prompt', 'choices', 'multiple'],
  properties: {
    prompt: { type: 'string' },
    choices: { type: 'array', items: { type: 'object', required: ['id', 'text'], properties: { id: { type: 'string' }, text: { type: 'string' } } } },
    multiple: { type: 'boolean', description: 'several choices may be picked' },
  },
};

/** A slide's published attributes as a learner reads them (`question` without the verdicts). */
export const LEARNER_SLIDE_ATTRIBUTES_SCHEMA: JsonSchema = {
  ...SLIDE_ATTRIBUTES_SCHEMA,
  type: 'object',
  properties: { ...(SLIDE_ATTRIBUTES_SCHEMA.properties as Record<string, JsonSchema>), question: LEARNER_QUESTION_SCHEMA },
};

export const ORDERED_SLIDE_SCHEMA: JsonSchema = {
  type: 'object',
  required: ['id', 'position', 'new_position', 'published_attributes', 'draft_attributes', 'published_at', 'estimated_time', 'attachments'],
  properties: {
    id: { type: 'integer' },
    position: { type: ['integer', 'null'], description: 'published position; null until published' },
    new_position: { type: ['integer', 'null'], description: 'draft position, 1..n' },
    published_attributes: SLIDE_ATTRIBUTES_SCHEMA,
    draft_attributes: { ...SLIDE_ATTRIBUTES_SCHEMA, type: 'object' },
    published_at: { type: ['string', 'null'], format: 'date-time' },
    estimated_time: { type: 'integer', description: 'minutes' },
    attachments: { type: 'array', items: { type: 'object' } },
  },
};
