import { Type } from 'class-transformer';
import { IsDefined, IsIn, IsInt, IsObject, IsOptional, Matches, Max, Min, ValidateNested } from 'class-validator';
import { MAX_ID, PageQuery, QueryInt } from '../common/query.js';
import type { JsonSchema } from '../routes/route.js';
import { ENROLLMENT_SCHEMA } from './enrollments.contract.js';
import { IsText } from './text.js';

/** Checkpoints as learners do them (issue 22; docs/catalog.md "Checkpoints"). */
export const CHECKPOINT_SUBJECTS = {
  list: 'catalog.checkpoints.enrollments.list',
  enroll: 'catalog.checkpoints.enrollments.create',
  remove: 'catalog.checkpoints.enrollments.delete',
  evidence: 'catalog.checkpoints.evidence',
  complete: 'catalog.checkpoints.complete',
  approvals: 'catalog.checkpoints.approvals.list',
  approve: 'catalog.checkpoints.approvals.approve',
  reject: 'catalog.checkpoints.approvals.reject',
} as const;

/** As stored. */
export const APPROVAL_STATES = ['pending', 'approved', 'rejected'] as const;
export type ApprovalState = (typeof APPROVAL_STATES)[number];

/**
 * As answered: a submission waiting for its decision is `incomplete`, the state the spec saw on mobile and learner
 * records (its "approval state seen: 'incomplete'"); the stored `pending` is read as a filter too.
 */
export const SHOWN_APPROVAL_STATES = ['incomplete', 'approved', 'rejected'] as const;
export type ShownApprovalState = (typeof SHOWN_APPROVAL_STATES)[number];
export const shownApprovalState = (state: ApprovalState): ShownApprovalState => (state === 'pending' ? 'incomplete' : state);
const APPROVAL_FILTERS = [...SHOWN_APPROVAL_STATES, 'pending'] as const;
/** The stored state a list filter names. */
export const storedApprovalState = (state: (typeof APPROVAL_FILTERS)[number]): ApprovalState => (state === 'incomplete' ? 'pending' : state);

export class CheckpointEnrollmentParams {
  @QueryInt() @IsInt() @Min(1) @Max(MAX_ID)
  enrollment_id: number;
}

/** A checkpoint enrollment under its task: `/api/author/tasks/:id/enrollments/:enrollment_id`. */
export class TaskEnrollmentParams {
  @QueryInt() @IsInt() @Min(1) @Max(MAX_ID)
  id: number;

  @QueryInt() @IsInt() @Min(1) @Max(MAX_ID)
  enrollment_id: number;
}

export class EvidenceInput {
  @IsText(20_000) @Matches(/\S/, { message: 'text must not be blank' })
  text: string;
}

/** `POST /api/learner/tasks/:enrollment_id/evidence`: `{ "evidence": { "text": "..." } }`. */
export class CreateEvidenceBody {
  @IsDefined() @IsObject() @ValidateNested() @Type(() => EvidenceInput)
  evidence: EvidenceInput;
}

/** `POST .../approve|reject`: an optional comment to the learner. */
export class ApprovalDecisionBody {
  @IsOptional() @IsText(5_000)
  comment?: string | null;
}

export class ListApprovalsQuery extends PageQuery {
  /** Default incomplete (waiting for a decision); `pending`, its name until 2026-11-29, still reads as it. */
  @IsOptional() @IsIn(APPROVAL_FILTERS, { message: `state must be one of: ${SHOWN_APPROVAL_STATES.join(', ')}` })
  state?: (typeof APPROVAL_FILTERS)[number];
}

export interface ApprovalView {
  id: number;
  state: ShownApprovalState;
  approver_id: number | null;
  comment: string | null;
  decided_at: string | null;
}

export interface EvidenceView {
  id: number;
  text: string | null;
  file_url: string | null;
  created_at: string;
}

const nullable = (type: string, extra: Record<string, unknown> = {}) => ({ type: [type, 'null'], ...extra });

export const APPROVAL_SCHEMA: JsonSchema = {
  type: 'object',
  required: ['id', 'state', 'approver_id', 'comment', 'decided_at'],
  properties: {
    id: { type: 'integer' },
    state: { type: 'string', enum: [...SHOWN_APPROVAL_STATES] },
    approver_id: nullable('integer', { description: 'who decided it (null while incomplete)' }),
    comment: nullable('string'),
    decided_at: nullable('string', { format: 'date-time' }),
  },
};

export const EVIDENCE_SCHEMA: JsonSchema = {
  type: 'object',
  required: ['id', 'text', 'file_url', 'created_at'],
  properties: { id: { type: 'integer' }, text: nullable('string'), file_url: nullable('string'), created_at: { type: 'string', format: 'date-time' } },
};

/** A checkpoint enrollment: the course enrollment record, its latest approval and its evidence. */
export const CHECKPOINT_ENROLLMENT_SCHEMA: JsonSchema = {
  ...ENROLLMENT_SCHEMA,
  properties: {
    ...(ENROLLMENT_SCHEMA.properties as object),
    task_id: { type: 'integer' },
    approval: { oneOf: [{ type: 'null' }, APPROVAL_SCHEMA] },
    evidence: { type: 'array', items: EVIDENCE_SCHEMA },
  },
};

/** An approval as its deciders list it: the decision and what it is about. */
export const APPROVAL_ITEM_SCHEMA: JsonSchema = {
  type: 'object',
  required: ['id', 'state', 'task_id', 'enrollment_id', 'user_id', 'created_at'],
  properties: {
    ...(APPROVAL_SCHEMA.properties as object),
    task_id: { type: 'integer' },
    enrollment_id: { type: 'integer' },
    user_id: { type: 'integer', description: 'the learner' },
    created_at: { type: 'string', format: 'date-time' },
  },
};
