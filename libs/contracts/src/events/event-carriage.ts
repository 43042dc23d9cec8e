import type { CourseTemplatePublishedData, PublishRecipientsData } from '../catalog/course-templates.contract.js';
import type { EnrollmentEventPayload } from '../catalog/enrollment-events.contract.js';
import type { EnrollmentEventData } from '../catalog/enrollments.contract.js';
import type { ImportProfileEventData } from '../identity/import-profile.contract.js';
import type { ImportScheduleEventData } from '../jobs/import-runs.contract.js';
import type { CoursePublishedPayload, LiveCourseAssignedPayload, PublishRecipientsPayload, SessionPublishedPayload, UserEventPayload, WaitlistPromotedPayload, WelcomeRequestedData } from '../jobs/notifications.contract.js';
import type { LiveCourseEnrollmentEventData } from '../scheduling/live-courses.contract.js';
import type { RegistrationEventData } from '../scheduling/registrations.contract.js';
import type { SessionPublishedData, SessionPublishRecipientsData } from '../scheduling/sessions.contract.js';

/**
 * An event's consumer validates its data with a class of its own, which may read fewer fields than the
 * producer's interface sends (the tolerant reader drops the rest). What it does read, the producer must
 * carry, with a type the class accepts: this is checked here, by the type checker, for every pair whose
 * producer and consumer types differ (producers that build the consumer's class itself need no check).
 * A renamed or removed producer field fails `npm test` (its type check) instead of dead-lettering events.
 * Not covered: consumers that read one id by name (`eventDataId`), an optional field the class reads (a
 * rename passes as "absent"), and the validators' limits (a list longer than the class allows).
 */
type Carries<Producer, Consumer> = [Producer] extends [Consumer] ? true : false;

export const EVENT_CARRIAGE: {
  enrollment: Carries<EnrollmentEventData, EnrollmentEventPayload>;
  coursePublished: Carries<CourseTemplatePublishedData, CoursePublishedPayload>;
  publishRecipients: Carries<PublishRecipientsData, PublishRecipientsPayload>;
  sessionPublished: Carries<SessionPublishedData, SessionPublishedPayload>;
  sessionPublishRecipients: Carries<SessionPublishRecipientsData, SessionPublishedPayload>;
  waitlistPromoted: Carries<RegistrationEventData, WaitlistPromotedPayload>;
  liveCourseAssigned: Carries<LiveCourseEnrollmentEventData, LiveCourseAssignedPayload>;
  importSchedule: Carries<ImportProfileEventData, ImportScheduleEventData>;
  welcome: Carries<WelcomeRequestedData, UserEventPayload>;
} = { enrollment: true, coursePublished: true, publishRecipients: true, sessionPublished: true, sessionPublishRecipients: true, waitlistPromoted: true, liveCourseAssigned: true, importSchedule: true, welcome: true };
