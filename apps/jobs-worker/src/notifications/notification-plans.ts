import {
  CATALOG_ENROLLMENT_COMPLETED_EVENT,
  CatalogEnrollmentCompletedData,
  type CloudEvent,
  COURSE_TEMPLATE_PUBLISH_RECIPIENTS_EVENT,
  COURSE_TEMPLATE_PUBLISHED_EVENT,
  CoursePublishedPayload,
  type DirectoryUser,
  ENROLLMENT_CREATED_EVENT,
  EnrollmentEventPayload,
  LIVE_COURSE_ENROLLMENT_CREATED_EVENT,
  PublishRecipientsPayload,
  SESSION_PUBLISH_RECIPIENTS_EVENT,
  SESSION_PUBLISHED_EVENT,
  SessionPublishedPayload,
  UserEventPayload,
  WAITLIST_PROMOTED_EVENT,
  WaitlistPromotedPayload,
  LiveCourseAssignedPayload,
  WELCOME_NOTIFICATION_TYPE,
  WELCOME_REQUESTED_EVENT,
} from '@lms/contracts';
import { eventData } from '@lms/platform';

/** What an event tells whom: the notification type (identity's catalogue), the recipients and the message. */
export interface NotificationPlan {
  notificationType: string;
  recipients: number[];
  subject: string;
  /** The body for one recipient. */
  text(user: DirectoryUser): string;
}

/** What a plan may need to know beyond the event: people (the manager of a learner). */
export interface PlanLookups {
  users(ids: number[]): Promise<Map<number, DirectoryUser>>;
}

const greeting = (user: DirectoryUser) => `Hello ${user.name || user.uid},\n\n`;

type Planner = (event: CloudEvent, lookups: PlanLookups) => Promise<NotificationPlan | null>;

/** The events jobs-worker notifies about, each with how it becomes a plan (null: nobody to tell). */
export const NOTIFICATION_PLANNERS: Record<string, Planner> = {
  [COURSE_TEMPLATE_PUBLISHED_EVENT]: async (event) => {
    const data = await eventData<CoursePublishedPayload>(CoursePublishedPayload, event);
    if (data.notify_filter === null || data.recipients.length === 0) return null;
    return coursePublished(data.id, data.title, data.notify_message, data.recipients);
  },
  [COURSE_TEMPLATE_PUBLISH_RECIPIENTS_EVENT]: async (event) => {
    const data = await eventData<PublishRecipientsPayload>(PublishRecipientsPayload, event);
    return data.recipients.length === 0 ? null : coursePublished(data.course_template_id, data.title ?? null, data.notify_message, data.recipients);
  },
  [SESSION_PUBLISHED_EVENT]: sessionPublished,
  [SESSION_PUBLISH_RECIPIENTS_EVENT]: sessionPublished,
  [WAITLIST_PROMOTED_EVENT]: async (event) => {
    const data = await eventData<WaitlistPromotedPayload>(WaitlistPromotedPayload, event);
    return {
      notificationType: 'waitlist_promoted',
      recipients: [data.user_id],
      subject: 'You have a seat: moved off the waitlist',
      text: (user) => `${greeting(user)}A seat freed up in session ${data.session_id} of live course ${data.live_course_id}: you are now registered.`,
    };
  },
  [ENROLLMENT_CREATED_EVENT]: async (event) => {
    const data = await eventData<EnrollmentEventPayload>(EnrollmentEventPayload, event);
    return {
      notificationType: 'course_assigned',
      recipients: [data.user_id],
      subject: 'A course was assigned to you',
      text: (user) =>
        `${greeting(user)}You were enrolled in course ${data.course_template_id}${data.required ? ' (required)' : ''}${data.due_at ? `, due ${data.due_at}` : ''}.`,
    };
  },
  [LIVE_COURSE_ENROLLMENT_CREATED_EVENT]: async (event) => {
    const data = await eventData<LiveCourseAssignedPayload>(LiveCourseAssignedPayload, event);
    return {
      notificationType: 'course_assigned',
      recipients: [data.user_id],
      subject: 'A live course was assigned to you',
      text: (user) => `${greeting(user)}You were enrolled in live course ${data.live_course_id}.`,
    };
  },
  [CATALOG_ENROLLMENT_COMPLETED_EVENT]: async (event, lookups) => {
    const data = await eventData<CatalogEnrollmentCompletedData>(CatalogEnrollmentCompletedData, event);
    if (data.course_id === undefined || data.course_id === null) return null;
    const learner = (await lookups.users([data.user_id])).get(data.user_id);
    if (!learner?.manager_id) return null;
    return {
      notificationType: 'course_completed',
      recipients: [learner.manager_id],
      subject: `${learner.name || learner.uid} completed a course`,
      text: (user) => `${greeting(user)}${learner.name || learner.uid}, who reports to you, completed course ${data.course_id} on ${data.completed_at}.`,
    };
  },
  [WELCOME_REQUESTED_EVENT]: async (event) => {
    const data = await eventData<UserEventPayload>(UserEventPayload, event);
    return {
      notificationType: WELCOME_NOTIFICATION_TYPE,
      recipients: [data.user_id],
      subject: 'Welcome to the learning platform',
      text: (user) => `${greeting(user)}Welcome! Your user name is ${user.uid}. Your courses and live sessions are waiting for you.`,
    };
  },
};

export const NOTIFIED_EVENT_TYPES = Object.keys(NOTIFICATION_PLANNERS);

/** A published session's registered users, a batch per event (the first in the published event, the rest after it). */
async function sessionPublished(event: CloudEvent): Promise<NotificationPlan | null> {
  const data = await eventData<SessionPublishedPayload>(SessionPublishedPayload, event);
  if (data.recipients.length === 0) return null;
  return {
    notificationType: 'live_session_published',
    recipients: data.recipients,
    subject: 'A live session was published',
    text: (user) => `${greeting(user)}Session ${data.id} of live course ${data.live_course_id}, which you are registered for, was published.`,
  };
}

function coursePublished(courseId: number, title: string | null, message: string | null, recipients: number[]): NotificationPlan {
  return {
    notificationType: 'course_published',
    recipients,
    subject: title ? `Course published: ${title.replace(/[\r\n]+/g, ' ').slice(0, 200)}` : 'A course of yours was published',
    text: (user) => `${greeting(user)}${title ? `The course "${title}"` : `Course ${courseId}`} was published.${message ? `\n\n${message}` : ''}`,
  };
}
