// `npm run seed`: fills an account of a running system with a small, realistic data set through its own
// HTTP API, so the docs page and every list answer something real at once (issue 18). Safe to run again:
// each record is looked up by its natural key (a uid, a name, a title) before it is made, so a second
// run adds nothing. What a service does not serve yet (its routes are not in /api/openapi.json) is
// skipped with a line saying so.
//
// Settings: LMS_URL (http://localhost:3000), LMS_TOKEN (else BOOTSTRAP_ADMIN_TOKEN): an administrator's token.
const baseUrl = (process.env.LMS_URL ?? `http://localhost:${process.env.PORT ?? 3000}`).replace(/\/$/, '');
const token = process.env.LMS_TOKEN ?? process.env.BOOTSTRAP_ADMIN_TOKEN;
if (!token) {
  console.error('seed: set LMS_TOKEN (or BOOTSTRAP_ADMIN_TOKEN) to an administrator token of the account to fill');
  process.exit(2);
}

const DAY = 86_400_000;
const at = (days) => new Date(Date.now() + days * DAY).toISOString();

async function call(method, path, body) {
  const res = await fetch(baseUrl + path, {
    method,
    headers: { authorization: `Bearer ${token}`, accept: 'application/json', ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
    redirect: 'manual',
  });
  const text = await res.text();
  const json = text ? JSON.parse(text) : undefined;
  return { status: res.status, body: json };
}

async function must(method, path, body) {
  const res = await call(method, path, body);
  if (res.status >= 300) throw new Error(`${method} ${path} answered ${res.status}: ${JSON.stringify(res.body).slice(0, 400)}`);
  return res.body;
}

const made = { users: 0, groups: 0, courses: 0, enrollments: 0, liveCourses: 0, sessions: 0, registrations: 0, waitlisted: 0 };

/** A user by uid, made with `roles` when missing. */
async function user(uid, firstName, lastName, roles) {
  const found = await call('GET', `/api/admin/users/uid:${uid}`);
  if (found.status === 200) return found.body.users[0];
  const [created] = (await must('POST', '/api/admin/users', { users: [{ uid, first_name: firstName, last_name: lastName, email: `${uid}@example.com` }] })).users;
  await must('PUT', `/api/admin/users/${created.id}/roles`, { roles });
  made.users += 1;
  return created;
}

async function group(name, members) {
  const found = (await must('GET', `/api/author/groups?search=${encodeURIComponent(name)}&per_page=100`)).groups.find((g) => g.name === name);
  const id = found?.id ?? (await must('POST', '/api/author/groups', { groups: [{ name }] })).groups[0].id;
  if (!found) made.groups += 1;
  // Adding a learner already in the group changes nothing.
  await must('POST', `/api/author/groups/${id}/learners`, { users: members.map((m) => ({ user_id: Number(m.id) })) });
  return id;
}

async function course(title, { published, slides, description }) {
  const found = (await must('GET', `/api/author/course_templates/titles?search=${encodeURIComponent(title)}&per_page=100`)).course_templates.find((c) => c.title === title);
  if (found) return found.id;
  const [created] = (
    await must('POST', '/api/author/course_templates', {
      course_templates: [{ title, description, course_type: 'native', is_published: false, has_unpublished_changes: true, default_days_until_due: 30, has_certificate: published }],
    })
  ).course_templates;
  made.courses += 1;
  await must('POST', `/api/author/course_templates/${created.id}/slides`, {
    slides: slides.map(([heading, minutes]) => ({ draft_attributes: { title: heading, allow_comments: true }, estimated_time: minutes })),
  });
  if (published) await must('POST', `/api/author/course_templates/${created.id}/publish`, {});
  return created.id;
}

/** Enrolls each learner once, then moves the new enrollment to the state asked for. */
async function enrollments(courseId, entries) {
  for (const [learner, state] of entries) {
    const res = await must('POST', `/api/author/course_templates/${courseId}/enrollments`, {
      enrollments: [{ user_id: Number(learner.id), required: true, end_at: state === 'overdue' ? at(-3) : at(21) }],
    });
    const [enrollment] = res.enrollments ?? [];
    if (!enrollment) continue; // already enrolled: a second run
    made.enrollments += 1;
    const change = { active: { state: 'active' }, complete: { completed_at: at(-1), score: 92 } }[state];
    if (change) await must('PATCH', `/api/author/enrollments/${enrollment.id}`, { enrollments: [change] });
  }
}

/** Whether the system serves a route: its OpenAPI document, read once. */
let documented;
async function serves(path) {
  documented ??= must('GET', '/api/openapi.json');
  return Object.hasOwn((await documented).paths, path);
}

async function dataDump() {
  if (!(await serves('/api/admin/data_dumps'))) return 'skipped (the jobs service does not serve data dumps yet)';
  const current = (await must('GET', '/api/admin/data_dumps')).data_dumps?.[0];
  if (current?.status === 'complete') return 'complete (kept)';
  await must('POST', '/api/admin/data_dumps');
  for (let i = 0; i < 60; i += 1) {
    const dump = (await must('GET', '/api/admin/data_dumps')).data_dumps?.[0];
    if (dump?.status === 'complete' || dump?.status === 'failed') return dump.status;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  return 'still pending after 30 s';
}

/**
 * A live course with its learners enrolled and two sessions: a small one that is full with a waitlist,
 * and a larger one with a learner checked in. Each step is looked up first, so a second run adds nothing.
 */
async function liveCourse(title, people) {
  if (!(await serves('/api/author/live_courses'))) return 'skipped (the scheduling service does not serve live courses yet)';
  const courses = '/api/author/live_courses';
  let course = (await must('GET', `${courses}?search=${encodeURIComponent(title)}&per_page=100`)).live_courses.find((c) => c.title === title);
  if (!course) {
    course = (await must('POST', courses, { live_courses: [{ title, description: 'A morning in person: the tools, the people, the first week.' }] })).live_courses[0];
    made.liveCourses += 1;
  }
  const enrolled = new Set((await must('GET', `${courses}/${course.id}/learners?per_page=100`)).learners.map((l) => String(l.user_id)));
  const newcomers = people.filter((p) => !enrolled.has(String(p.id)));
  if (newcomers.length > 0) await must('POST', `${courses}/${course.id}/learners`, { learners: newcomers.map((p) => ({ user_id: Number(p.id) })) });

  const sessionsPath = `${courses}/${course.id}/sessions`;
  const plans = [
    { location: 'Room 1 (small)', seats: 2, day: 7, registered: people.slice(0, 2), waitlisted: people.slice(2, 4), checkedIn: [] },
    { location: 'Room 2', seats: 12, day: 14, registered: people.slice(2, 5), waitlisted: [], checkedIn: people.slice(2, 3) },
  ];
  const existing = (await must('GET', `${sessionsPath}?per_page=100`)).sessions;
  for (const plan of plans) {
    let session = existing.find((s) => s.location === plan.location);
    if (!session) {
      const start = new Date(Date.now() + plan.day * DAY);
      start.setUTCHours(9, 0, 0, 0);
      const end = new Date(start.getTime() + 3 * 3_600_000);
      session = (await must('POST', sessionsPath, { sessions: [{ start_at: start.toISOString(), end_at: end.toISOString(), location: plan.location, seats: plan.seats, timezone: 'UTC' }] })).sessions[0];
      made.sessions += 1;
    }
    const registrationsPath = `/api/author/live_course_sessions/${session.id}/registrations`;
    const registrations = (await must('GET', `${registrationsPath}?per_page=100`)).registrations;
    for (const person of plan.registered) {
      if (registrations.some((r) => String(r.user_id) === String(person.id))) continue;
      await must('POST', registrationsPath, { user_id: Number(person.id) });
      made.registrations += 1;
    }
    for (const person of plan.waitlisted) {
      const res = await call('POST', `/api/author/live_course_sessions/${session.id}/waitlist_enrollments`, { user_id: Number(person.id) });
      if (res.status === 204) made.waitlisted += 1;
      else if (res.body?.code !== 'ALREADY_WAITLISTED') throw new Error(`joining the waitlist answered ${res.status}: ${JSON.stringify(res.body).slice(0, 400)}`);
    }
    const current = (await must('GET', `${registrationsPath}?per_page=100`)).registrations;
    for (const person of plan.checkedIn) {
      const registration = current.find((r) => String(r.user_id) === String(person.id));
      if (registration && !registration.marked_complete_at) {
        await must('PATCH', `${registrationsPath}/${registration.id}`, { live_course_session_registration: { marked_complete_at: session.start_at } });
      }
    }
  }
  return `'${title}' with ${plans.length} sessions (one full, with a waitlist)`;
}

const started = Date.now();
const author = await user('demo-author', 'Ada', 'Author', ['author']);
const learners = [];
for (const [i, [first, last]] of [['Grace', 'Hopper'], ['Alan', 'Turing'], ['Edsger', 'Dijkstra'], ['Barbara', 'Liskov'], ['Ken', 'Thompson'], ['Frances', 'Allen']].entries()) {
  learners.push(await user(`demo-learner-${i + 1}`, first, last, ['learner']));
}
await group('Demo: Sales team', learners.slice(0, 3));
const support = await group('Demo: Support team', learners.slice(3));
const safety = await course('Demo: Workplace safety', { published: true, description: 'Hazards, reporting and first aid.', slides: [['Why safety matters', 5], ['Spotting hazards', 10], ['Reporting an incident', 8]] });
const care = await course('Demo: Customer care basics', { published: true, description: 'Listening, tone and follow-up.', slides: [['Listening first', 6], ['Closing the loop', 7]] });
await course('Demo: Data privacy (draft)', { published: false, description: 'Work in progress.', slides: [['What counts as personal data', 9]] });
await enrollments(safety, [[learners[0], 'assigned'], [learners[1], 'active'], [learners[2], 'complete'], [learners[3], 'overdue']]);
// A group enrollment: its learners now, and whoever joins the group later.
await must('POST', `/api/author/course_templates/${care}/enrollments`, { enrollments: [{ group_id: Number(support), required: false }] });
const liveCourses = await liveCourse('Demo: Onboarding workshop', learners);
const dump = await dataDump();

console.log(
  `seed: ${baseUrl} in ${((Date.now() - started) / 1000).toFixed(1)} s: made ${made.users} users, ${made.groups} groups, ${made.courses} courses, ` +
    `${made.enrollments} enrollments, ${made.liveCourses} live courses, ${made.sessions} sessions, ${made.registrations} registrations, ${made.waitlisted} waitlisted ` +
    `(author uid ${author.uid}; nothing made means it was all there already); live course ${liveCourses}; data dump ${dump}`,
);
