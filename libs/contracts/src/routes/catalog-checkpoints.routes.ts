import { APPROVAL_ITEM_SCHEMA, ApprovalDecisionBody, CHECKPOINT_ENROLLMENT_SCHEMA, CHECKPOINT_SUBJECTS as S, CheckpointEnrollmentParams, CreateEvidenceBody, EVIDENCE_SCHEMA, ListApprovalsQuery, TaskEnrollmentParams } from '../catalog/checkpoints.contract.js';
import { CreateEnrollmentsBody, ListEnrollmentsQuery, SKIPPED_ENROLLMENT_SCHEMA } from '../catalog/enrollments.contract.js';
import { IdParams } from '../common/query.js';
import { defineRoute } from './route.js';

const enrollments = { kind: 'envelope', key: 'enrollments', item: CHECKPOINT_ENROLLMENT_SCHEMA } as const;
const approvals = { kind: 'envelope', key: 'approvals', item: APPROVAL_ITEM_SCHEMA } as const;

/** Checkpoint enrollments, evidence and approvals (issue 22; docs/catalog.md "Checkpoints"): the course enrollment paths' twins. */
export const CATALOG_CHECKPOINT_ROUTES = [
  defineRoute({
    method: 'GET', path: '/api/author/tasks/:id/enrollments', subject: S.list, status: 200, paged: true,
    summary: "A checkpoint's enrollments (newest first), each with its latest approval and its evidence; state filters as for courses",
    params: IdParams, query: ListEnrollmentsQuery, response: enrollments,
  }),
  defineRoute({
    method: 'POST', path: '/api/author/tasks/:id/enrollments', subject: S.enroll, status: 201,
    summary: "Enroll users or groups' learners in a published checkpoint; due date from the task's defaults when not given; a user enrolled already is skipped and reported",
    params: IdParams, body: CreateEnrollmentsBody, response: { ...enrollments, also: { skipped: SKIPPED_ENROLLMENT_SCHEMA } },
  }),
  defineRoute({
    method: 'DELETE', path: '/api/author/tasks/:id/enrollments/:enrollment_id', subject: S.remove, status: 204,
    summary: "Take a learner out of a checkpoint: the enrollment stays in the history (state=removed), its pending approval goes, and in a program it no longer holds the learner back nor counts towards completion",
    params: TaskEnrollmentParams, response: { kind: 'empty' },
  }),
  defineRoute({
    method: 'POST', path: '/api/learner/tasks/:enrollment_id/evidence', subject: S.evidence, status: 201,
    summary: "The caller adds evidence to their open checkpoint enrollment: `{\"evidence\": {\"text\": ...}}` as JSON, or a `file` (and an optional `text`) as multipart/form-data, up to UPLOAD_MAX_BYTES",
    params: CheckpointEnrollmentParams, body: CreateEvidenceBody, response: { kind: 'envelope', key: 'evidence', item: EVIDENCE_SCHEMA },
    upload: { contentTypes: ['multipart/form-data'], fields: ['text'], orJson: true },
  }),
  defineRoute({
    method: 'POST', path: '/api/learner/tasks/:enrollment_id/complete', subject: S.complete, status: 200,
    summary: 'The caller marks their checkpoint done: it completes, or waits for approval (pending); 400 when evidence is required and none was given',
    params: CheckpointEnrollmentParams, response: enrollments,
  }),
  defineRoute({
    method: 'GET', path: '/api/author/approvals', subject: S.approvals, status: 200, paged: true,
    summary: 'Checkpoint approvals the caller may decide (administrators: all of the account), by state (pending by default)',
    query: ListApprovalsQuery, response: approvals,
  }),
  defineRoute({
    method: 'POST', path: '/api/author/approvals/:id/approve', subject: S.approve, status: 200, errors: [409],
    summary: 'Approve: the checkpoint enrollment completes; 403 for your own or one you may not decide, 409 when decided already',
    params: IdParams, body: ApprovalDecisionBody, response: approvals,
  }),
  defineRoute({
    method: 'POST', path: '/api/author/approvals/:id/reject', subject: S.reject, status: 200, errors: [409],
    summary: 'Reject with a comment: the enrollment is open again and the learner may submit again; 403 / 409 as approve',
    params: IdParams, body: ApprovalDecisionBody, response: approvals,
  }),
];
