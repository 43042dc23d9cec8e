import { SESSION_PUBLISH_RECIPIENTS_EVENT, SESSION_PUBLISHED_EVENT } from '@lms/contracts';
import { testEvent as event } from '@lms/testing';
import { NOTIFICATION_PLANNERS, NOTIFIED_EVENT_TYPES } from './notification-plans.js';
const lookups = { users: async () => new Map() };

describe('notification plans', () => {
  it("tells a published session's registered users batch by batch, each batch as the publish itself", async () => {
    expect(NOTIFIED_EVENT_TYPES).toEqual(expect.arrayContaining([SESSION_PUBLISHED_EVENT, SESSION_PUBLISH_RECIPIENTS_EVENT]));
    const first = await NOTIFICATION_PLANNERS[SESSION_PUBLISHED_EVENT](event(SESSION_PUBLISHED_EVENT, { id: 5, live_course_id: 2, parent_id: null, recipients: [11, 12], recipients_count: 3 }), lookups);
    const rest = await NOTIFICATION_PLANNERS[SESSION_PUBLISH_RECIPIENTS_EVENT](event(SESSION_PUBLISH_RECIPIENTS_EVENT, { id: 5, live_course_id: 2, batch: 2, recipients: [13] }), lookups);
    expect([first?.recipients, rest?.recipients]).toEqual([[11, 12], [13]]);
    expect(rest).toMatchObject({ notificationType: 'live_session_published', subject: first?.subject });
    expect(rest?.text({ id: 13, uid: 'c', name: 'Cy' } as never)).toBe(first?.text({ id: 13, uid: 'c', name: 'Cy' } as never));
  });
});
