import { dumpModule } from '@lms/platform';

/** Catalog's part of the data dump (docs/jobs.md): its tables of the account, every column. */
export const CatalogDumpModule = dumpModule('catalog', [
  { model: 'course_templates' },
  { model: 'course_authors', key: ['course_template_id', 'user_id'] },
  { model: 'slides' },
  { model: 'tasks' },
  { model: 'programs' },
  { model: 'program_courses', key: ['course_template_id', 'program_id'] },
  { model: 'program_tasks', key: ['task_id', 'program_id'] },
  { model: 'enrollments' },
  { model: 'program_enrollments' },
  // Learner records (issue 15). LTI content items stay out: every column would include the consumer secret.
  { model: 'retain_quizzes' },
  { model: 'slide_comments' },
  { model: 'slide_comment_votes', key: ['comment_id', 'user_id'] },
  // Answers to quiz slides (issue 8).
  { model: 'slide_responses' },
  { model: 'learner_live_enrollments' },
  // SCORM (issue 23): packages and attempts with their CMI data; package files stay in the file store.
  { model: 'scorm_packages' },
  { model: 'scorm_registrations' },
  { model: 'scorm_sco_states', key: ['registration_id', 'sco'] },
  // Checkpoints (issue 22).
  { model: 'checkpoint_evidence' },
  { model: 'checkpoint_approvals' },
]);
