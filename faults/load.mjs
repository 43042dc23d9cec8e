// The mixed load a fault scenario runs under: creates, updates and reads across identity, catalog,
// scheduling, locking and jobs, and enrollments completing so events flow into identity's user summary. Every
// answer is recorded in a ledger: what was acknowledged (2xx) must be there afterwards; what was only
// attempted may or may not be, but never twice.
import { requestJson } from '../bench/load.mjs';

/** A small deterministic generator (mulberry32), so a seed replays the same mix. */
export function random(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** Outcomes of one scenario's requests, by kind. */
export class Tally {
  requests = 0;
  kinds = {};
  /** One answer of each kind that is not a 2xx, to say what went wrong. */
  samples = {};
  add(kind, sample) {
    this.requests += 1;
    this.kinds[kind] = (this.kinds[kind] ?? 0) + 1;
    if (!/^2\d\d$/.test(kind)) this.samples[kind] ??= sample;
  }
  get hangs() {
    return this.kinds.hang ?? 0;
  }
  /** "503: 12, refused: 3": everything but the 2xx answers. */
  errors() {
    return Object.entries(this.kinds)
      .filter(([kind]) => !/^2\d\d$/.test(kind))
      .sort()
      .map(([kind, n]) => `${kind}: ${n}`)
      .join(', ');
  }
}

/**
 * A client of the gateway whose every answer lands in the current tally: a status, `refused` when the
 * connection failed or was cut (the gateway itself down), `hang` when no answer came within `hangMs`.
 */
export function client({ baseUrl, token, hangMs }) {
  let tally = new Tally();
  const call = async (method, path, body, headers = {}) => {
    try {
      const res = await requestJson(baseUrl + path, { method, body, timeoutMs: hangMs, headers: { authorization: `Bearer ${token}`, ...headers } });
      tally.add(String(res.status), `${method} ${path}: ${res.text.slice(0, 200)}`);
      return res;
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      tally.add(message.includes('no answer within') ? 'hang' : 'refused', message);
      return { status: 0, json: undefined, text: message };
    }
  };
  return {
    call,
    /** Starts a new tally and answers the previous one. */
    nextTally() {
      const done = tally;
      tally = new Tally();
      return done;
    },
  };
}

/** What was acknowledged and attempted during one scenario. */
export function newLedger() {
  return {
    users: new Map(), // id → uid
    updates: new Map(), // user id → acknowledged first_name
    courses: new Map(), // id → title
    liveCourses: new Map(), // id → title
    locks: new Map(), // course id → lock id
    /** Learners whose enrollment in the completion course was asked to complete: id → acknowledged? */
    completions: new Map(),
  };
}

/**
 * Runs `concurrency` loops of mixed operations until `stop()` says so. `shared` holds what outlives a
 * scenario: the published course learners complete, and users free for an update or an enrollment.
 */
export function runMixedLoad({ api, ledger, shared, rand, concurrency, stop }) {
  const name = (prefix) => `${prefix}-${shared.run}-${(shared.serial += 1)}`;
  const pick = (list) => list.splice(Math.floor(rand() * list.length), 1)[0];

  const ops = [
    [25, async () => {
      const uid = name('faults-user');
      const res = await api.call('POST', '/api/admin/users', { users: [{ uid, first_name: 'Fault', last_name: 'Load', email: `${uid}@example.com` }] });
      if (res.status === 200) {
        const id = res.json.users[0].id;
        ledger.users.set(id, uid);
        (rand() < 0.5 ? shared.toUpdate : shared.toEnroll).push(id);
      }
    }],
    [15, async () => {
      const id = pick(shared.toUpdate);
      if (!id) return;
      const value = name('Updated');
      const res = await api.call('PATCH', `/api/admin/users/${id}`, { user: { first_name: value } });
      if (res.status === 200) ledger.updates.set(id, value);
    }],
    [15, async () => {
      const title = name('Faults course');
      const res = await api.call('POST', '/api/author/course_templates', { course_templates: [{ title, course_type: 'native', is_published: false, has_unpublished_changes: true, default_days_until_due: 14 }] });
      if (res.status === 201) {
        const id = res.json.course_templates[0].id;
        ledger.courses.set(id, title);
        shared.toLock.push(id);
      }
    }],
    [10, async () => {
      const title = name('Faults live course');
      const res = await api.call('POST', '/api/author/live_courses', { live_courses: [{ title }] });
      if (res.status === 201) ledger.liveCourses.set(res.json.live_courses[0].id, title);
    }],
    [15, async () => {
      const id = pick(shared.toEnroll);
      if (!id) return;
      const enrolled = await api.call('POST', `/api/author/course_templates/${shared.courseId}/enrollments`, { enrollments: [{ user_id: Number(id) }] });
      const enrollment = enrolled.json?.enrollments?.[0];
      if (enrolled.status !== 201 || !enrollment) return;
      ledger.completions.set(id, false);
      const done = await api.call('PATCH', `/api/author/enrollments/${enrollment.id}`, { enrollments: [{ completed_at: new Date().toISOString() }] });
      if (done.status === 200) ledger.completions.set(id, true);
    }],
    [5, async () => {
      const id = pick(shared.toLock);
      if (!id) return;
      const res = await api.call('POST', `/api/author/course_templates/${id}/lock`);
      if (res.status === 200) ledger.locks.set(id, res.json.lock.id);
    }],
    [5, () => api.call('GET', '/api/admin/data_dumps')],
    [15, async () => {
      const ids = [...ledger.users.keys()];
      if (ids.length > 0) await api.call('GET', `/api/admin/users/${ids[Math.floor(rand() * ids.length)]}`);
    }],
  ];
  const total = ops.reduce((sum, [weight]) => sum + weight, 0);
  const next = () => {
    let r = rand() * total;
    for (const [weight, op] of ops) if ((r -= weight) < 0) return op;
    return ops[0][1];
  };
  return Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (!stop()) await next()();
    }),
  );
}
