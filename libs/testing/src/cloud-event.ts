import { randomUUID } from 'node:crypto';
import type { CloudEvent } from '@lms/contracts';

/** An event as an outbox would write it, for specs that hand one to a log or a consumer; `more` overrides any field. */
export function testEvent<T = unknown>(type: string, data: T, more: Partial<CloudEvent<T>> = {}): CloudEvent<T> {
  return { specversion: '1.0', id: randomUUID(), source: '/test', type, time: new Date().toISOString(), datacontenttype: 'application/json', accountid: 1, data, ...more };
}
