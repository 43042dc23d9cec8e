import { natsUsers } from '@lms/platform';
import { RATE_LIMIT_USAGE_SUBJECT } from './rate-limiter.js';

describe('NATS permissions for the rate-limit exchange', () => {
  const users = natsUsers('ns');
  const user = (name: string) => users.find((u) => u.user === name)!;

  it('let gateway replicas publish and hear usage reports', () => {
    expect(user('gateway').permissions.publish.allow).toContain(`ns.${RATE_LIMIT_USAGE_SUBJECT}`);
    expect(user('gateway').permissions.subscribe.allow).toContain(`ns.${RATE_LIMIT_USAGE_SUBJECT}`);
  });

  it('let no service forge a report', () => {
    for (const u of users.filter((x) => x.user !== 'gateway')) expect(u.permissions.publish.allow).not.toContain(`ns.${RATE_LIMIT_USAGE_SUBJECT}`);
  });
});
