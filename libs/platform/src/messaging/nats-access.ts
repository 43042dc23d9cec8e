// Who may do what on NATS: one user per deployable, with subject permissions. The one source of the
// server's authorization block, rendered for Kubernetes and Compose by tools/nats-authorization.mjs and
// for the tests' own server. Self-contained (no imports, erasable types only) so the tools can load it
// with Node's type stripping, without a build.

/** What a deployable does on the bus; permissions follow from it. */
export interface BusRole {
  /** Services whose request subjects (`<service>.>`) it sends requests to. */
  calls?: readonly string[];
  /** The service whose request subjects (`<service>.>`) it answers, in a queue group. */
  serves?: string;
  /** Event types it publishes through the outbox (`events.<prefix>.>`); it also consumes events. */
  publishesEventsOf?: string;
  /** Fire-and-forget notices it sends (cache invalidation). */
  broadcasts?: readonly string[];
  /** Notices it listens to. */
  listens?: readonly string[];
  /** The file store (the object store bucket `FILES`): `write` creates and replaces files, `read` only streams them. */
  files?: 'read' | 'write';
  /** The staged uploads (bucket `UPLOADS`): the gateway writes them, the service an upload route serves reads them. */
  uploads?: 'read' | 'write';
}

const SERVICES = ['identity', 'catalog', 'scheduling', 'jobs', 'locking'] as const;

/** Broadcast when cached principals must be dropped (AUTH_INVALIDATE_SUBJECT in libs/contracts; a spec keeps them equal). */
const AUTH_INVALIDATE = 'identity.auth.invalidate';
/** Gateway replicas share their rate-limit counts (RATE_LIMIT_USAGE_SUBJECT in apps/gateway). */
const RATE_LIMIT_USAGE = 'gateway.rate_limit.usage';

/**
 * Every deployable that connects to NATS (all but the all-in-one) and its role. The gateway asks every
 * service; a service answers only its own subjects and publishes only its own events; jobs-worker answers
 * nothing and publishes the jobs service's events, whose schema it works in.
 */
export const BUS_ROLES: Readonly<Record<string, BusRole>> = {
  // The gateway serves files at signed URLs and SCORM package files, streaming them from the object store (read
  // only), and stages uploads in their own bucket (a file never crosses the bus).
  gateway: { calls: SERVICES, broadcasts: [RATE_LIMIT_USAGE], listens: [AUTH_INVALIDATE, RATE_LIMIT_USAGE], files: 'read', uploads: 'write' },
  identity: { serves: 'identity', publishesEventsOf: 'identity', broadcasts: [AUTH_INVALIDATE] },
  // Catalog asks identity for people, locking whether a write is fenced, and scheduling about learners' live
  // courses; locking asks catalog about lockables.
  // It reads uploaded SCORM packages and keeps their files in the file store.
  catalog: { serves: 'catalog', publishesEventsOf: 'catalog', calls: ['identity', 'locking', 'scheduling'], files: 'write', uploads: 'read' },
  // Scheduling asks identity for people (learners, instructors).
  scheduling: { serves: 'scheduling', publishesEventsOf: 'scheduling', calls: ['identity'] },
  // Both ask the services in the data dump (DUMP_SERVICES) for their models and rows; jobs asks identity whether
  // a clone's source and subdomain are good, jobs-worker runs a clone's steps on identity, catalog and scheduling.
  jobs: { serves: 'jobs', publishesEventsOf: 'jobs', calls: ['identity', 'catalog', 'scheduling'] },
  'jobs-worker': { publishesEventsOf: 'jobs', files: 'write', calls: ['identity', 'catalog', 'scheduling'] },
  locking: { serves: 'locking', publishesEventsOf: 'locking', calls: ['catalog'] },
};

/**
 * Request subjects only some callers of their service may send (the import worker's, which answer a
 * decrypted password and apply user rows: USER_IMPORT_SUBJECTS in libs/contracts; a spec keeps them equal).
 * Every other caller of the service is denied them, the gateway first.
 */
export const RESTRICTED_REQUESTS: Readonly<Record<string, readonly string[]>> = {
  'identity.import_profile.source': ['jobs-worker'],
  'identity.users.import_rows': ['jobs-worker'],
};

export interface SubjectRules {
  allow: string[];
  deny?: string[];
}

/**
 * The most messages one reply may take: a reply larger than the server's largest message goes in parts
 * (NatsBus), 64 MiB at the default 1 MiB. The server lets a service answer each request it received with this
 * many messages, for as long as NATS lets a single answer by default.
 */
export const REPLY_PARTS_MAX = 64;
const RESPONSE_WINDOW = '2m';

export interface NatsUser {
  user: string;
  /** Environment variable of the NATS server holding this user's password (the deployable reads it as NATS_PASSWORD). */
  passwordVariable: string;
  permissions: { publish: SubjectRules; subscribe: SubjectRules; allow_responses?: { max: number; expires: string } };
}

/** Stream names allow neither dots nor wildcards: `ns_ab12` -> `NS_AB12_`. */
export const streamPrefix = (namespace: string): string => (namespace ? `${namespace.toUpperCase().replace(/[^A-Z0-9_-]/g, '_')}_` : '');

/** Replies to a user's requests arrive under this prefix, so no other user can subscribe to them. */
export const inboxPrefixOf = (user: string): string => `_INBOX_${user}`;

/** `jobs-worker` -> `NATS_PASSWORD_JOBS_WORKER`. */
export const natsPasswordVariable = (user: string): string => `NATS_PASSWORD_${user.toUpperCase().replace(/[^A-Z0-9]/g, '_')}`;

/**
 * The JetStream API a deployable with an event log needs, and no more: create or look up its two streams;
 * create, update (a create), look up and pull from durable consumers on the events; read dead letters with
 * a short-lived consumer it deletes after. No stream or consumer deletion on the events: one service's
 * credential cannot drop another's consumer or the log.
 */
function jetStreamApi(namespace: string): string[] {
  const events = `${streamPrefix(namespace)}EVENTS`;
  const deadLetters = `${streamPrefix(namespace)}DEAD_LETTERS`;
  return [
    '$JS.API.INFO',
    ...[events, deadLetters].flatMap((stream) => [`$JS.API.STREAM.INFO.${stream}`, `$JS.API.STREAM.CREATE.${stream}`, `$JS.API.STREAM.UPDATE.${stream}`]),
    `$JS.API.CONSUMER.CREATE.${events}.>`,
    `$JS.API.CONSUMER.DURABLE.CREATE.${events}.>`,
    `$JS.API.CONSUMER.INFO.${events}.>`,
    `$JS.API.CONSUMER.MSG.NEXT.${events}.>`,
    `$JS.ACK.${events}.>`,
    `$JS.API.CONSUMER.CREATE.${deadLetters}`,
    `$JS.API.CONSUMER.CREATE.${deadLetters}.>`,
    `$JS.API.CONSUMER.INFO.${deadLetters}.>`,
    `$JS.API.CONSUMER.MSG.NEXT.${deadLetters}.>`,
    `$JS.API.CONSUMER.DELETE.${deadLetters}.>`,
  ];
}

/**
 * The object store API of the files bucket (stream `OBJ_<NS>_FILES`, subjects `$O.<NS>_FILES.>`): a reader
 * looks an object up and pulls its chunks, a few at a time, through an ordered consumer; a writer also
 * creates the bucket, publishes chunks and metadata, and purges the chunks a replaced object leaves.
 */
function objectStoreApi(namespace: string, access: 'read' | 'write', name = 'FILES'): string[] {
  const bucket = `${streamPrefix(namespace)}${name}`;
  const stream = `OBJ_${bucket}`;
  const read = [
    '$JS.API.INFO',
    `$JS.API.STREAM.INFO.${stream}`,
    `$JS.API.STREAM.MSG.GET.${stream}`,
    `$JS.API.DIRECT.GET.${stream}`,
    `$JS.API.DIRECT.GET.${stream}.>`,
    `$JS.API.CONSUMER.CREATE.${stream}`,
    `$JS.API.CONSUMER.CREATE.${stream}.>`,
    `$JS.API.CONSUMER.INFO.${stream}.>`,
    `$JS.API.CONSUMER.DELETE.${stream}.>`,
    `$JS.API.CONSUMER.MSG.NEXT.${stream}.>`,
  ];
  if (access === 'read') return read;
  return [...read, `$JS.API.STREAM.CREATE.${stream}`, `$JS.API.STREAM.UPDATE.${stream}`, `$JS.API.STREAM.PURGE.${stream}`, `$O.${bucket}.>`];
}

const unique = (items: string[]) => [...new Set(items)];

/** The NATS users of a system whose subjects and streams carry `namespace`. */
export function natsUsers(namespace = '', roles: Readonly<Record<string, BusRole>> = BUS_ROLES): NatsUser[] {
  const at = (subject: string) => (namespace ? `${namespace}.${subject}` : subject);
  const broadcasts = Object.values(roles).flatMap((role) => role.broadcasts ?? []);
  return Object.entries(roles).map(([user, role]) => {
    const publish = unique([
      ...(role.calls ?? []).map((service) => at(`${service}.>`)),
      ...(role.broadcasts ?? []).map(at),
      ...(role.publishesEventsOf ? [at(`events.${role.publishesEventsOf}.>`), at('dlq.>'), ...jetStreamApi(namespace)] : []),
      ...(role.files ? objectStoreApi(namespace, role.files) : []),
      ...(role.uploads ? objectStoreApi(namespace, role.uploads, 'UPLOADS') : []),
    ]);
    // A caller of a service's subjects may not send the notices that live among them.
    const restricted = Object.entries(RESTRICTED_REQUESTS)
      .filter(([subject, callers]) => !callers.includes(user) && (role.calls ?? []).some((s) => subject.startsWith(`${s}.`)))
      .map(([subject]) => subject);
    const deny = [...broadcasts.filter((b) => !(role.broadcasts ?? []).includes(b) && (role.calls ?? []).some((s) => b.startsWith(`${s}.`))), ...restricted].map(at);
    const subscribe = [`${inboxPrefixOf(user)}.>`, ...(role.serves ? [at(`${role.serves}.>`)] : []), ...(role.listens ?? []).map(at)];
    return {
      user,
      passwordVariable: natsPasswordVariable(user),
      permissions: {
        publish: deny.length > 0 ? { allow: publish, deny } : { allow: publish },
        subscribe: { allow: subscribe },
        // Answer the requests it received, and only those (the reply subject is the caller's inbox), in parts if large.
        ...(role.serves ? { allow_responses: { max: REPLY_PARTS_MAX, expires: RESPONSE_WINDOW } } : {}),
      },
    };
  });
}

const list = (items: string[]) => `[${items.map((item) => JSON.stringify(item)).join(', ')}]`;
const rules = ({ allow, deny }: SubjectRules) => `{ allow: ${list(allow)}${deny ? `, deny: ${list(deny)}` : ''} }`;

/** The server's `authorization` block; each password is a `$VARIABLE` the server resolves from its environment. */
export function renderNatsAuthorization(users: NatsUser[], header = ''): string {
  const blocks = users.map(({ user, passwordVariable, permissions }) =>
    [
      '    {',
      `      user: ${JSON.stringify(user)}`,
      `      password: $${passwordVariable}`,
      '      permissions: {',
      `        publish: ${rules(permissions.publish)}`,
      `        subscribe: ${rules(permissions.subscribe)}`,
      ...(permissions.allow_responses ? [`        allow_responses: { max: ${permissions.allow_responses.max}, expires: ${JSON.stringify(permissions.allow_responses.expires)} }`] : []),
      '      }',
      '    }',
    ].join('\n'),
  );
  return `${header}authorization {\n  users: [\n${blocks.join('\n')}\n  ]\n}\n`;
}
