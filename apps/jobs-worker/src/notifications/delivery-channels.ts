import nodemailer, { type Transporter, type TransportOptions } from 'nodemailer';
import type { DeliveryChannel } from '@lms/contracts';
import type { NotificationConfig } from './notification.config.js';

/** One message to one recipient on one channel. */
export interface OutgoingMessage {
  /** The delivery's id: the same on every attempt, so a message resent after a lost acknowledgement is known as the same one. */
  id: string;
  to: { name: string; address: string | null };
  subject: string;
  text: string;
}

/** The domain of the From address, for Message-IDs (RFC 5322 wants a domain the sender controls). */
const messageIdDomain = (from: string): string => /@([A-Za-z0-9.-]+)>?\s*$/.exec(from)?.[1] ?? 'learning-service.invalid';

/** A send that did not go through; `permanent` when trying again cannot help (a 5xx refusal, a 4xx webhook). */
export class DeliveryError extends Error {
  constructor(
    message: string,
    readonly permanent: boolean,
  ) {
    super(message);
  }
}

export interface DeliveryChannelSender {
  readonly channel: DeliveryChannel;
  /** Why nothing can be sent on it (not configured), or undefined when it can send. */
  readonly unavailable?: string;
  /** Resolves once the other side accepted the message; throws DeliveryError otherwise. */
  send(message: OutgoingMessage): Promise<void>;
  close(): Promise<void>;
}

/** How long one send may take at most (connect, greeting, each reply). */
export const SEND_TIMEOUT_MS = 20_000;

const oneLine = (text: string) => text.replace(/[\r\n]+/g, ' ').slice(0, 500);

/** E-mail over SMTP (nodemailer, a small connection pool); unset SMTP_URL: unavailable. */
export class EmailSender implements DeliveryChannelSender {
  readonly channel = 'email' as const;
  readonly unavailable?: string;
  private readonly transport?: Transporter;

  constructor(private readonly config: NotificationConfig) {
    if (!config.smtpUrl) {
      this.unavailable = 'e-mail is not configured (SMTP_URL)';
      return;
    }
    this.transport = nodemailer.createTransport({
      url: config.smtpUrl,
      pool: true,
      maxConnections: 2,
      connectionTimeout: SEND_TIMEOUT_MS,
      greetingTimeout: SEND_TIMEOUT_MS,
      socketTimeout: SEND_TIMEOUT_MS,
    } as unknown as TransportOptions);
  }

  async send(message: OutgoingMessage): Promise<void> {
    if (!this.transport) throw new DeliveryError(this.unavailable!, true);
    if (!message.to.address) throw new DeliveryError('the user has no e-mail address', true);
    try {
      await this.transport.sendMail({
        from: this.config.smtpFrom,
        // One Message-ID per delivery: a resend in the at-least-once window (docs/jobs.md) is the same message to mail systems.
        messageId: `<delivery-${message.id}@${messageIdDomain(this.config.smtpFrom)}>`,
        to: { name: message.to.name, address: message.to.address },
        subject: message.subject,
        text: message.text,
      });
    } catch (err) {
      const code = (err as { responseCode?: unknown }).responseCode;
      const text = oneLine(err instanceof Error ? err.message : String(err));
      // 5xx: the server refused for good (unknown mailbox, policy); 4xx and connection failures may pass later.
      throw new DeliveryError(typeof code === 'number' ? `SMTP ${code}: ${text}` : `SMTP: ${text}`, typeof code === 'number' && code >= 500 && code < 600);
    }
  }

  async close(): Promise<void> {
    this.transport?.close();
  }
}

/** Slack through an incoming webhook (one message per recipient, naming them); unset SLACK_WEBHOOK_URL: unavailable. */
export class SlackSender implements DeliveryChannelSender {
  readonly channel = 'slack' as const;
  readonly unavailable?: string;

  constructor(private readonly config: NotificationConfig) {
    if (!config.slackWebhookUrl) this.unavailable = 'Slack is not configured (SLACK_WEBHOOK_URL)';
  }

  async send(message: OutgoingMessage): Promise<void> {
    if (!this.config.slackWebhookUrl) throw new DeliveryError(this.unavailable!, true);
    let res: Response;
    try {
      res = await fetch(this.config.slackWebhookUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ text: `*${message.subject}* (for ${message.to.name})\n${message.text}` }),
        redirect: 'error',
        signal: AbortSignal.timeout(SEND_TIMEOUT_MS),
      });
    } catch (err) {
      throw new DeliveryError(`Slack webhook: ${oneLine(err instanceof Error ? err.message : String(err))}`, false);
    }
    const body = oneLine(await res.text().catch(() => ''));
    if (res.ok) return;
    // 429 and 5xx pass later; any other 4xx (a revoked webhook, a bad payload) will not.
    throw new DeliveryError(`Slack webhook answered ${res.status}${body ? `: ${body.slice(0, 200)}` : ''}`, res.status < 500 && res.status !== 429);
  }

  async close(): Promise<void> {}
}
