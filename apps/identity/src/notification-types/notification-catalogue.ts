import type { NotificationAudience, NotificationChannel } from '@lms/contracts';

export interface NotificationTypeDefinition {
  id: string;
  audience: NotificationAudience;
  category: string;
  name: string;
  description: string;
  /** The channels the type offers, with the state a new account starts in; absent = unavailable. */
  channels: Partial<Record<NotificationChannel, boolean>>;
}

/**
 * Every account's catalogue. Adding a type here reaches existing accounts on their next access (the
 * settings are seeded with ON CONFLICT DO NOTHING); removing a channel hides it even where it was stored.
 */
export const NOTIFICATION_CATALOGUE: readonly NotificationTypeDefinition[] = [
  {
    id: 'course_assigned', audience: 'learner', category: 'courses', name: 'Course assigned',
    description: 'A learner is enrolled in a course, by an administrator, a manager or a rule.',
    channels: { email: true, slack: false, in_app: true },
  },
  {
    id: 'course_due_soon', audience: 'learner', category: 'courses', name: 'Course due soon',
    description: 'A learner has an unfinished course whose due date is a few days away.',
    channels: { email: true, slack: false, in_app: true },
  },
  {
    id: 'course_overdue', audience: 'learner', category: 'courses', name: 'Course overdue',
    description: 'A learner has passed the due date of a course without finishing it.',
    channels: { email: true, slack: false, in_app: true },
  },
  {
    id: 'course_completed', audience: 'manager', category: 'courses', name: 'Course completed by a direct report',
    description: "A manager hears that one of their direct reports finished a course.",
    channels: { email: false, slack: false },
  },
  {
    id: 'course_published', audience: 'learner', category: 'courses', name: 'Course published',
    description: 'Learners chosen by the publisher are told that a course was published, with the optional message.',
    channels: { email: true, slack: false, in_app: true },
  },
  {
    id: 'direct_report_overdue', audience: 'manager', category: 'courses', name: 'Direct report overdue',
    description: 'A manager hears that one of their direct reports is overdue on a course.',
    channels: { email: true, slack: false },
  },
  {
    id: 'live_session_published', audience: 'learner', category: 'live_sessions', name: 'Live session published',
    description: 'A session of a live course the learner may attend was published.',
    channels: { email: true, slack: false, in_app: true },
  },
  {
    id: 'session_reminder', audience: 'learner', category: 'live_sessions', name: 'Session reminder',
    description: 'A registered learner is reminded of an upcoming live session.',
    channels: { email: true, slack: false, in_app: true },
  },
  {
    id: 'session_cancelled', audience: 'learner', category: 'live_sessions', name: 'Session cancelled',
    description: 'A live session the learner registered for was cancelled.',
    channels: { email: true, slack: false, in_app: true },
  },
  {
    id: 'registration_confirmed', audience: 'learner', category: 'live_sessions', name: 'Registration confirmed',
    description: 'A learner registered for a live session, with its time and joining details.',
    channels: { email: true, in_app: true },
  },
  {
    id: 'waitlist_promoted', audience: 'learner', category: 'live_sessions', name: 'Moved off the waitlist',
    description: 'A seat freed up and a waitlisted learner is now registered for the session.',
    channels: { email: true, slack: false, in_app: true },
  },
  {
    id: 'task_approval_requested', audience: 'manager', category: 'tasks', name: 'Task approval requested',
    description: "An approver is asked to review a learner's checkpoint submission.",
    channels: { email: true, slack: true, in_app: true },
  },
  {
    id: 'task_approved', audience: 'learner', category: 'tasks', name: 'Task approved',
    description: "A learner's checkpoint submission was approved.",
    channels: { email: true, slack: false, in_app: true },
  },
  {
    id: 'slide_comment_posted', audience: 'author', category: 'comments', name: 'Comment on a slide',
    description: "A learner commented on a slide of a course the author maintains.",
    channels: { email: true, slack: false },
  },
  {
    id: 'data_dump_ready', audience: 'admin', category: 'data', name: 'Data dump ready',
    description: 'The data dump an administrator requested has finished and can be downloaded.',
    channels: { email: true },
  },
  {
    id: 'welcome', audience: 'learner', category: 'account', name: 'Welcome',
    description: 'A user is welcomed to the learning platform (POST /api/author/notifications/:user_id/welcome).',
    channels: { email: true, slack: false },
  },
  {
    id: 'user_import_finished', audience: 'admin', category: 'data', name: 'User import finished',
    description: 'The scheduled CSV user import ran; the message lists what changed and any rejected rows.',
    channels: { email: true, slack: false },
  },
];

export const catalogueEntry = (id: string): NotificationTypeDefinition | undefined => NOTIFICATION_CATALOGUE.find((t) => t.id === id);
