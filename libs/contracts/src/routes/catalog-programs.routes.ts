import { IdParams } from '../common/query.js';
import { CHECKPOINT_ENROLLMENT_SCHEMA } from '../catalog/checkpoints.contract.js';
import { ENROLLMENT_LEARNER_SCHEMA, ENROLLMENT_SCHEMA } from '../catalog/enrollments.contract.js';
import {
  CreateProgramEnrollmentsBody,
  CreateProgramsBody,
  ListProgramEnrollmentsQuery,
  ListProgramsQuery,
  PROGRAM_ENROLLMENT_SCHEMA,
  PROGRAM_SCHEMA,
  PROGRAM_SUBJECTS as S,
  SKIPPED_PROGRAM_COURSE_SCHEMA,
  SKIPPED_PROGRAM_ENROLLMENT_SCHEMA,
  SKIPPED_PROGRAM_TASK_SCHEMA,
  UpdateProgramBody,
} from '../catalog/programs.contract.js';
import { defineRoute } from './route.js';

const programs = { kind: 'envelope', key: 'programs', item: PROGRAM_SCHEMA } as const;
const PATH = '/api/author/programs';

/** Programs: ordered course templates and checkpoints (tasks) (the spec names them only by `program_ids`; docs/catalog.md). */
export const CATALOG_PROGRAM_ROUTES = [
  defineRoute({
    method: 'GET', path: PATH, subject: S.list, status: 200, paged: true,
    summary: 'List programs, newest first, optionally by title (case-insensitive substring)', query: ListProgramsQuery, response: programs,
  }),
  defineRoute({
    method: 'GET', path: `${PATH}/:id`, subject: S.show, status: 200,
    summary: 'Show a program with its courses and checkpoints in order (`items`)', params: IdParams, response: programs,
  }),
  defineRoute({
    method: 'POST', path: PATH, subject: S.create, status: 201,
    summary: 'Create programs (all or nothing); the order is `items` ({type: CourseTemplate|Task, id}) or `course_template_ids`; every item must be a live course template or task of the account', body: CreateProgramsBody, response: programs,
  }),
  defineRoute({
    method: ['PATCH', 'PUT'], path: `${PATH}/:id`, subject: S.update, status: 200,
    summary: 'Change a program; `items` replaces its whole order; `course_template_ids` replaces its courses (checkpoints keep their places after as many courses)', params: IdParams, body: UpdateProgramBody, response: programs,
  }),
  defineRoute({
    method: 'DELETE', path: `${PATH}/:id`, subject: S.delete, status: 204,
    summary: 'Delete a program (its courses stay)', params: IdParams, response: { kind: 'empty' },
  }),
  defineRoute({
    method: 'POST', path: `${PATH}/:id/enrollments`, subject: S.enroll, status: 201,
    summary: "Enroll users in a published program and every published course and checkpoint of it (the enrollments carry program_id; checkpoint enrollments are in `task_enrollments`, each user's program enrollment in `linked.program_enrollments`); users enrolled in an item already are skipped there and reported in `skipped`, unpublished items in `skipped_courses` / `skipped_tasks`",
    params: IdParams, body: CreateProgramEnrollmentsBody,
    response: {
      kind: 'envelope', key: 'enrollments', item: ENROLLMENT_SCHEMA, linked: { learners: ENROLLMENT_LEARNER_SCHEMA, program_enrollments: PROGRAM_ENROLLMENT_SCHEMA },
      also: { task_enrollments: CHECKPOINT_ENROLLMENT_SCHEMA, skipped: SKIPPED_PROGRAM_ENROLLMENT_SCHEMA, skipped_courses: SKIPPED_PROGRAM_COURSE_SCHEMA, skipped_tasks: SKIPPED_PROGRAM_TASK_SCHEMA },
    },
  }),
  defineRoute({
    method: 'GET', path: `${PATH}/:id/enrollments`, subject: S.enrollments, status: 200, paged: true,
    summary: "The program's enrollments, newest first, each with its state and how many of the program's published courses the learner has completed; `state` filters",
    params: IdParams, query: ListProgramEnrollmentsQuery,
    response: { kind: 'envelope', key: 'program_enrollments', item: PROGRAM_ENROLLMENT_SCHEMA },
  }),
];
