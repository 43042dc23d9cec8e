import { existsSync } from 'node:fs';
import { eventually, holdingLock, queryDatabase, type TestUser } from '@lms/testing';
import { strToU8, zipSync } from 'fflate';
import { type Browser, chromium } from 'playwright-core';
import { COURSES, courseRequest } from './catalog-fixture.js';
import { ENROLLMENTS, type EnrollmentFixture, startEnrollmentFixture } from './enrollment-fixture.js';
import { MANIFESTS, MULTI_SCO_MANIFEST, multiScoPackage, scorm12Package, scorm2004Package, zip } from './scorm-packages.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const describeWithBrowser = existsSync(CHROMIUM) ? describe : describe.skip;
const UPLOAD_MAX_BYTES = 64 * 1024;

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- specs read arbitrary JSON
type Json = Record<string, any>;

describe('SCORM packages, their player and tracking, end to end', () => {
  let f: EnrollmentFixture;
  const packagePath = (id: string | number) => `${COURSES}/${id}/scorm_package`;
  const upload = (id: string | number, body: Buffer | string, contentType = 'application/zip', token = f.t.token) =>
    fetch(`${f.t.api.baseUrl}${packagePath(id)}`, { method: 'PUT', headers: { authorization: `Bearer ${token}`, 'content-type': contentType }, body });
  const scormCourse = (fields: Json = {}) => f.publishedCourse({ course_type: 'scorm', ...fields });
  const enrollmentOf = async (courseId: string, learner: TestUser) => (await f.enroll(courseId, [{ user_id: learner.userId }])).enrollments[0] as Json;
  const enrollment = async (courseId: string, enrollmentId: number) =>
    ((await f.admin.get(`${COURSES}/${courseId}/enrollments?per_page=100`)).body.enrollments as Json[]).find((e) => e.id === enrollmentId)!;

  /** Opens the learner's player page (as a browser would) and answers its settings. */
  const openPlayer = async (learner: TestUser, enrollmentId: number): Promise<Json> => {
    const launch = await f.admin.as(learner.token).get(`/api/learner/courses/${enrollmentId}/launch_url`);
    expect(launch.status).toBe(200);
    const html = await (await fetch(launch.body.url as string)).text();
    return JSON.parse(/<script type="application\/json" id="scorm-player">(.*?)<\/script>/s.exec(html)![1]) as Json;
  };
  /** A runtime commit of SCO `index`, as scorm-again sends it. */
  const commitSco = (player: Json, index: number, cmi: Json) =>
    fetch(`${f.t.api.baseUrl}${player.sessionUrl}/scos/${index}/commit`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ cmi }) });
  const passed12 = (raw?: number) => ({ core: { lesson_status: raw === undefined ? 'completed' : 'passed', ...(raw === undefined ? {} : { score: { raw: String(raw), min: '0', max: '100' } }) } });
  const setScorm = async (courseId: string, scorm: Json) => expect((await f.admin.patch(`${COURSES}/${courseId}`, { course_template: { scorm } })).status).toBe(200);

  beforeAll(async () => {
    f = await startEnrollmentFixture('e2e-scorm', { UPLOAD_MAX_BYTES: String(UPLOAD_MAX_BYTES) });
  });
  afterAll(async () => {
    await f?.close();
  });

  it('stores a package for a SCORM course (200) and shows its version and launch SCO in the scorm block', async () => {
    const course = await scormCourse();
    const res = await upload(course.id, scorm12Package());
    expect(res.status).toBe(200);
    const body = (await res.json()) as Json;
    expect(body.course_templates[0].scorm).toEqual({
      registration_instancing_option: 'never',
      player_launch_type: 'frameset',
      sco_launch_type: 'frameset',
      score_rollup_mode: 'score_provided_by_course',
      scorm_version: 'scorm_1_2',
      launch_sco: 'item-sco',
      package_title: 'Fire safety',
      package_uploaded_at: expect.any(String),
    });
    expect((await f.admin.get(`${COURSES}/${course.id}`)).body.course_templates[0].scorm.scorm_version).toBe('scorm_1_2');
  });

  it('reads the manifest\'s character and entity references (&amp;, &#8211;) in titles, hrefs and parameters, and expands no declared entity', async () => {
    const course = await scormCourse();
    const manifest = MANIFESTS.scorm12
      .replace('<title>Fire safety</title>', '<title>Fire &amp; safety &#8211; basics</title>')
      .replace('<title>Fire safety lesson</title>', '<title>Q&amp;A &lt;1&gt;</title>')
      .replace('<item identifier="item-sco" identifierref="res-sco">', '<item identifier="item-sco" identifierref="res-sco" parameters="?lang=en&amp;mode=review">')
      .replace(/sco\/index\.html/g, 'sco/Q&amp;A.html');
    const res = await upload(course.id, zip({ 'imsmanifest.xml': manifest, 'sco/Q&A.html': '<p>questions</p>', 'shared/find-api.js': '', 'shared/readme.html': '' }));
    expect(res.status).toBe(200);
    expect(((await res.json()) as Json).course_templates[0].scorm).toMatchObject({ package_title: 'Fire & safety \u2013 basics', launch_sco: 'item-sco' });
    const learner = await f.newLearner();
    const player = await openPlayer(learner, (await enrollmentOf(course.id, learner)).id);
    expect(player.scos.map((s: Json) => [s.title, s.href])).toEqual([['Q&A <1>', 'sco/Q&A.html?lang=en&mode=review']]);
    const sco = await fetch(f.t.api.baseUrl + player.contentUrl);
    expect([sco.status, await sco.text()]).toEqual([200, '<p>questions</p>']);
    // An entity the document declares itself is not expanded (no entity tricks), and it is no reason to refuse the package.
    const declared = MANIFESTS.scorm12.replace('<manifest ', '<!DOCTYPE manifest [<!ENTITY boom "boom">]><manifest ').replace('<title>Fire safety</title>', '<title>&boom;</title>');
    const kept = await upload(course.id, zip({ 'imsmanifest.xml': declared, 'sco/index.html': '', 'shared/find-api.js': '', 'shared/readme.html': '' }));
    expect([kept.status, ((await kept.json()) as Json).course_templates[0].scorm.package_title]).toEqual([200, '&boom;']);
  });

  it('reads entry names the way the tool that zipped them wrote them: UTF-8 without the zip\'s UTF-8 flag (as many tools write), else code page 437', async () => {
    const course = await scormCourse();
    const manifest = MANIFESTS.scorm12.replace(/sco\/index\.html/g, 'leçon/café.html');
    /** The zip's entries as a tool that sets no UTF-8 flag (bit 11) writes them: the bytes of the name alone. */
    const withoutUtf8Flag = (zipped: Buffer) => {
      const out = Buffer.from(zipped);
      for (let i = 0; i + 10 < out.length; i += 1) {
        const signature = out.readUInt32LE(i);
        const flags = signature === 0x04034b50 ? i + 6 : signature === 0x02014b50 ? i + 8 : -1;
        if (flags >= 0) out.writeUInt16LE(out.readUInt16LE(flags) & ~0x800, flags);
      }
      return out;
    };
    const utf8 = withoutUtf8Flag(zip({ 'imsmanifest.xml': manifest, 'leçon/café.html': '<p>bonjour</p>', 'shared/find-api.js': '', 'shared/readme.html': '' }));
    const res = await upload(course.id, utf8);
    expect([res.status, ((await res.json()) as Json).code]).toEqual([200, undefined]);
    const learner = await f.newLearner();
    const player = await openPlayer(learner, (await enrollmentOf(course.id, learner)).id);
    const sco = await fetch(f.t.api.baseUrl + player.contentUrl);
    expect([player.scos[0].href, sco.status, await sco.text()]).toEqual(['leçon/café.html', 200, '<p>bonjour</p>']);
    // A name that is not UTF-8 is code page 437, as the zip format says (0x87 is ç, 0x82 é there).
    const placeholder = withoutUtf8Flag(zip({ 'imsmanifest.xml': manifest, 'leXon/cafY.html': '<p>salut</p>', 'shared/find-api.js': '', 'shared/readme.html': '' }));
    const cp437 = Buffer.from(placeholder.toString('latin1').split('leXon/cafY.html').join('le\u0087on/caf\u0082.html'), 'latin1');
    expect((await upload(course.id, cp437)).status).toBe(200);
    const other = await f.newLearner();
    const played = await fetch(f.t.api.baseUrl + (await openPlayer(other, (await enrollmentOf(course.id, other)).id)).contentUrl);
    expect([played.status, await played.text()]).toEqual([200, '<p>salut</p>']);
  });

  it('refuses a zip bomb whose headers understate a file, and a file whose data is damaged: 400, the previous package kept, no file recorded (both were a 500)', async () => {
    const course = await scormCourse();
    expect((await upload(course.id, scorm2004Package())).status).toBe(200);
    const files = async () => Number((await queryDatabase<{ n: string }>(f.t.db.url, 'SELECT count(*) AS n FROM catalog.scorm_package_files f JOIN catalog.scorm_packages p ON p.id = f.package_id WHERE p.course_template_id = $1', [Number(course.id)]))[0].n);
    const before = await files();
    /** Rewrites the named entry's headers (local and central) with `patch(buffer, headerOffset, central)`. */
    const patchEntry = (zipped: Buffer, name: string, patch: (out: Buffer, at: number, central: boolean) => void) => {
      const out = Buffer.from(zipped);
      for (let i = 0; i + 46 < out.length; i += 1) {
        const signature = out.readUInt32LE(i);
        if (signature === 0x04034b50 && out.toString('latin1', i + 30, i + 30 + name.length) === name) patch(out, i, false);
        if (signature === 0x02014b50 && out.toString('latin1', i + 46, i + 46 + name.length) === name) patch(out, i, true);
      }
      return out;
    };
    const withBig = (size: number) => zip({ 'imsmanifest.xml': MANIFESTS.scorm2004, 'index.html': '', 'shared/find-api.js': '', 'big.bin': '0'.repeat(size) });
    // Says 100 bytes, unpacks to a megabyte (past the 4 × 64 KiB this suite allows).
    const bomb = patchEntry(withBig(1_000_000), 'big.bin', (out, at, central) => out.writeUInt32LE(100, at + (central ? 24 : 22)));
    // The deflate data of the file broken half-way (its header still right).
    const damaged = patchEntry(withBig(200_000), 'big.bin', (out, at, central) => {
      if (central) return;
      const data = at + 30 + out.readUInt16LE(at + 26) + out.readUInt16LE(at + 28);
      out.fill(0xff, data + 20, data + 60);
    });
    for (const body of [damaged, bomb]) {
      const res = await upload(course.id, body);
      const problem = (await res.json()) as Json;
      expect([res.status, problem.code, problem.detail]).toEqual([400, 'SCORM_PACKAGE_INVALID', expect.stringMatching(/damaged/)]);
    }
    expect(await files()).toBe(before);
    expect((await f.admin.get(`${COURSES}/${course.id}`)).body.course_templates[0].scorm).toMatchObject({ scorm_version: 'scorm_2004_4th' });
  });

  it('answers an upload the course was archived under while it unpacked as one to an archived course: 400 COURSE_TEMPLATE_ARCHIVED (it was a 404)', async () => {
    const course = await scormCourse();
    // The course's row held: the archive waits on it, then the upload (past its first look, which saw a live course).
    await holdingLock(f.t.db.url, 'SELECT id FROM catalog.course_templates WHERE id = $1 FOR UPDATE', [Number(course.id)], async (held) => {
      const archive = f.admin.delete(`${COURSES}/${course.id}`);
      await held.waiters(1);
      const stored = upload(course.id, scorm12Package());
      await held.waiters(2);
      await held.release();
      expect((await archive).status).toBe(204);
      const res = await stored;
      expect([res.status, ((await res.json()) as Json).code]).toEqual([400, 'COURSE_TEMPLATE_ARCHIVED']);
    });
    // As one sent after the archive is answered.
    expect(((await (await upload(course.id, scorm12Package())).json()) as Json).code).toBe('COURSE_TEMPLATE_ARCHIVED');
  });

  it('reads a manifest in the encoding it declares (ISO-8859-1) or marks (a UTF-16 byte order mark), not as UTF-8 whatever it says', async () => {
    const course = await scormCourse();
    const manifest = MANIFESTS.scorm12.replace('encoding="UTF-8"', 'encoding="ISO-8859-1"').replace('<title>Fire safety</title>', '<title>Sécurité incendie</title>').replace(/sco\/index\.html/g, 'sco/leçon.html');
    const others = { 'sco/leçon.html': '<p>leçon</p>', 'shared/find-api.js': '', 'shared/readme.html': '' };
    const latin1 = zipSync({ 'imsmanifest.xml': Buffer.from(manifest, 'latin1'), ...Object.fromEntries(Object.entries(others).map(([path, text]) => [path, strToU8(text)])) });
    const res = await upload(course.id, Buffer.from(latin1));
    const body = (await res.json()) as Json;
    expect([res.status, body.course_templates?.[0].scorm.package_title ?? body.detail]).toEqual([200, 'Sécurité incendie']);
    const learner = await f.newLearner();
    const player = await openPlayer(learner, (await enrollmentOf(course.id, learner)).id);
    expect([player.scos[0].href, (await fetch(f.t.api.baseUrl + player.contentUrl)).status]).toEqual(['sco/leçon.html', 200]);
    // UTF-16 (little-endian, with its byte order mark), as some authoring tools write it.
    const utf16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(manifest.replace('encoding="ISO-8859-1"', 'encoding="UTF-16"').replace('Sécurité incendie', 'Sécurité (UTF-16)'), 'utf16le')]);
    const wide = await upload(course.id, Buffer.from(zipSync({ 'imsmanifest.xml': utf16, ...Object.fromEntries(Object.entries(others).map(([path, text]) => [path, strToU8(text)])) })));
    const wideBody = (await wide.json()) as Json;
    expect([wide.status, wideBody.course_templates?.[0].scorm.package_title ?? wideBody.detail]).toEqual([200, 'Sécurité (UTF-16)']);
  });

  it('joins an item\'s parameters to an href that has a query or fragment as SCORM\'s content packaging says (& after a query, no second fragment)', async () => {
    const course = await scormCourse();
    const manifest = MANIFESTS.scorm12
      .replace('href="sco/index.html">', 'href="sco/index.html?lang=en">')
      .replace('<item identifier="item-sco" identifierref="res-sco">', '<item identifier="item-sco" identifierref="res-sco" parameters="?mode=review">');
    expect((await upload(course.id, zip({ 'imsmanifest.xml': manifest, 'sco/index.html': '<p>sco</p>', 'shared/find-api.js': '', 'shared/readme.html': '' }))).status).toBe(200);
    const learner = await f.newLearner();
    const player = await openPlayer(learner, (await enrollmentOf(course.id, learner)).id);
    expect(player.scos[0].href).toBe('sco/index.html?lang=en&mode=review');
    expect((await fetch(f.t.api.baseUrl + player.contentUrl)).status).toBe(200);
  });

  it('matches names in either Unicode form: a file zipped on macOS as e + combining accent is the café.html its manifest names', async () => {
    const course = await scormCourse();
    const manifest = MANIFESTS.scorm12.replace(/sco\/index\.html/g, 'sco/caf\u00e9.html');
    expect((await upload(course.id, zip({ 'imsmanifest.xml': manifest, 'sco/cafe\u0301.html': '<p>décomposé</p>', 'shared/find-api.js': '', 'shared/readme.html': '' }))).status).toBe(200);
    const learner = await f.newLearner();
    const player = await openPlayer(learner, (await enrollmentOf(course.id, learner)).id);
    const sco = await fetch(f.t.api.baseUrl + player.contentUrl);
    expect([sco.status, await sco.text()]).toEqual([200, '<p>décomposé</p>']);
    // Asked for in the other form, it is the same file.
    expect((await fetch(`${f.t.api.baseUrl}${player.sessionUrl}/content/sco/${encodeURIComponent('cafe\u0301.html')}`)).status).toBe(200);
  });

  it('refuses bad uploads with 4xx and keeps the previous package', async () => {
    const course = await scormCourse();
    expect((await upload(course.id, scorm2004Package())).status).toBe(200);
    const noManifest = zip({ 'index.html': '<p>hi</p>' });
    const noSco = zip({ 'imsmanifest.xml': MANIFESTS.scorm12.replace('adlcp:scormtype="sco"', 'adlcp:scormtype="asset"'), 'sco/index.html': '', 'shared/readme.html': '' });
    const escaping = zip({ 'imsmanifest.xml': MANIFESTS.scorm2004, 'index.html': '', '../evil.html': '<script>alert(1)</script>' });
    const missingLaunch = zip({ 'imsmanifest.xml': MANIFESTS.scorm2004 });
    const notXml = zip({ 'imsmanifest.xml': '<manifest><unclosed>', 'index.html': '' });
    // Two entries of one name (a zip may hold them; which one is the file?): it was a 409 CONCURRENT_CHANGE, so retrying seemed worth it.
    const twice = zip({ 'imsmanifest.xml': MANIFESTS.scorm2004, 'index.html': '', 'shared/find-api.js': '', 'page-2.html': 'b', 'page-1.html': 'a' });
    const sameName = Buffer.from(twice.toString('latin1').split('page-2.html').join('page-1.html'), 'latin1');
    // Two SCOs of one identifier share one tracking row: the attempt could never complete (it was a 200).
    const sameSco = zip({ 'imsmanifest.xml': MULTI_SCO_MANIFEST.replace('<item identifier="quiz"', '<item identifier="lesson"'), 'intro.html': '', 'lesson/index.html': '', 'quiz.html': '', 'handout.html': '', 'find-api.js': '' });
    for (const [body, detail] of [
      [Buffer.from('not a zip at all'), /not a zip/],
      [noManifest, /no imsmanifest\.xml/],
      [noSco, /no launchable resource/],
      [escaping, /escapes the package/],
      [missingLaunch, /launch file "index.html"/],
      [notXml, /not well-formed|no <manifest>/],
      [sameName, /"page-1.html" is in the package twice/],
      [sameSco, /two items of the default organization have the identifier "lesson"/],
    ] as const) {
      const res = await upload(course.id, body);
      const problem = (await res.json()) as Json;
      expect([res.status, problem.code, problem.detail]).toEqual([400, 'SCORM_PACKAGE_INVALID', expect.stringMatching(detail)]);
    }
    expect((await upload(course.id, Buffer.alloc(UPLOAD_MAX_BYTES + 1))).status).toBe(413);
    const json = await upload(course.id, JSON.stringify({ package: 'x' }), 'application/json');
    expect([json.status, ((await json.json()) as Json).code]).toEqual([415, 'UNSUPPORTED_MEDIA_TYPE']);
    // A body of another type is not told to send JSON alone: a type the gateway reads is told what this route takes.
    for (const [type, detail] of [['text/plain', 'application/zip'], ['application/octet-stream', 'a file as the type its endpoint names']]) {
      const other = await upload(course.id, 'PK', type);
      expect([type, other.status, ((await other.json()) as Json).detail]).toEqual([type, 415, expect.stringContaining(detail)]);
    }
    // Any other route refuses a zip body.
    expect((await fetch(`${f.t.api.baseUrl}${COURSES}`, { method: 'POST', headers: { authorization: `Bearer ${f.t.token}`, 'content-type': 'application/zip' }, body: scorm12Package() })).status).toBe(415);
    const native = await f.publishedCourse();
    expect(((await (await upload(native.id, scorm12Package())).json()) as Json).code).toBe('COURSE_TEMPLATE_NOT_SCORM');
    expect((await upload(999_999, scorm12Package())).status).toBe(404);
    expect((await upload(course.id, scorm12Package(), 'application/zip', f.cast.learner.token)).status).toBe(403);
    expect((await upload(course.id, scorm12Package(), 'application/zip', f.cast.stranger.token)).status).toBe(404);
    expect((await f.admin.get(`${COURSES}/${course.id}`)).body.course_templates[0].scorm).toMatchObject({ scorm_version: 'scorm_2004_4th', launch_sco: 'item-sco' });
  });

  it('validates the SCORM settings on update, for SCORM courses only', async () => {
    const course = await scormCourse();
    const ok = await f.admin.patch(`${COURSES}/${course.id}`, { course_template: { scorm: { score_rollup_mode: 'fixed_score' } } });
    expect([ok.status, ok.body.course_templates[0].scorm.score_rollup_mode, ok.body.course_templates[0].scorm.player_launch_type]).toEqual([200, 'fixed_score', 'frameset']);
    expect((await f.admin.patch(`${COURSES}/${course.id}`, { course_template: { scorm: { score_rollup_mode: 'best_guess' } } })).status).toBe(400);
    expect((await f.admin.patch(`${COURSES}/${course.id}`, { course_template: { scorm: { sco_launch_type: 'popup' } } })).status).toBe(400);
    const native = await f.publishedCourse();
    expect((await f.admin.patch(`${COURSES}/${native.id}`, { course_template: { scorm: { score_rollup_mode: 'fixed_score' } } })).body.code).toBe('COURSE_TEMPLATE_NOT_SCORM');
  });

  it('refuses null for the settings and their block (400, nothing stored), so a None never passes for a setting', async () => {
    const course = await scormCourse();
    for (const scorm of [null, { registration_instancing_option: null }, { score_rollup_mode: null, player_launch_type: 'frameset' }]) {
      for (const method of ['PATCH', 'PUT'] as const) {
        const res = await f.admin.request(method, `${COURSES}/${course.id}`, { course_template: { scorm } });
        expect([res.status, res.body.code, res.body.errors?.[0]?.field]).toEqual([400, 'VALIDATION_FAILED', expect.stringMatching(/^course_template\.scorm/)]);
      }
    }
    expect((await f.admin.get(`${COURSES}/${course.id}`)).body.course_templates[0].scorm).toMatchObject({ registration_instancing_option: 'never', score_rollup_mode: 'score_provided_by_course', player_launch_type: 'frameset' });
  });

  it('takes the settings on create, over the defaults; a course of another type with them is a 400 and nothing is created', async () => {
    const res = await f.admin.post(COURSES, { course_templates: [courseRequest({ title: 'Settings at birth', course_type: 'scorm', scorm: { registration_instancing_option: 'every_launch' } })] });
    expect(res.status).toBe(201);
    const shown = (await f.admin.get(`${COURSES}/${res.body.course_templates[0].id}`)).body.course_templates[0].scorm;
    expect(shown).toMatchObject({ registration_instancing_option: 'every_launch', player_launch_type: 'frameset', score_rollup_mode: 'score_provided_by_course' });
    const total = async () => (await f.admin.get(`${COURSES}?per_page=1`)).headers.get('x-total-count');
    const before = await total();
    expect(before).toMatch(/^\d+$/);
    const refused = await f.admin.post(COURSES, {
      course_templates: [courseRequest({ title: 'Fine', course_type: 'scorm' }), courseRequest({ title: 'Native with settings', scorm: { score_rollup_mode: 'fixed_score' } })],
    });
    expect([refused.status, refused.body.code, refused.body.errors?.[0]?.field]).toEqual([400, 'COURSE_TEMPLATE_NOT_SCORM', 'course_templates[1].scorm']);
    expect(await total()).toBe(before);
  });

  it('starts one attempt for first launches sent at once, each under its own Idempotency-Key (a retry inside the key\'s transaction was a 500)', async () => {
    const course = await scormCourse();
    expect((await upload(course.id, scorm12Package())).status).toBe(200);
    const ann = await f.newLearner();
    const e = await enrollmentOf(course.id, ann);
    const annApi = f.admin.as(ann.token);
    const launches = await Promise.all(Array.from({ length: 10 }, (_, i) => annApi.request('POST', `/api/learner/courses/${e.id}/launch_url`, {}, { 'Idempotency-Key': `first-launch-${e.id}-${i}` })));
    expect(launches.map((res) => res.status)).toEqual(launches.map(() => 200));
    const registrations = await queryDatabase<{ n: number }>(f.t.db.url, 'SELECT count(*)::int AS n FROM catalog.scorm_registrations WHERE enrollment_id = $1', [e.id]);
    expect(registrations).toEqual([{ n: 1 }]);
  });

  it('names the package\'s SCORM version as the external_learning_standard of external_info and the mobile item (a 2004 package was called scorm_1_2)', async () => {
    const learner = await f.newLearner();
    const standards = async (courseId: string) => {
      const e = await enrollmentOf(courseId, learner);
      const api = f.admin.as(learner.token);
      return [(await api.get(`/api/learner/courses/${e.id}/external_info`)).body.external_info.external_learning_standard, (await api.get(`/api/mobile/learner/courses/${courseId}`)).body.template.external_info.external_learning_standard];
    };
    const [v2004, v12, none] = [await scormCourse(), await scormCourse(), await scormCourse()];
    expect((await upload(v2004.id, scorm2004Package())).status).toBe(200);
    expect((await upload(v12.id, scorm12Package())).status).toBe(200);
    expect(await standards(v2004.id)).toEqual(['scorm_2004_4th', 'scorm_2004_4th']);
    expect(await standards(v12.id)).toEqual(['scorm_1_2', 'scorm_1_2']);
    // No package yet: SCORM 1.2, as before there were packages.
    expect(await standards(none.id)).toEqual(['scorm_1_2', 'scorm_1_2']);
    // The list answers each course's own.
    const list = await f.admin.as(learner.token).get(`/api/mobile/learner/courses?course_template_ids=${v12.id},${v2004.id}`);
    expect(list.body.items.map((item: Json) => item.template.external_info.external_learning_standard)).toEqual(['scorm_1_2', 'scorm_2004_4th']);
  });

  it('answers launch_url (GET and POST) and the mobile redirect for the caller\'s own SCORM enrollment only', async () => {
    const course = await scormCourse();
    expect((await upload(course.id, scorm12Package())).status).toBe(200);
    const [ann, bob] = [await f.newLearner(), await f.newLearner()];
    const e = await enrollmentOf(course.id, ann);
    const annApi = f.admin.as(ann.token);
    const got = await annApi.get(`/api/learner/courses/${e.id}/launch_url`);
    // Absolute, as a vendor course's launch_url is: an app opens it as it is (against the request's Host here).
    expect([got.status, got.body.url]).toEqual([200, expect.stringMatching(new RegExp(`^${f.t.api.baseUrl}/scorm/launch/[\\w-]+\\.[\\w-]+$`))]);
    expect((await annApi.post(`/api/learner/courses/${e.id}/launch_url`, {})).body.url).toMatch(new RegExp(`^${f.t.api.baseUrl}/scorm/launch/`));
    const mobile = await fetch(`${f.t.api.baseUrl}/api/learner/courses/${e.id}/mobile_scorm_launch_url`, { headers: { authorization: `Bearer ${ann.token}` }, redirect: 'manual' });
    expect([mobile.status, mobile.headers.get('location')]).toEqual([302, expect.stringMatching(/^\/scorm\/launch\//)]);
    expect((await f.admin.as(bob.token).get(`/api/learner/courses/${e.id}/launch_url`)).status).toBe(404);
    const native = await f.publishedCourse();
    const n = await enrollmentOf(native.id, ann);
    expect((await annApi.get(`/api/learner/courses/${n.id}/launch_url`)).body.code).toBe('NOT_A_SCORM_ENROLLMENT');
    const nativeMobile = await fetch(`${f.t.api.baseUrl}/api/learner/courses/${n.id}/mobile_scorm_launch_url`, { headers: { authorization: `Bearer ${ann.token}` }, redirect: 'manual' });
    expect(nativeMobile.status).toBe(400);
  });

  it('launches by the course type learners see, the published one: an unpublished change of course_type neither stops nor starts the player', async () => {
    const learner = await f.newLearner();
    const api = f.admin.as(learner.token);
    const course = await scormCourse();
    expect((await upload(course.id, scorm12Package())).status).toBe(200);
    const e = await enrollmentOf(course.id, learner);
    const player = await openPlayer(learner, e.id);
    // A draft change to native: learners still have the SCORM course they were given, and its player.
    expect((await f.admin.patch(`${COURSES}/${course.id}`, { course_template: { course_type: 'native' } })).status).toBe(200);
    expect((await api.get(`/api/learner/courses/${e.id}`)).body.courses[0].course_type).toBe('scorm');
    expect((await api.get(`/api/learner/courses/${e.id}/launch_url`)).status).toBe(200);
    expect((await commitSco(player, 0, passed12(70))).status).toBe(200);
    // Published: it is native for learners now, and the player is over.
    expect((await f.admin.post(`${COURSES}/${course.id}/publish`, {})).status).toBe(200);
    expect((await api.get(`/api/learner/courses/${e.id}/launch_url`)).body.code).toBe('NOT_A_SCORM_ENROLLMENT');
    expect((await commitSco(player, 0, passed12(10))).status).toBe(404);
    expect((await fetch(f.t.api.baseUrl + player.contentUrl)).status).toBe(404);
    // The other way: a native course given a SCORM type and package in draft does not play before it is published.
    const native = await f.publishedCourse();
    const n = await enrollmentOf(native.id, learner);
    expect((await f.admin.patch(`${COURSES}/${native.id}`, { course_template: { course_type: 'scorm' } })).status).toBe(200);
    expect((await upload(native.id, scorm12Package())).status).toBe(200);
    expect((await api.get(`/api/learner/courses/${n.id}/launch_url`)).body.code).toBe('NOT_A_SCORM_ENROLLMENT');
    expect((await f.admin.post(`${COURSES}/${native.id}/publish`, {})).status).toBe(200);
    expect((await api.get(`/api/learner/courses/${n.id}/launch_url`)).status).toBe(200);
  });

  it('launches no course taken away from learners (unpublished or archived), completed or not: 404, as its slides are', async () => {
    const course = await scormCourse();
    expect((await upload(course.id, scorm12Package())).status).toBe(200);
    const [ann, bob] = [await f.newLearner(), await f.newLearner()];
    const [open, done] = [await enrollmentOf(course.id, ann), await enrollmentOf(course.id, bob)];
    expect((await f.admin.patch(`${ENROLLMENTS}/${done.id}`, { enrollments: [{ state: 'complete' }] })).status).toBe(200);
    const launches = async () => {
      const statuses: number[] = [];
      for (const [learner, e] of [[ann, open], [bob, done]] as const) {
        const api = f.admin.as(learner.token);
        statuses.push((await api.get(`/api/learner/courses/${e.id}/launch_url`)).status, (await api.post(`/api/learner/courses/${e.id}/launch_url`, {})).status);
        statuses.push((await fetch(`${f.t.api.baseUrl}/api/learner/courses/${e.id}/mobile_scorm_launch_url`, { headers: { authorization: `Bearer ${learner.token}` }, redirect: 'manual' })).status);
      }
      return statuses;
    };
    expect(await launches()).toEqual([200, 200, 302, 200, 200, 302]);
    expect((await f.admin.patch(`${COURSES}/${course.id}`, { course_template: { is_published: false } })).status).toBe(200);
    expect(await launches()).toEqual(Array(6).fill(404));
    expect((await f.admin.patch(`${COURSES}/${course.id}`, { course_template: { is_published: true } })).status).toBe(200);
    expect((await f.admin.delete(`${COURSES}/${course.id}`)).status).toBe(204);
    expect(await launches()).toEqual(Array(6).fill(404));
  });

  it('serves package files only under a valid session credential, and only the package\'s own', async () => {
    const course = await scormCourse();
    expect((await upload(course.id, scorm12Package())).status).toBe(200);
    const learner = await f.newLearner();
    const e = await enrollmentOf(course.id, learner);
    const url = (await f.admin.as(learner.token).get(`/api/learner/courses/${e.id}/launch_url`)).body.url as string;
    const page = await fetch(url);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).not.toContain(learner.token);
    const contentUrl = JSON.parse(/<script type="application\/json" id="scorm-player">(.*?)<\/script>/s.exec(html)![1]).contentUrl as string;
    const sco = await fetch(f.t.api.baseUrl + contentUrl);
    expect([sco.status, sco.headers.get('content-type'), sco.headers.get('x-frame-options')]).toEqual([200, 'text/html; charset=utf-8', 'SAMEORIGIN']);
    const base = contentUrl.slice(0, contentUrl.indexOf('/content/') + '/content/'.length);
    expect((await fetch(`${f.t.api.baseUrl}${base}shared/find-api.js`)).headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    for (const path of ['nothing.html', '..%2F..%2Fimsmanifest.xml', '%2Fetc%2Fpasswd', 'sco/../../x']) {
      expect([path, (await fetch(`${f.t.api.baseUrl}${base}${path}`)).status]).toEqual([path, 404]);
    }
    const session = base.split('/')[3];
    const tampered = session.slice(0, -2) + (session.endsWith('AA') ? 'BB' : 'AA');
    expect((await fetch(`${f.t.api.baseUrl}/scorm/s/${tampered}/content/sco/index.html`)).status).toBe(403);
    // A launch link is not a session credential, nor the other way round.
    const launchToken = url.split('/')[3];
    expect((await fetch(`${f.t.api.baseUrl}/scorm/s/${launchToken}/content/sco/index.html`)).status).toBe(403);
    expect((await fetch(`${f.t.api.baseUrl}/scorm/launch/${session}`)).status).toBe(403);
    // Neither credential reaches the API.
    expect((await fetch(`${f.t.api.baseUrl}/api/learner/courses`, { headers: { authorization: `Bearer ${session}` } })).status).toBe(401);
  });

  it('ends a player session with its enrollment, and with its learner: no file served, no commit taken (404) after a removal or the deletion of a learner who completed', async () => {
    const course = await scormCourse();
    expect((await upload(course.id, scorm12Package())).status).toBe(200);
    const [removed, deleted] = [await f.newLearner(), await f.newLearner()];
    const sessions = [];
    for (const learner of [removed, deleted]) {
      const e = await enrollmentOf(course.id, learner);
      const player = await openPlayer(learner, e.id);
      expect((await fetch(f.t.api.baseUrl + player.contentUrl)).status).toBe(200);
      expect((await commitSco(player, 0, passed12(80))).status).toBe(200);
      sessions.push({ e, player });
    }
    const [first, second] = sessions;
    expect((await f.admin.delete(`/api/author/enrollments/${first.e.id}`)).status).toBe(204);
    expect((await f.admin.delete(`/api/admin/users/${deleted.userId}`)).status).toBe(204);
    for (const { player } of [first, second]) {
      // The deletion reaches catalog by its event.
      await eventually(async () => ((await fetch(f.t.api.baseUrl + player.contentUrl)).status === 404 ? true : undefined));
      const late = await commitSco(player, 0, passed12(10));
      expect([late.status, ((await late.json()) as Json).code]).toEqual([404, 'SCORM_REGISTRATION_NOT_FOUND']);
    }
    // The completed enrollment of the deleted learner stays as history, with the score it had.
    expect(await enrollment(course.id, second.e.id)).toMatchObject({ state: 'complete', score: 80 });
  });

  it('syncs a course of 1,500 attempts in one request: each enrollment derived again, completed once, announced once', async () => {
    const course = await scormCourse();
    expect((await upload(course.id, scorm12Package())).status).toBe(200);
    await setScorm(course.id, { score_rollup_mode: 'average_sco_score' });
    // Straight into the tables: 1,500 learners playing through the API would be most of this suite's time.
    // Every third attempt is complete; the enrollments know nothing of them yet (a repair's case).
    const [{ account_id: accountId, scorm_package_id: packageId }] = await queryDatabase<{ account_id: number; scorm_package_id: string }>(
      f.t.db.url, 'SELECT account_id, scorm_package_id FROM catalog.course_templates WHERE id = $1', [Number(course.id)]);
    const users = await queryDatabase<{ id: number }>(
      f.t.db.url,
      `INSERT INTO identity.users (account_id, uid, first_name, last_name, email)
       SELECT $1, 'sync-' || $2 || '-' || n, 'Sync', 'Learner ' || n, 'sync-' || $2 || '-' || n || '@example.test' FROM generate_series(1, 1500) n RETURNING id`,
      [accountId, course.id],
    );
    await queryDatabase(
      f.t.db.url,
      `WITH e AS (INSERT INTO catalog.enrollments (account_id, enrollable_type, enrollable_id, user_id, state, started_at, progress)
                  SELECT $1, 'CourseTemplate', $2, unnest($3::int[]), 'active', now() - interval '1 day', 0.5 RETURNING id, user_id),
            r AS (INSERT INTO catalog.scorm_registrations (account_id, enrollment_id, user_id, course_template_id, package_id, progress, commits, completed_at)
                  SELECT $1, e.id, e.user_id, $2, $4::uuid, 1, 1, CASE WHEN e.id % 3 = 0 THEN now() - interval '1 hour' END FROM e RETURNING id, completed_at)
       INSERT INTO catalog.scorm_sco_states (account_id, registration_id, sco, score, progress, commits, completed_at)
       SELECT $1, r.id, 'item-sco', 70, 1, 1, r.completed_at FROM r`,
      [accountId, Number(course.id), users.map((u) => u.id), packageId],
    );
    const counts = async () =>
      (await queryDatabase<{ scored: number; complete: number; completed: number; updated: number }>(
        f.t.db.url,
        `SELECT (SELECT count(*) FROM catalog.enrollments WHERE enrollable_id = $1 AND enrollable_type = 'CourseTemplate' AND score = 70)::int AS scored,
                (SELECT count(*) FROM catalog.enrollments WHERE enrollable_id = $1 AND enrollable_type = 'CourseTemplate' AND state = 'complete')::int AS complete,
                (SELECT count(*) FROM catalog.outbox WHERE type = 'catalog.enrollment.completed' AND (payload->'data'->>'course_id')::int = $1)::int AS completed,
                (SELECT count(*) FROM catalog.outbox WHERE type = 'catalog.enrollment.updated' AND (payload->'data'->>'course_template_id')::int = $1)::int AS updated`,
        [Number(course.id)],
      ))[0];

    // Ten statements an enrollment, one transaction each: past the gateway's 5 s, a 504 that went on syncing.
    expect((await f.support.post(`${COURSES}/${course.id}/sync`, {})).status).toBe(204);
    expect(await counts()).toEqual({ scored: 1500, complete: 500, completed: 500, updated: 1500 });
    // Completed at their attempt's completion (Date's milliseconds).
    const completedOne = await queryDatabase<{ completed_at: Date; progress: number }>(
      f.t.db.url, `SELECT e.completed_at, e.progress FROM catalog.enrollments e JOIN catalog.scorm_registrations r ON r.enrollment_id = e.id
                    WHERE e.enrollable_id = $1 AND r.completed_at IS NOT NULL AND abs(extract(epoch FROM e.completed_at - r.completed_at)) < 0.001`, [Number(course.id)]);
    expect(completedOne).toHaveLength(500);
    // Twice the same: nothing changes, nothing is announced again.
    expect((await f.support.post(`${COURSES}/${course.id}/sync`, {})).status).toBe(204);
    expect(await counts()).toEqual({ scored: 1500, complete: 500, completed: 500, updated: 1500 });
  });

  it('a sync racing a commit takes the commit\'s data: the enrollment ends with the score committed, not one the sync read before (it was overwritten)', async () => {
    const course = await scormCourse();
    expect((await upload(course.id, scorm12Package())).status).toBe(200);
    const learner = await f.newLearner();
    const e = await enrollmentOf(course.id, learner);
    const player = await openPlayer(learner, e.id);
    expect((await commitSco(player, 0, { core: { lesson_status: 'incomplete', score: { raw: '50', min: '0', max: '100' } } })).status).toBe(200);
    expect(await enrollment(course.id, e.id)).toMatchObject({ state: 'active', score: 50 });
    // The enrollment's row held: the final commit waits on it, having written its attempt; then a sync comes.
    await holdingLock(f.t.db.url, 'SELECT id FROM catalog.enrollments WHERE id = $1 FOR UPDATE', [e.id], async (held) => {
      const commit = commitSco(player, 0, passed12(90));
      await held.waiters(1);
      const sync = f.support.post(`${COURSES}/${course.id}/sync`, {});
      await held.waiters(2);
      await held.release();
      expect([(await commit).status, (await sync).status]).toEqual([200, 204]);
    });
    expect(await enrollment(course.id, e.id)).toMatchObject({ state: 'complete', score: 90 });
  });

  it('serves a file whose name holds % or ? at its URL (the path decoded once, as every URL is): it was decoded twice and a 404', async () => {
    const course = await scormCourse();
    // A manifest's href is a URL: the launch file 100%.html is sco/100%25.html there.
    const manifest = MANIFESTS.scorm12.replace('href="sco/index.html"', 'href="sco/100%25.html"').replace('<file href="sco/index.html"/>', '<file href="sco/100%25.html"/>');
    const files = { 'imsmanifest.xml': manifest, 'sco/100%.html': 'hundred', 'sco/50%25.html': 'fifty', 'sco/what?.html': 'question', 'sco/a b.html': 'spaced', 'shared/find-api.js': '', 'shared/readme.html': '' };
    expect((await upload(course.id, zip(files))).status).toBe(200);
    const learner = await f.newLearner();
    const player = await openPlayer(learner, (await enrollmentOf(course.id, learner)).id);
    const launched = await fetch(f.t.api.baseUrl + player.contentUrl);
    expect([player.contentUrl.endsWith('/content/sco/100%25.html'), launched.status, await launched.text()]).toEqual([true, 200, 'hundred']);
    const content = `${f.t.api.baseUrl}${player.sessionUrl}/content/`;
    for (const [path, text] of [['sco/50%2525.html', 'fifty'], ['sco/what%3F.html', 'question'], ['sco/a%20b.html', 'spaced'], ['sco/a b.html', 'spaced'], ['sco/what%3F.html?lang=en', 'question']]) {
      const res = await fetch(content + path);
      expect([path, res.status, await res.text()]).toEqual([path, 200, text]);
    }
    // Decoded once, a name is only ever the package's: nothing else is reached.
    for (const path of ['sco/50%25.html', 'sco/what', '..%2Fimsmanifest.xml', 'sco%2F..%2F..%2Fx']) expect([path, (await fetch(content + path)).status]).toEqual([path, 404]);
  });

  it('ends a player session while its course is unpublished, and serves it again once published', async () => {
    const course = await scormCourse();
    expect((await upload(course.id, scorm12Package())).status).toBe(200);
    const learner = await f.newLearner();
    const player = await openPlayer(learner, (await enrollmentOf(course.id, learner)).id);
    expect((await fetch(f.t.api.baseUrl + player.contentUrl)).status).toBe(200);
    expect((await f.admin.patch(`${COURSES}/${course.id}`, { course_template: { is_published: false } })).status).toBe(200);
    expect((await fetch(f.t.api.baseUrl + player.contentUrl)).status).toBe(404);
    expect((await commitSco(player, 0, passed12(10))).status).toBe(404);
    expect((await f.admin.post(`${COURSES}/${course.id}/publish`, {})).status).toBe(200);
    expect((await fetch(f.t.api.baseUrl + player.contentUrl)).status).toBe(200);
  });

  it('lists the SCOs of a multi-SCO package in organization order and tracks each apart under one attempt, rolled up by mode', async () => {
    const course = await scormCourse();
    expect((await upload(course.id, multiScoPackage())).status).toBe(200);
    const learner = await f.newLearner();
    const e = await enrollmentOf(course.id, learner);
    const player = await openPlayer(learner, e.id);
    expect(player.scos.map((s: Json) => [s.identifier, s.title, s.href, s.complete])).toEqual([
      ['intro', 'Introduction', 'intro.html', false],
      ['lesson', 'Lesson', 'lesson/index.html', false],
      ['quiz', 'Quiz', 'quiz.html', false],
    ]);
    expect([player.sco, player.resume, player.contentUrl]).toEqual([0, null, `${player.sessionUrl}/content/intro.html`]);

    // The lesson first: its own data, one SCO of three complete.
    expect((await commitSco(player, 1, { ...passed12(90), suspend_data: 'lesson-data' })).status).toBe(200);
    expect(await enrollment(course.id, e.id)).toMatchObject({ state: 'active', score: 90, completed_at: null });
    expect((await enrollment(course.id, e.id)).progress).toBeCloseTo(1 / 3, 5);
    const lesson = (await (await fetch(`${f.t.api.baseUrl}${player.sessionUrl}/scos/1`)).json()) as Json;
    expect([lesson.sco, lesson.cmi.core.lesson_status, lesson.cmi.suspend_data, lesson.scos.map((s: Json) => s.complete)]).toEqual([1, 'passed', 'lesson-data', [false, true, false]]);
    const intro = (await (await fetch(`${f.t.api.baseUrl}${player.sessionUrl}/scos/0`)).json()) as Json;
    expect(intro.cmi).toBeNull();
    // The next sitting starts after the SCO last completed.
    expect((await openPlayer(learner, e.id)).sco).toBe(2);

    // The other two: the attempt completes when every SCO has.
    expect((await commitSco(player, 2, passed12(60))).status).toBe(200);
    expect((await enrollment(course.id, e.id)).state).toBe('active');
    expect((await commitSco(player, 0, passed12())).status).toBe(200);
    expect(await enrollment(course.id, e.id)).toMatchObject({ state: 'complete', score: 75, progress: 1 });

    // Each mode over the three SCOs (the introduction has no score; the quiz reported last).
    for (const [mode, score] of [['average_sco_score', 50], ['last_sco_score', 60], ['fixed_score', 100], ['score_provided_by_course', 75]] as const) {
      await setScorm(course.id, { score_rollup_mode: mode });
      expect((await f.support.post(`${COURSES}/${course.id}/sync`, {})).status).toBe(204);
      expect([mode, (await enrollment(course.id, e.id)).score]).toEqual([mode, score]);
    }

    // Only the package's SCOs exist.
    for (const path of ['scos/3', 'scos/-1', 'scos/abc', 'scos/99999999']) expect([path, (await fetch(`${f.t.api.baseUrl}${player.sessionUrl}/${path}`)).status]).toEqual([path, 404]);
    expect((await commitSco(player, 3, passed12(10))).status).toBe(404);
    // Every SCO's file must be in the package.
    const missingQuiz = zip({ 'imsmanifest.xml': MULTI_SCO_MANIFEST, 'intro.html': '', 'lesson/index.html': '', 'find-api.js': '' });
    const refused = await upload(course.id, missingQuiz);
    expect([refused.status, ((await refused.json()) as Json).detail]).toEqual([400, expect.stringMatching(/file "quiz.html" of the SCO "quiz"/)]);
  });

  it('applies registration_instancing_option: never keeps the attempt, once_per_completion starts one after completion, every_launch on every launch', async () => {
    const course = await scormCourse();
    expect((await upload(course.id, scorm12Package())).status).toBe(200);
    const suspended = { core: { lesson_status: 'incomplete', lesson_location: 'p2', exit: 'suspend' }, suspend_data: 'kept' };

    // never (the default): the one attempt, after its completion too.
    const ann = await f.newLearner();
    const a = await enrollmentOf(course.id, ann);
    const first = await openPlayer(ann, a.id);
    expect((await commitSco(first, 0, { ...passed12(70), suspend_data: 'kept' })).status).toBe(200);
    expect((await openPlayer(ann, a.id)).resume).toMatchObject({ suspend_data: 'kept' });

    // once_per_completion: the open attempt until it completes, then a new one (a retake: the enrollment stays complete once).
    await setScorm(course.id, { registration_instancing_option: 'once_per_completion' });
    const bob = await f.newLearner();
    const b = await enrollmentOf(course.id, bob);
    const sitting = await openPlayer(bob, b.id);
    expect((await commitSco(sitting, 0, suspended)).status).toBe(200);
    const again = await openPlayer(bob, b.id);
    expect(again.resume).toMatchObject({ suspend_data: 'kept', core: { entry: 'resume', lesson_location: 'p2' } });
    expect((await commitSco(again, 0, passed12(80))).status).toBe(200);
    expect(await enrollment(course.id, b.id)).toMatchObject({ state: 'complete', score: 80 });
    const retake = await openPlayer(bob, b.id);
    expect(retake.resume).toBeNull();
    expect((await commitSco(retake, 0, passed12(95))).status).toBe(200);
    expect(await enrollment(course.id, b.id)).toMatchObject({ state: 'complete', score: 95 });
    const completions = f.events.filter((ev) => ev.type === 'catalog.enrollment.completed' && (ev.data as Json).enrollment_id === b.id);
    expect(completions.length).toBeLessThanOrEqual(1);

    // every_launch: a launch nobody committed to is reused; after a commit the next launch is a new attempt,
    // and the enrollment follows the newest one only.
    await setScorm(course.id, { registration_instancing_option: 'every_launch' });
    const cy = await f.newLearner();
    const c = await enrollmentOf(course.id, cy);
    const older = await openPlayer(cy, c.id);
    const untouched = await openPlayer(cy, c.id);
    expect((await commitSco(older, 0, suspended)).status).toBe(200);
    expect((await openPlayer(cy, c.id)).resume).toBeNull(); // a new attempt
    // `older` and `untouched` were the same attempt (reused while untouched): it is superseded now.
    expect((await commitSco(untouched, 0, passed12(40))).status).toBe(200);
    expect(await enrollment(course.id, c.id)).toMatchObject({ state: 'active', completed_at: null });
    const newest = await openPlayer(cy, c.id); // the attempt above was not committed to: reused
    expect(newest.resume).toBeNull();
    expect((await commitSco(newest, 0, passed12(85))).status).toBe(200);
    expect(await enrollment(course.id, c.id)).toMatchObject({ state: 'complete', score: 85 });

    // player_launch_type is told to the client with the URL, and shown by the player.
    await setScorm(course.id, { player_launch_type: 'new_window', sco_launch_type: 'new_window' });
    const launch = await f.admin.as(cy.token).get(`/api/learner/courses/${c.id}/launch_url`);
    expect(launch.body.player_launch_type).toBe('new_window');
    expect(await openPlayer(cy, c.id)).toMatchObject({ playerLaunchType: 'new_window', scoLaunchType: 'new_window' });
  });

  it('QuizReport shows a SCORM course\'s attempts, completions, average score and pass rate from its registrations', async () => {
    const course = await scormCourse({ passing_threshold: 70 });
    expect((await upload(course.id, scorm12Package())).status).toBe(200);
    const played = async (cmi?: Json) => {
      const learner = await f.newLearner();
      const player = await openPlayer(learner, (await enrollmentOf(course.id, learner)).id);
      if (cmi) expect((await commitSco(player, 0, cmi)).status).toBe(200);
    };
    await played(passed12(80)); // passed
    await played({ core: { lesson_status: 'failed', score: { raw: '40', min: '0', max: '100' } } }); // failed, not complete
    await played({ core: { lesson_status: 'completed', score: { raw: '90', min: '0', max: '100' } } }); // no verdict: the threshold judges
    await played({ core: { lesson_status: 'incomplete', exit: 'suspend' }, suspend_data: 'p1' }); // started, no score
    await played(); // launched, nothing committed: not an attempt

    const report = await f.admin.get(`/api/admin/reports/QuizReport?course_template_id=${course.id}`);
    expect(report.status).toBe(200);
    expect(report.body.reports[0].data).toEqual([
      { course_template_id: Number(course.id), course_title: course.title, quiz: 'SCORM package', quiz_type: 'scorm', interval_days: null, attempts: 4, completed: 2, average_score: 70, pass_rate: 0.6667 },
    ]);
  });

  describeWithBrowser('in a browser', () => {
    let browser: Browser;

    beforeAll(async () => {
      browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-sync'] });
    });
    afterAll(async () => {
      await browser?.close();
    });

    /** Opens the learner's player, waits for the SCO to say it is done, and answers what it saw. */
    async function play(learner: TestUser, enrollmentId: number): Promise<{ state: string; tokenSeen: boolean }> {
      const url = (await f.admin.as(learner.token).get(`/api/learner/courses/${enrollmentId}/launch_url`)).body.url as string;
      const context = await browser.newContext();
      const page = await context.newPage();
      let tokenSeen = false;
      page.on('request', (request) => {
        if (JSON.stringify(request.headers()).includes(learner.token) || request.url().includes(learner.token)) tokenSeen = true;
      });
      try {
        await page.goto(url);
        const frame = page.frameLocator('#sco');
        await frame.locator('#state').filter({ hasNotText: 'loading' }).waitFor({ timeout: 20_000 });
        const state = (await frame.locator('#state').textContent()) ?? '';
        tokenSeen ||= (await page.content()).includes(learner.token);
        return { state, tokenSeen };
      } finally {
        await context.close();
      }
    }

    it('plays a SCORM 1.2 package: suspends, resumes where it stopped, completes with the score; sync follows the rollup mode', async () => {
      const course = await scormCourse();
      expect((await upload(course.id, scorm12Package())).status).toBe(200);
      const learner = await f.newLearner();
      const e = await enrollmentOf(course.id, learner);

      expect(await play(learner, e.id)).toEqual({ state: 'suspended', tokenSeen: false });
      expect(await enrollment(course.id, e.id)).toMatchObject({ state: 'active', completed_at: null });

      expect(await play(learner, e.id)).toEqual({ state: `resumed:visited=1,2|resume|page-2|${learner.userId}`, tokenSeen: false });
      expect(await enrollment(course.id, e.id)).toMatchObject({ state: 'complete', score: 87, progress: 1 });
      await f.summaryOnce(learner.userId, 1);

      // Another rollup mode, then sync: the enrollment is derived again from the stored attempt, twice the same.
      expect((await f.admin.patch(`${COURSES}/${course.id}`, { course_template: { scorm: { score_rollup_mode: 'fixed_score' } } })).status).toBe(200);
      expect((await f.support.post(`${COURSES}/${course.id}/sync`, {})).status).toBe(204);
      expect((await enrollment(course.id, e.id)).score).toBe(100);
      expect((await f.admin.patch(`${COURSES}/${course.id}`, { course_template: { scorm: { score_rollup_mode: 'score_provided_by_course' } } })).status).toBe(200);
      for (let i = 0; i < 2; i += 1) expect((await f.support.post(`${COURSES}/${course.id}/sync`, {})).status).toBe(204);
      expect(await enrollment(course.id, e.id)).toMatchObject({ state: 'complete', score: 87 });
      // One completion, however often it was committed and synced.
      const completions = () => f.events.filter((ev) => ev.type === 'catalog.enrollment.completed' && (ev.data as Json).enrollment_id === e.id);
      await eventually(async () => (completions().length > 0 ? true : undefined));
      expect(completions()).toHaveLength(1);
      expect((await f.admin.get(`/api/admin/users/${learner.userId}/summary`)).body.summary.completed_courses).toBe(1);
    }, 120_000);

    it('plays a package of several SCOs: the table of contents in order, Next moves on, each SCO tracked', async () => {
      const course = await scormCourse();
      expect((await upload(course.id, multiScoPackage())).status).toBe(200);
      const learner = await f.newLearner();
      const e = await enrollmentOf(course.id, learner);
      const url = (await f.admin.as(learner.token).get(`/api/learner/courses/${e.id}/launch_url`)).body.url as string;
      const context = await browser.newContext();
      try {
        const page = await context.newPage();
        await page.goto(url);
        const state = page.frameLocator('#sco').locator('#state');
        await state.filter({ hasText: 'done:intro' }).waitFor({ timeout: 20_000 });
        expect(await page.locator('#toc button').allTextContents()).toEqual(['Introduction', 'Lesson', 'Quiz']);
        await page.click('#next');
        await state.filter({ hasText: 'done:lesson' }).waitFor({ timeout: 20_000 });
        expect(await state.textContent()).toBe(`done:lesson:${learner.userId}`);
        expect(await page.locator('#toc [aria-current]').textContent()).toBe('Lesson');
        // The introduction left is marked complete; the lesson's commit reaches the enrollment.
        expect(await page.locator('#toc button').first().textContent()).toBe('\u2713 Introduction');
        await eventually(async () => ((await enrollment(course.id, e.id)).score === 90 ? true : undefined));
        await page.click('#next');
        await state.filter({ hasText: 'done:quiz' }).waitFor({ timeout: 20_000 });
        expect(await page.locator('#next').isDisabled()).toBe(true);
        await eventually(async () => ((await enrollment(course.id, e.id)).state === 'complete' ? true : undefined));
        expect(await enrollment(course.id, e.id)).toMatchObject({ state: 'complete', score: 75, progress: 1 });
      } finally {
        await context.close();
      }
    }, 120_000);

    it('plays a SCORM 2004 package to completion with its scaled score, and a new package reaches new attempts only', async () => {
      const course = await scormCourse();
      expect((await upload(course.id, scorm2004Package())).status).toBe(200);
      const learner = await f.newLearner();
      const e = await enrollmentOf(course.id, learner);
      expect((await play(learner, e.id)).state).toBe('suspended');
      expect(await enrollment(course.id, e.id)).toMatchObject({ state: 'active', progress: 0.5 });
      // A new package meanwhile: the open attempt keeps the one it started with (a 1.2 SCO would not find API_1484_11).
      expect((await upload(course.id, scorm12Package())).status).toBe(200);
      expect((await play(learner, e.id)).state).toBe(`resumed:answers=a,c|resume|chapter-3|${learner.userId}`);
      expect(await enrollment(course.id, e.id)).toMatchObject({ state: 'complete', score: 75, progress: 1 });
    }, 120_000);
  });
});
