import { SubAccountClones1766800000000 } from './migrations/1766800000000-sub-account-clones.js';
import { SchedulingClonesHandlers } from './clones/scheduling-clones.handlers.js';
import { SchedulingClonesService } from './clones/scheduling-clones.service.js';
import { Module } from '@nestjs/common';
import { Database, DepartedUsers, IdentityDirectory, tenantRepositoryProvider } from '@lms/platform';
import { LearnerLiveCoursesHandlers } from './learner-live-courses/learner-live-courses.handlers.js';
import { LiveCourseEnrollment } from './learners/live-course-enrollment.entity.js';
import { LiveCourseLearnersHandlers } from './learners/live-course-learners.handlers.js';
import { LiveCourseLearnersService } from './learners/live-course-learners.service.js';
import { LiveCourse } from './live-courses/live-course.entity.js';
import { LiveCoursePresenter } from './live-courses/live-course.presenter.js';
import { LiveCoursesHandlers } from './live-courses/live-courses.handlers.js';
import { LiveCoursesService } from './live-courses/live-courses.service.js';
import { InitialScheduling1763800000000 } from './migrations/1763800000000-initial-scheduling.js';
import { IdempotencyKeys1764350000000 } from './migrations/1764350000000-idempotency-keys.js';
import { LiveCourses1764500000000 } from './migrations/1764500000000-live-courses.js';
import { WebConferences1764510000000 } from './migrations/1764510000000-web-conferences.js';
import { Registration } from './registrations/registration.entity.js';
import { RegistrationEventConsumers } from './registrations/registration-event-consumers.js';
import { RegistrationsHandlers } from './registrations/registrations.handlers.js';
import { RegistrationsService } from './registrations/registrations.service.js';
import { SeatRelease } from './registrations/seat-release.js';
import { WaitlistPlace } from './registrations/waitlist-place.entity.js';
import { Session } from './sessions/session.entity.js';
import { SessionPresenter } from './sessions/session.presenter.js';
import { SessionsHandlers } from './sessions/sessions.handlers.js';
import { SessionsService } from './sessions/sessions.service.js';
import { LiveUpdatesHandlers } from './live-updates/live-updates.handlers.js';
import { RegistrationChanges1766700000000 } from './migrations/1766700000000-registration-changes.js';
import { InboxAge1767800000000 } from './migrations/1767800000000-inbox-age.js';
import { RegistrationChangesPruned1767900000000 } from './migrations/1767900000000-registration-changes-pruned.js';
import { DepartedUsers1768300000000 } from './migrations/1768300000000-departed-users.js';
import { REGISTRATION_CHANGES_RETENTION_DAYS, RegistrationChangesPruner, registrationChangesRetentionDays } from './live-updates/registration-changes-pruner.js';
import { SchedulingDumpModule } from './scheduling-dump.js';
import { SchedulingExportsModule } from './exports/scheduling-exports.handlers.js';
import { WebConferenceDefault } from './web-conferences/web-conference-default.entity.js';
import { WebConference } from './web-conferences/web-conference.entity.js';
import { WebConferencesHandlers } from './web-conferences/web-conferences.handlers.js';
import { WebConferencesService } from './web-conferences/web-conferences.service.js';

export const SCHEDULING_ENTITIES = [LiveCourse, LiveCourseEnrollment, Session, Registration, WaitlistPlace, WebConference, WebConferenceDefault];
export const SCHEDULING_MIGRATIONS = [InitialScheduling1763800000000, IdempotencyKeys1764350000000, LiveCourses1764500000000, WebConferences1764510000000, RegistrationChanges1766700000000, SubAccountClones1766800000000, InboxAge1767800000000, RegistrationChangesPruned1767900000000, DepartedUsers1768300000000];

@Module({
  imports: [SchedulingDumpModule, SchedulingExportsModule],
  controllers: [LearnerLiveCoursesHandlers, LiveCoursesHandlers, LiveCourseLearnersHandlers, SessionsHandlers, RegistrationsHandlers, WebConferencesHandlers, LiveUpdatesHandlers, SchedulingClonesHandlers],
  providers: [
    SchedulingClonesService,
    IdentityDirectory,
    LiveCoursesService,
    WebConferencesService,
    LiveCoursePresenter,
    LiveCourseLearnersService,
    SeatRelease,
    // The advisory lock class scheduling's live-course enrollments and departures meet under.
    { provide: DepartedUsers, useFactory: (db: Database) => new DepartedUsers(db, 1_768_300), inject: [Database] },
    RegistrationsService,
    RegistrationEventConsumers,
    SessionsService,
    SessionPresenter,
    { provide: REGISTRATION_CHANGES_RETENTION_DAYS, useFactory: () => registrationChangesRetentionDays() },
    RegistrationChangesPruner,
    ...SCHEDULING_ENTITIES.map((entity) => tenantRepositoryProvider(entity)),
  ],
})
export class SchedulingModule {}
