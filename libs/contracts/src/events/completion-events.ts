import { IsDefined, IsInt, IsOptional, IsRFC3339, Max, Min, ValidateBy, ValidateIf } from 'class-validator';

/** A learner finished a catalog enrollment: a course, a program or a checkpoint (exactly one of `course_id`, `program_id`, `task_id`). */
export const CATALOG_ENROLLMENT_COMPLETED_EVENT = 'catalog.enrollment.completed';
/** A learner finished a live course enrollment. */
export const LIVE_COURSE_ENROLLMENT_COMPLETED_EVENT = 'scheduling.live_course_enrollment.completed';

const MAX_INT = 2_147_483_647;

/** Exactly one of the properties is present: a catalog enrollment is in a course, a program or a task. */
const ExactlyOneOf = (...names: string[]) =>
  ValidateBy({
    name: 'exactlyOneOf',
    validator: {
      validate: (_value: unknown, args) => {
        const o = args?.object as Record<string, unknown>;
        return names.filter((name) => o[name] !== undefined && o[name] !== null).length === 1;
      },
      defaultMessage: () => `exactly one of ${names.join(', ')} must be given`,
    },
  });

/** What both completion events share; the account is the CloudEvent's `accountid`. */
export class CompletionEventData {
  /** The identity user id of the learner. */
  @IsInt() @Min(1) @Max(MAX_INT)
  user_id: number;

  @IsInt() @Min(1) @Max(MAX_INT)
  enrollment_id: number;

  /** RFC 3339 moment of completion. */
  @IsDefined() @IsRFC3339()
  completed_at: string;

  /** RFC 3339 due moment, or null when the enrollment had no due date (the key is required). */
  @ValidateIf((o: CompletionEventData) => o.due_at !== null) @IsDefined() @IsRFC3339()
  due_at: string | null;
}

export class CatalogEnrollmentCompletedData extends CompletionEventData {
  // Checked when given, and when neither of the others is given (then it is required).
  @ValidateIf((o: CatalogEnrollmentCompletedData) => o.course_id !== undefined || (o.program_id === undefined && o.task_id === undefined))
  @ExactlyOneOf('course_id', 'program_id', 'task_id') @IsInt() @Min(1) @Max(MAX_INT)
  course_id?: number;

  @IsOptional() @IsInt() @Min(1) @Max(MAX_INT)
  program_id?: number;

  /** A checkpoint (task) completed (issue 22). */
  @IsOptional() @IsInt() @Min(1) @Max(MAX_INT)
  task_id?: number;
}

export class LiveCourseEnrollmentCompletedData extends CompletionEventData {
  @IsInt() @Min(1) @Max(MAX_INT)
  live_course_id: number;
}
