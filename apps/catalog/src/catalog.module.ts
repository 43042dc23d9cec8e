import { SubAccountClones1766800000000 } from './migrations/1766800000000-sub-account-clones.js';
import { CatalogClonesHandlers } from './clones/catalog-clones.handlers.js';
import { CatalogClonesService } from './clones/catalog-clones.service.js';
import { Module } from '@nestjs/common';
import { Database, DepartedUsers, tenantRepositoryProvider } from '@lms/platform';
import { AuthoringGuard } from './authoring/authoring-guard.js';
import { LockFence } from './authoring/lock-fence.js';
import { CourseAuthor } from './course-authors/course-author.entity.js';
import { CourseAuthorsHandlers } from './course-authors/course-authors.handlers.js';
import { CourseReportsHandlers } from './course-reports/course-reports.handlers.js';
import { CourseReportsService } from './course-reports/course-reports.service.js';
import { CourseAuthorsService } from './course-authors/course-authors.service.js';
import { CourseTemplateLifecycle } from './course-templates/course-template-lifecycle.service.js';
import { CourseTemplateList } from './course-templates/course-template-list.js';
import { CourseTemplate } from './course-templates/course-template.entity.js';
import { CourseTemplatePresenter } from './course-templates/course-template.presenter.js';
import { CourseTemplatesHandlers } from './course-templates/course-templates.handlers.js';
import { CourseTemplatesService } from './course-templates/course-templates.service.js';
import { IdentityDirectory } from './directory/identity-directory.js';
import { EnrollmentCounts } from './enrollments/enrollment-counts.js';
import { EnrollmentEventConsumers } from './enrollments/enrollment-event-consumers.js';
import { EnrollmentLifecycle } from './enrollments/enrollment-lifecycle.service.js';
import { Enrollment } from './enrollments/enrollment.entity.js';
import { EnrollmentsHandlers } from './enrollments/enrollments.handlers.js';
import { EnrollmentsService } from './enrollments/enrollments.service.js';
import { GroupEnrollment } from './enrollments/group-enrollment.entity.js';
import { PublishEnrollments } from './enrollments/publish-enrollments.service.js';
import { ReEnrollmentSweep } from './enrollments/re-enrollment-sweep.js';
import { CatalogFileSweep } from './files/catalog-file-sweep.js';
import { Sweeps1767500000000 } from './migrations/1767500000000-sweeps.js';
import { MarketItemLaunchUrl1767600000000 } from './migrations/1767600000000-market-item-launch-url.js';
import { DepartedUsers1767700000000 } from './migrations/1767700000000-departed-users.js';
import { LockablesHandlers } from './lockables/lockables.handlers.js';
import { InitialCatalog1763800000000 } from './migrations/1763800000000-initial-catalog.js';
import { IdempotencyKeys1764350000000 } from './migrations/1764350000000-idempotency-keys.js';
import { Authoring1764400000000 } from './migrations/1764400000000-authoring.js';
import { Programs1765330000000 } from './migrations/1765330000000-programs.js';
import { Enrollments1765400000000 } from './migrations/1765400000000-enrollments.js';
import { GroupEnrollments1765410000000 } from './migrations/1765410000000-group-enrollments.js';
import { GroupEnrollmentSubAccounts1765420000000 } from './migrations/1765420000000-group-enrollment-sub-accounts.js';
import { EnrollmentExpiry1765430000000 } from './migrations/1765430000000-enrollment-expiry.js';
import { Markets1765433000000 } from './migrations/1765433000000-markets.js';
import { Market, MarketItem } from './markets/market.entity.js';
import { MarketsHandlers } from './markets/markets.handlers.js';
import { MarketsService } from './markets/markets.service.js';
import { EnrollmentCoveringIndexes1765440000000 } from './migrations/1765440000000-enrollment-covering-indexes.js';
import { EnrollmentCounters1765450000000 } from './migrations/1765450000000-enrollment-counters.js';
import { ProgramCourse, ProgramTask } from './programs/program-course.entity.js';
import { ProgramTasks1766900000000 } from './migrations/1766900000000-program-tasks.js';
import { TitleSearch1767050000000 } from './migrations/1767050000000-title-search.js';
import { FilterIndexes1767060000000 } from './migrations/1767060000000-filter-indexes.js';
import { Program } from './programs/program.entity.js';
import { ProgramEnrollmentsService } from './programs/program-enrollments.service.js';
import { ProgramEnrollment } from './programs/program-enrollment.entity.js';
import { ProgramProgress } from './programs/program-progress.js';
import { ProgramGate } from './programs/program-gate.js';
import { ProgramEnrollments1766400000000 } from './migrations/1766400000000-program-enrollments.js';
import { ProgramsHandlers } from './programs/programs.handlers.js';
import { ProgramsService } from './programs/programs.service.js';
import { SlidePublisher } from './slides/slide-publisher.js';
import { Slide } from './slides/slide.entity.js';
import { SlidesHandlers } from './slides/slides.handlers.js';
import { SlidesService } from './slides/slides.service.js';
import { Task } from './tasks/task.entity.js';
import { TasksHandlers } from './tasks/tasks.handlers.js';
import { TasksService } from './tasks/tasks.service.js';
import { CatalogDumpModule } from './catalog-dump.js';
import { AdminReportsModule } from './admin-reports/admin-reports.module.js';
import { CourseCompletion } from './learner-courses/course-completion.service.js';
import { LearnerCoursesHandlers } from './learner-courses/learner-courses.handlers.js';
import { LearnerCoursesService } from './learner-courses/learner-courses.service.js';
import { LearnerLiveEnrollment } from './learner-courses/learner-live-enrollment.entity.js';
import { LearningItemsService } from './learner-courses/learning-items.service.js';
import { LiveEnrollmentConsumers } from './learner-courses/live-enrollment-consumers.js';
import { SchedulingLiveCourses } from './learner-courses/scheduling-live-courses.js';
import { LearnerLiveEnrollments1766100000000 } from './migrations/1766100000000-learner-live-enrollments.js';
import { RetainQuizzes1766100001000 } from './migrations/1766100001000-retain-quizzes.js';
import { LtiContentItems1766100002000 } from './migrations/1766100002000-lti-content-items.js';
import { LtiContentItem } from './lti/lti-content-item.entity.js';
import { OpenTasks1766100003000 } from './migrations/1766100003000-open-tasks.js';
import { SlideComments1766100004000 } from './migrations/1766100004000-slide-comments.js';
import { MobileHandlers } from './mobile/mobile.handlers.js';
import { MobileService } from './mobile/mobile.service.js';
import { SlideComment, SlideCommentVote } from './slide-comments/slide-comment.entity.js';
import { SlideCommentsHandlers } from './slide-comments/slide-comments.handlers.js';
import { SlideCommentsService } from './slide-comments/slide-comments.service.js';
import { SlideResponses1766950000000 } from './migrations/1766950000000-slide-responses.js';
import { SlideResponse } from './slide-responses/slide-response.entity.js';
import { SlideResponsesHandlers } from './slide-responses/slide-responses.handlers.js';
import { SlideResponsesService } from './slide-responses/slide-responses.service.js';
import { OpenEnrollmentHandlers } from './open-enrollment/open-enrollment.handlers.js';
import { OpenEnrollmentService } from './open-enrollment/open-enrollment.service.js';
import { LtiHandlers } from './lti/lti.handlers.js';
import { LtiService } from './lti/lti.service.js';
import { RetainQuizConsumers } from './retain-quizzes/retain-quiz-consumers.js';
import { RetainQuiz } from './retain-quizzes/retain-quiz.entity.js';
import { RetainQuizzesHandlers } from './retain-quizzes/retain-quizzes.handlers.js';
import { RetainQuizzesService } from './retain-quizzes/retain-quizzes.service.js';
import { CheckpointApproval, CheckpointEvidence } from './checkpoints/checkpoint.entities.js';
import { CheckpointsHandlers } from './checkpoints/checkpoints.handlers.js';
import { CheckpointsService } from './checkpoints/checkpoints.service.js';
import { Checkpoints1766600000000 } from './migrations/1766600000000-checkpoints.js';
import { Scorm1766500000000 } from './migrations/1766500000000-scorm.js';
import { ScormScos1766970000000 } from './migrations/1766970000000-scorm-scos.js';
import { InboxAge1767800000000 } from './migrations/1767800000000-inbox-age.js';
import { SlideCommentSlides1767900000000 } from './migrations/1767900000000-slide-comment-slides.js';
import { SlidePublishedFigures1768000000000, SlidePublishedFiguresBackfill1768000000001 } from './migrations/1768000000000-slide-published-figures.js';
import { TaskDeletedRemovals1768100000000, TaskDeletedRemovalsValidated1768100000001 } from './migrations/1768100000000-task-deleted-removals.js';
import { EnrollmentCountersPerStatement1768300000000 } from './migrations/1768300000000-enrollment-counters-per-statement.js';
import { CoursePublishedSettings1768400000000, CoursePublishedSettingsBackfill1768400000001 } from './migrations/1768400000000-course-published-settings.js';
import { EnrollmentCountersUnchanged1768500000000 } from './migrations/1768500000000-enrollment-counters-unchanged.js';
import { ScormPackage, ScormRegistration, ScormScoState } from './scorm/scorm-package.entity.js';
import { ScormHandlers } from './scorm/scorm.handlers.js';
import { ScormPlayerService } from './scorm/scorm-player.service.js';
import { ScormService } from './scorm/scorm.service.js';

/** Rows owned by an account: reached only through tenant repositories. */
const TENANT_ENTITIES = [
  CourseTemplate,
  CourseAuthor,
  Slide,
  Task,
  Enrollment,
  GroupEnrollment,
  Program,
  ProgramCourse,
  ProgramTask,
  ProgramEnrollment,
  LearnerLiveEnrollment,
  RetainQuiz,
  LtiContentItem,
  SlideComment,
  SlideCommentVote,
  SlideResponse,
  ScormPackage,
  ScormRegistration,
  ScormScoState,
  CheckpointEvidence,
  CheckpointApproval,
];
/** Markets are shared reference data (each names the accounts that see it). */
export const CATALOG_ENTITIES = [...TENANT_ENTITIES, Market, MarketItem];
export const CATALOG_MIGRATIONS = [
  InitialCatalog1763800000000, IdempotencyKeys1764350000000, Authoring1764400000000, Programs1765330000000, Enrollments1765400000000, GroupEnrollments1765410000000,
  GroupEnrollmentSubAccounts1765420000000, EnrollmentExpiry1765430000000, Markets1765433000000, EnrollmentCoveringIndexes1765440000000,
  EnrollmentCounters1765450000000,
  LearnerLiveEnrollments1766100000000,
  RetainQuizzes1766100001000,
  LtiContentItems1766100002000,
  OpenTasks1766100003000,
  ProgramEnrollments1766400000000,
  SlideComments1766100004000,
  Scorm1766500000000,
  Checkpoints1766600000000,
  SubAccountClones1766800000000,
  ProgramTasks1766900000000,
  SlideResponses1766950000000,
  ScormScos1766970000000,
  TitleSearch1767050000000,
  FilterIndexes1767060000000,
  Sweeps1767500000000,
  MarketItemLaunchUrl1767600000000,
  DepartedUsers1767700000000,
  InboxAge1767800000000,
  SlideCommentSlides1767900000000,
  SlidePublishedFigures1768000000000,
  SlidePublishedFiguresBackfill1768000000001,
  TaskDeletedRemovals1768100000000,
  TaskDeletedRemovalsValidated1768100000001,
  EnrollmentCountersPerStatement1768300000000,
  CoursePublishedSettings1768400000000,
  CoursePublishedSettingsBackfill1768400000001,
  EnrollmentCountersUnchanged1768500000000,
];

@Module({
  imports: [CatalogDumpModule, AdminReportsModule],
  controllers: [CourseTemplatesHandlers, CourseAuthorsHandlers, SlidesHandlers, TasksHandlers, LockablesHandlers, ProgramsHandlers, EnrollmentsHandlers, MarketsHandlers, CourseReportsHandlers, LearnerCoursesHandlers, RetainQuizzesHandlers, LtiHandlers, OpenEnrollmentHandlers, SlideCommentsHandlers, SlideResponsesHandlers, MobileHandlers, ScormHandlers, CheckpointsHandlers, CatalogClonesHandlers],
  providers: [
    IdentityDirectory,
    AuthoringGuard,
    LockFence,
    EnrollmentCounts,
    CourseTemplatesService,
    CourseTemplateLifecycle,
    CourseTemplateList,
    CourseTemplatePresenter,
    CourseAuthorsService,
    SlidePublisher,
    SlidesService,
    TasksService,
    ProgramsService,
    ProgramEnrollmentsService,
    ProgramProgress,
    ProgramGate,
    EnrollmentsService,
    EnrollmentLifecycle,
    // The advisory lock class catalog's enrollments and departures meet under, since 1767700000000.
    { provide: DepartedUsers, useFactory: (db: Database) => new DepartedUsers(db, 1_767_700), inject: [Database] },
    PublishEnrollments,
    ReEnrollmentSweep,
    CatalogFileSweep,
    EnrollmentEventConsumers,
    MarketsService,
    CourseReportsService,
    SchedulingLiveCourses,
    LearnerCoursesService,
    CourseCompletion,
    LearningItemsService,
    LiveEnrollmentConsumers,
    RetainQuizzesService,
    RetainQuizConsumers,
    LtiService,
    OpenEnrollmentService,
    SlideCommentsService,
    SlideResponsesService,
    MobileService,
    ScormService,
    ScormPlayerService,
    CheckpointsService,
    CatalogClonesService,
    ...TENANT_ENTITIES.map((entity) => tenantRepositoryProvider(entity)),
  ],
})
export class CatalogModule {}
