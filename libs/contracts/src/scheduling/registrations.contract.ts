/** Registration events (data: RegistrationEventData), recorded through the outbox. */
export const REGISTRATION_CREATED_EVENT = 'scheduling.registration.created';
export const REGISTRATION_UPDATED_EVENT = 'scheduling.registration.updated';
export const REGISTRATION_DELETED_EVENT = 'scheduling.registration.deleted';
/** A waitlisted user took a freed seat; the notification goes to `user_id`. */
export const WAITLIST_PROMOTED_EVENT = 'scheduling.waitlist.promoted';

export interface RegistrationEventData {
  live_course_id: number;
  session_id: number;
  registration_id: number;
  user_id: number;
}
