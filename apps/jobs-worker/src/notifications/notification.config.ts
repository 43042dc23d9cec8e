/**
 * Where notifications go (docs/jobs.md, "Notification delivery"). Only jobs-worker reads these, so they
 * live here rather than in the platform config. Each channel is off until it is configured: its deliveries
 * are then recorded `skipped` ("not configured"), never lost silently.
 */
export interface NotificationConfig {
  /** `smtp://user:pass@host:587` or `smtps://…:465`; unset: no e-mail. */
  smtpUrl?: string;
  /** The From of every e-mail. */
  smtpFrom: string;
  /** A Slack incoming-webhook URL; unset: no Slack. */
  slackWebhookUrl?: string;
}

export const DEFAULT_SMTP_FROM = 'Learning Service <no-reply@localhost>';

function optionalUrl(env: NodeJS.ProcessEnv, name: string, protocols: string[]): string | undefined {
  const raw = env[name];
  if (raw === undefined || raw === '') return undefined;
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new Error(`${name} is not a URL`);
  }
  if (!protocols.includes(parsed.protocol)) throw new Error(`${name} must use ${protocols.join(' or ')}, got "${parsed.protocol}"`);
  return raw;
}

export function notificationConfig(env: NodeJS.ProcessEnv = process.env): NotificationConfig {
  const from = env.SMTP_FROM || DEFAULT_SMTP_FROM;
  // An address, optionally with a display name: `Name <a@b>` or `a@b`; no line breaks (header injection).
  if (!/^(?:[^\r\n<>]*<[^\s<>@]+@[^\s<>@]+>|[^\s<>@]+@[^\s<>@]+)$/.test(from)) throw new Error('SMTP_FROM must be an e-mail address, optionally as "Name <address>"');
  return {
    smtpUrl: optionalUrl(env, 'SMTP_URL', ['smtp:', 'smtps:']),
    smtpFrom: from,
    slackWebhookUrl: optionalUrl(env, 'SLACK_WEBHOOK_URL', ['https:', 'http:']),
  };
}
