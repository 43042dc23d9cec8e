import { DEFAULT_SMTP_FROM, notificationConfig } from './notification.config.js';
import { EmailSender, SlackSender } from './delivery-channels.js';

describe('notificationConfig', () => {
  it('leaves every channel off without settings', () => {
    expect(notificationConfig({})).toEqual({ smtpUrl: undefined, smtpFrom: DEFAULT_SMTP_FROM, slackWebhookUrl: undefined });
    expect(new EmailSender(notificationConfig({})).unavailable).toMatch(/SMTP_URL/);
    expect(new SlackSender(notificationConfig({})).unavailable).toMatch(/SLACK_WEBHOOK_URL/);
  });

  it('takes smtp(s) and http(s) URLs and a From with or without a name', () => {
    const config = notificationConfig({ SMTP_URL: 'smtps://u:p@mail.example:465', SMTP_FROM: 'Acme <a@acme.example>', SLACK_WEBHOOK_URL: 'https://hooks.slack.com/services/x' });
    expect(config).toEqual({ smtpUrl: 'smtps://u:p@mail.example:465', smtpFrom: 'Acme <a@acme.example>', slackWebhookUrl: 'https://hooks.slack.com/services/x' });
    expect(notificationConfig({ SMTP_FROM: 'a@acme.example' }).smtpFrom).toBe('a@acme.example');
  });

  it('refuses other schemes, a From with line breaks, and never echoes a URL (it may hold a password)', () => {
    expect(() => notificationConfig({ SMTP_URL: 'http://u:secret@mail.example' })).toThrow(/SMTP_URL must use smtp: or smtps:/);
    expect(() => notificationConfig({ SMTP_URL: 'not a url secret' })).toThrow(/^SMTP_URL is not a URL$/);
    expect(() => notificationConfig({ SLACK_WEBHOOK_URL: 'ftp://x' })).toThrow(/SLACK_WEBHOOK_URL/);
    expect(() => notificationConfig({ SMTP_FROM: 'a@b.example\r\nBcc: c@d.example' })).toThrow(/SMTP_FROM/);
  });
});
