import { NOTIFICATION_AUDIENCES, NOTIFICATION_CHANNELS } from '@lms/contracts';
import { catalogueEntry, NOTIFICATION_CATALOGUE } from './notification-catalogue.js';
import { checkChannels, toNotificationTypeView } from './notification-types.service.js';

describe('notification catalogue', () => {
  it('has unique keys, known audiences and channels, and texts for every type', () => {
    expect(new Set(NOTIFICATION_CATALOGUE.map((t) => t.id)).size).toBe(NOTIFICATION_CATALOGUE.length);
    for (const t of NOTIFICATION_CATALOGUE) {
      expect(t.id).toMatch(/^[a-z][a-z0-9_]*$/);
      expect(NOTIFICATION_AUDIENCES).toContain(t.audience);
      expect(t.name.length).toBeGreaterThan(0);
      expect(t.description.length).toBeGreaterThan(0);
      expect(Object.keys(t.channels).length).toBeGreaterThan(0);
      for (const c of Object.keys(t.channels)) expect(NOTIFICATION_CHANNELS).toContain(c);
    }
  });

  it('holds the types the issue names, with email and slack among the channels', () => {
    for (const id of ['course_assigned', 'course_due_soon', 'course_overdue', 'live_session_published', 'session_reminder', 'course_published']) {
      expect(catalogueEntry(id)).toBeDefined();
    }
    expect(NOTIFICATION_CATALOGUE.some((t) => 'slack' in t.channels)).toBe(true);
    expect(NOTIFICATION_CATALOGUE.every((t) => 'email' in t.channels)).toBe(true);
  });
});

describe('checkChannels', () => {
  const def = catalogueEntry('data_dump_ready')!; // email only

  it('accepts booleans for offered channels', () => {
    expect(checkChannels(def, { email: false })).toEqual([]);
  });

  it('names each channel the type does not offer, and each non-boolean', () => {
    expect(checkChannels(def, { slack: true, email: 'yes', fax: false })).toEqual([
      { field: 'channels.slack', message: expect.stringContaining('does not offer') },
      { field: 'channels.email', message: 'must be a boolean' },
      { field: 'channels.fax', message: expect.stringContaining('does not offer') },
    ]);
  });

  it('refuses an update that names no channel (it would change nothing yet answer as if it had)', () => {
    expect(checkChannels(def, {})).toEqual([{ field: 'channels', message: expect.stringContaining('at least one channel') }]);
  });

  it('does not take inherited names for channels', () => {
    expect(checkChannels(def, JSON.parse('{"toString": true}'))).toHaveLength(1);
  });
});

describe('toNotificationTypeView', () => {
  it('answers only offered channels, the stored flag over the default, and drops stored channels no longer offered', () => {
    const def = catalogueEntry('registration_confirmed')!; // email, in_app
    expect(toNotificationTypeView(def, { email: false, slack: true }).channels).toEqual({ email: false, in_app: true });
  });
});
