import { readdirSync } from 'node:fs';
import { AUTH_INVALIDATE_SUBJECT, AUTH_RESOLVE_SUBJECT, eventSubject, ROUTES, USER_IMPORT_SUBJECTS } from '@lms/contracts';
import { BUS_ROLES, inboxPrefixOf, RESTRICTED_REQUESTS, natsPasswordVariable, natsUsers, renderNatsAuthorization, type NatsUser, type SubjectRules } from './nats-access.js';
import { subjectMatches } from './subject-match.js';

const allows = (rules: SubjectRules, subject: string) => rules.allow.some((p) => subjectMatches(p, subject)) && !(rules.deny ?? []).some((p) => subjectMatches(p, subject));

describe('NATS users and permissions', () => {
  const users = natsUsers();
  const user = (name: string): NatsUser => users.find((u) => u.user === name)!;

  it('has one user per deployable that connects to NATS (every app but the all-in-one)', () => {
    const apps = readdirSync(new URL('../../../../apps', import.meta.url), { withFileTypes: true })
      .filter((entry) => entry.isDirectory() && entry.name !== 'all-in-one')
      .map((entry) => entry.name)
      .sort();
    expect(Object.keys(BUS_ROLES).sort()).toEqual(apps);
    expect(users.map((u) => u.user).sort()).toEqual(apps);
  });

  it('lets the gateway send every subject of the route table and the token lookup, and exactly one service answer each', () => {
    for (const subject of [...new Set([...ROUTES.map((r) => r.subject), AUTH_RESOLVE_SUBJECT])]) {
      expect([subject, allows(user('gateway').permissions.publish, subject)]).toEqual([subject, true]);
      const answering = users.filter((u) => u.permissions.allow_responses && allows(u.permissions.subscribe, subject)).map((u) => u.user);
      expect([subject, answering]).toEqual([subject, [subject.split('.')[0]]]);
    }
  });

  it("lets only jobs-worker ask identity for the import source (a decrypted password) and send it user rows", () => {
    expect(Object.keys(RESTRICTED_REQUESTS).sort()).toEqual(Object.values(USER_IMPORT_SUBJECTS).sort());
    for (const subject of Object.values(USER_IMPORT_SUBJECTS)) {
      for (const u of users) expect([u.user, subject, allows(u.permissions.publish, subject)]).toEqual([u.user, subject, u.user === 'jobs-worker']);
    }
  });

  it('lets identity broadcast token invalidations and the gateway hear them, and nobody else send them', () => {
    for (const u of users) expect([u.user, allows(u.permissions.publish, AUTH_INVALIDATE_SUBJECT)]).toEqual([u.user, u.user === 'identity']);
    expect(allows(user('gateway').permissions.subscribe, AUTH_INVALIDATE_SUBJECT)).toBe(true);
  });

  it('lets a service publish its own events only, and the gateway none (it only reads the files bucket)', () => {
    const own = (u: string) => eventSubject(`${u === 'jobs-worker' ? 'jobs' : u}.thing.happened`);
    for (const u of users.filter((x) => x.user !== 'gateway')) {
      expect(allows(u.permissions.publish, own(u.user))).toBe(true);
      for (const other of ['identity', 'catalog', 'scheduling', 'jobs', 'locking'].filter((s) => !own(u.user).startsWith(`events.${s}.`))) {
        expect([u.user, other, allows(u.permissions.publish, eventSubject(`${other}.thing.happened`))]).toEqual([u.user, other, false]);
      }
    }
    expect(allows(user('gateway').permissions.publish, 'events.identity.user.deleted')).toBe(false);
    const gatewayJetStream = user('gateway').permissions.publish.allow.filter((s) => s.startsWith('$JS.') || s.startsWith('$O.'));
    // Of the object store it reads FILES and writes UPLOADS (staged request bodies) only.
    expect(gatewayJetStream.filter((s) => s !== '$JS.API.INFO' && !s.includes('.OBJ_FILES') && !s.includes('OBJ_UPLOADS') && s !== '$O.UPLOADS.>')).toEqual([]);
    expect(gatewayJetStream.some((s) => /STREAM\.(CREATE|UPDATE|PURGE)\.OBJ_FILES|^\$O\.FILES/.test(s))).toBe(false);
    expect(allows(user('jobs-worker').permissions.publish, '$O.FILES.C.abc')).toBe(true);
    expect(allows(user('jobs-worker').permissions.publish, '$JS.API.STREAM.PURGE.OBJ_FILES')).toBe(true);
  });

  it('gives each user its own reply inbox, and no user another’s', () => {
    for (const u of users) {
      expect(allows(u.permissions.subscribe, `${inboxPrefixOf(u.user)}.abc.1`)).toBe(true);
      for (const other of users.filter((x) => x !== u)) expect(allows(u.permissions.subscribe, `${inboxPrefixOf(other.user)}.abc.1`)).toBe(false);
      expect(allows(u.permissions.subscribe, '_INBOX.abc')).toBe(false);
    }
  });

  it('never lets a service delete a stream or a consumer of the event log', () => {
    for (const u of users) {
      expect(allows(u.permissions.publish, '$JS.API.STREAM.DELETE.EVENTS')).toBe(false);
      expect(allows(u.permissions.publish, '$JS.API.STREAM.PURGE.EVENTS')).toBe(false);
      expect(allows(u.permissions.publish, '$JS.API.CONSUMER.DELETE.EVENTS.identity-user-deletion')).toBe(false);
    }
    expect(allows(user('identity').permissions.publish, '$JS.API.CONSUMER.MSG.NEXT.EVENTS.identity-user-deletion')).toBe(true);
  });

  it('prefixes subjects and streams with the namespace', () => {
    const identity = natsUsers('ns_1').find((u) => u.user === 'identity')!;
    expect(allows(identity.permissions.subscribe, 'ns_1.identity.users.list')).toBe(true);
    expect(allows(identity.permissions.subscribe, 'identity.users.list')).toBe(false);
    expect(allows(identity.permissions.publish, 'ns_1.events.identity.user.deleted')).toBe(true);
    expect(allows(identity.permissions.publish, '$JS.API.STREAM.INFO.NS_1_EVENTS')).toBe(true);
    expect(allows(identity.permissions.publish, '$JS.API.STREAM.INFO.EVENTS')).toBe(false);
  });

  it('renders an authorization block whose passwords come from the server’s environment', () => {
    const text = renderNatsAuthorization(users, '# header\n');
    expect(text.startsWith('# header\nauthorization {\n  users: [\n')).toBe(true);
    expect(text).toContain(`user: "jobs-worker"\n      password: $${natsPasswordVariable('jobs-worker')}\n`);
    expect(natsPasswordVariable('jobs-worker')).toBe('NATS_PASSWORD_JOBS_WORKER');
    expect(text.match(/allow_responses: \{ max: 64, expires: "2m" \}/g)).toHaveLength(5);
  });
});
