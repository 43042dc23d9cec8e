import { IsBoolean, IsIn, IsInt, IsOptional, IsRFC3339, Max, Min, ValidateIf } from 'class-validator';
import { ENROLLMENT_REMOVAL_REASONS, ENROLLMENT_STATES, type EnrollmentEventData, type EnrollmentRemovalReason, type EnrollmentState } from './enrollments.contract.js';

const MAX_INT = 2_147_483_647;

/** `catalog.enrollment.created|updated|removed` data as a consumer validates it (EnrollmentEventData). */
export class EnrollmentEventPayload implements EnrollmentEventData {
  @IsInt() @Min(1) @Max(MAX_INT)
  id: number;

  @IsInt() @Min(1) @Max(MAX_INT)
  course_template_id: number;

  @IsInt() @Min(1) @Max(MAX_INT)
  user_id: number;

  @IsIn(ENROLLMENT_STATES)
  state: EnrollmentState;

  @IsBoolean()
  required: boolean;

  @ValidateIf((_, value) => value !== null) @IsRFC3339()
  due_at: string | null;

  @ValidateIf((_, value) => value !== null) @IsInt() @Min(1) @Max(MAX_INT)
  group_id: number | null;

  @ValidateIf((_, value) => value !== null) @IsInt() @Min(1) @Max(MAX_INT)
  program_id: number | null;

  @IsOptional() @IsIn(ENROLLMENT_REMOVAL_REASONS)
  removal_reason?: EnrollmentRemovalReason;
}
