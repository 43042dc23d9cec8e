/** CloudEvents 1.0 envelope of every domain event (design §5). */
export interface CloudEvent<T = unknown> {
  specversion: '1.0';
  id: string;
  /** The service that emitted it, e.g. `/identity`. */
  source: string;
  /** `<service>.<aggregate>.<verb>`, e.g. `identity.user.deleted`. */
  type: string;
  time: string;
  subject?: string;
  datacontenttype: 'application/json';
  accountid: number;
  data: T;
}

/** The JetStream subject an event of this type is published on. */
export const eventSubject = (type: string): string => `events.${type}`;
