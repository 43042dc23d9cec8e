import { IDENTITY_ROUTES } from './identity.routes.js';
import { IDENTITY_ADMIN_SETTINGS_ROUTES } from './identity-admin-settings.routes.js';
import { IDENTITY_GROUP_ROUTES } from './identity-groups.routes.js';
import { IDENTITY_USER_ROUTES } from './identity-users.routes.js';
import { CATALOG_COURSE_TEMPLATE_ROUTES } from './catalog-course-templates.routes.js';
import { CATALOG_ENROLLMENT_ROUTES } from './catalog-enrollments.routes.js';
import { CATALOG_SLIDE_ROUTES } from './catalog-slides.routes.js';
import { CATALOG_TASK_ROUTES } from './catalog-tasks.routes.js';
import { CATALOG_PROGRAM_ROUTES } from './catalog-programs.routes.js';
import { CATALOG_MARKET_ROUTES } from './catalog-markets.routes.js';
import { CATALOG_COURSE_REPORT_ROUTES } from './catalog-course-reports.routes.js';
import { CATALOG_LEARNER_COURSE_ROUTES } from './catalog-learner-courses.routes.js';
import { CATALOG_RETAIN_QUIZ_ROUTES } from './catalog-retain-quizzes.routes.js';
import { CATALOG_LTI_ROUTES } from './catalog-lti.routes.js';
import { CATALOG_OPEN_ENROLLMENT_ROUTES } from './catalog-open-enrollment.routes.js';
import { CATALOG_SLIDE_COMMENT_ROUTES } from './catalog-slide-comments.routes.js';
import { CATALOG_SLIDE_RESPONSE_ROUTES } from './catalog-slide-responses.routes.js';
import { CATALOG_MOBILE_ROUTES } from './catalog-mobile.routes.js';
import { CATALOG_CHECKPOINT_ROUTES } from './catalog-checkpoints.routes.js';
import { CATALOG_SCORM_LAUNCH_ROUTES, CATALOG_SCORM_PACKAGE_ROUTES } from './catalog-scorm.routes.js';
import { fencedByLocks, LOCKING_LOCK_ROUTES } from './locking-locks.routes.js';
import { JOBS_DATA_DUMP_ROUTES } from './jobs-data-dumps.routes.js';
import { JOBS_DOWNLOAD_ROUTES } from './jobs-downloads.routes.js';
import { CATALOG_ADMIN_REPORT_ROUTES } from './catalog-admin-reports.routes.js';
import { JOBS_IMPORT_RUN_ROUTES } from './jobs-import-runs.routes.js';
import { JOBS_CLONE_OBJECT_ROUTES } from './jobs-clone-objects.routes.js';
import { JOBS_NOTIFICATION_ROUTES } from './jobs-notifications.routes.js';
import type { RouteDefinition } from './route.js';
import { SCHEDULING_LIVE_COURSE_ROUTES } from './scheduling-live-courses.routes.js';
import { SCHEDULING_REGISTRATION_ROUTES } from './scheduling-registrations.routes.js';
import { SCHEDULING_SESSION_ROUTES } from './scheduling-sessions.routes.js';
import { SCHEDULING_WEB_CONFERENCE_ROUTES } from './scheduling-web-conferences.routes.js';

export * from './route.js';

/** Every HTTP endpoint of the system; the gateway registers and documents exactly these. */
export const ROUTES: RouteDefinition[] = [
  ...IDENTITY_ROUTES,
  ...IDENTITY_GROUP_ROUTES,
  ...IDENTITY_ADMIN_SETTINGS_ROUTES,
  ...IDENTITY_USER_ROUTES,
  ...fencedByLocks([...CATALOG_COURSE_TEMPLATE_ROUTES, ...CATALOG_SLIDE_ROUTES, ...CATALOG_TASK_ROUTES, ...CATALOG_SCORM_PACKAGE_ROUTES]),
  ...CATALOG_PROGRAM_ROUTES,
  ...CATALOG_ENROLLMENT_ROUTES,
  ...CATALOG_MARKET_ROUTES,
  ...CATALOG_COURSE_REPORT_ROUTES,
  ...CATALOG_LEARNER_COURSE_ROUTES,
  ...CATALOG_RETAIN_QUIZ_ROUTES,
  ...CATALOG_LTI_ROUTES,
  ...CATALOG_OPEN_ENROLLMENT_ROUTES,
  ...CATALOG_SLIDE_COMMENT_ROUTES,
  ...CATALOG_SLIDE_RESPONSE_ROUTES,
  ...CATALOG_MOBILE_ROUTES,
  ...CATALOG_SCORM_LAUNCH_ROUTES,
  ...CATALOG_CHECKPOINT_ROUTES,
  ...LOCKING_LOCK_ROUTES,
  ...JOBS_DATA_DUMP_ROUTES,
  ...JOBS_IMPORT_RUN_ROUTES,
  ...SCHEDULING_LIVE_COURSE_ROUTES,
  ...SCHEDULING_SESSION_ROUTES,
  ...SCHEDULING_REGISTRATION_ROUTES,
  ...SCHEDULING_WEB_CONFERENCE_ROUTES,
  ...JOBS_DOWNLOAD_ROUTES,
  ...CATALOG_ADMIN_REPORT_ROUTES,
  ...JOBS_CLONE_OBJECT_ROUTES,
  ...JOBS_NOTIFICATION_ROUTES,
];
