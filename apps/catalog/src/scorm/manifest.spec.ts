import { MAX_SCOS } from '@lms/contracts';
import { ManifestError, parseManifest, withParameters } from './manifest.js';
import { isSafeEntryPath, xmlText } from './package-reader.js';
import { attemptOf, cmiTree, resumeOf, rollUp, type ScoResult, scoreOf, trackingOf } from './rollup.js';
import { reuses, startingSco } from './attempts.js';

const manifest = (body: string, metadata = '<metadata><schema>ADL SCORM</schema><schemaversion>1.2</schemaversion></metadata>') =>
  `<?xml version="1.0"?><manifest identifier="m" xmlns="http://www.imsproject.org/xsd/imscp_rootv1p1p2" xmlns:adlcp="http://www.adlnet.org/xsd/adlcp_rootv1p2">${metadata}${body}</manifest>`;

describe('parseManifest', () => {
  it('takes the default organization, walks nested items in order, and joins xml:base and parameters', () => {
    const parsed = parseManifest(
      manifest(`
        <organizations default="second">
          <organization identifier="first"><title>First</title><item identifier="f1" identifierref="r1"><title>F</title></item></organization>
          <organization identifier="second"><title>Second</title>
            <item identifier="chapter"><title>Chapter</title>
              <item identifier="s1" identifierref="r2" parameters="?page=1"><title>One</title></item>
              <item identifier="s2" identifierref="r3"><title>Two</title></item>
            </item>
          </organization>
        </organizations>
        <resources xml:base="content/">
          <resource identifier="r1" adlcp:scormtype="sco" href="first.html"/>
          <resource identifier="r2" adlcp:scormtype="sco" xml:base="lesson/" href="one.html"><file href="one.html"/><dependency identifierref="lib"/></resource>
          <resource identifier="r3" adlcp:scormtype="sco" href="two.html"/>
          <resource identifier="lib" adlcp:scormtype="asset"><file href="lib.js"/></resource>
        </resources>`),
    );
    expect(parsed).toEqual({
      version: 'scorm_1_2',
      title: 'Second',
      scos: [
        { identifier: 's1', title: 'One', href: 'content/lesson/one.html?page=1' },
        { identifier: 's2', title: 'Two', href: 'content/two.html' },
      ],
    });
  });

  it('reads predefined entities and character references in titles, hrefs and parameters, and expands no declared entity', () => {
    const parsed = parseManifest(
      manifest(`
        <organizations default="o"><organization identifier="o"><title>A &amp; B &#8211; &#x41;&boom;</title>
          <item identifier="s&amp;1" identifierref="r" parameters="?a=1&amp;b=2"><title>&lt;Q&amp;A&gt; &#0; &#1114112;</title></item>
        </organization></organizations>
        <resources><resource identifier="r" adlcp:scormtype="sco" href="Q&amp;A.html"/></resources>`),
    );
    expect(parsed).toEqual({ version: 'scorm_1_2', title: 'A & B \u2013 A&boom;', scos: [{ identifier: 's&1', title: '<Q&A> &#0; &#1114112;', href: 'Q&A.html?a=1&b=2' }] });
  });

  it('refuses two SCO items of one identifier (or two without one): they would share one tracking record', () => {
    const of = (a: string, b: string) =>
      manifest(`<organizations default="o"><organization identifier="o">${a}${b}</organization></organizations>
        <resources><resource identifier="r" adlcp:scormtype="sco" href="a.html"/><resource identifier="x" adlcp:scormtype="asset" href="b.html"/></resources>`);
    expect(() => parseManifest(of('<item identifier="s" identifierref="r"/>', '<item identifier="s" identifierref="r"/>'))).toThrow(/two items .* identifier "s"/);
    expect(() => parseManifest(of('<item identifierref="r"/>', '<item identifierref="r"/>'))).toThrow(/two items .* identifier ""/);
    // One resource behind two items of their own identifiers is two SCOs; an asset item of the same identifier is no SCO.
    expect(parseManifest(of('<item identifier="s1" identifierref="r"/>', '<item identifier="s2" identifierref="r"/>')).scos.map((s) => s.identifier)).toEqual(['s1', 's2']);
    expect(parseManifest(of('<item identifier="s" identifierref="r"/>', '<item identifier="s" identifierref="x"/>')).scos.map((s) => s.identifier)).toEqual(['s']);
  });

  it('refuses more SCOs than the player can address (MAX_SCOS): the ones past it could never be committed to, nor the attempt complete', () => {
    const of = (count: number) =>
      manifest(`<organizations default="o"><organization identifier="o">${Array.from({ length: count }, (_, i) => `<item identifier="s${i}" identifierref="r"/>`).join('')}</organization></organizations>
        <resources><resource identifier="r" adlcp:scormtype="sco" href="a.html"/></resources>`);
    expect(parseManifest(of(MAX_SCOS)).scos).toHaveLength(MAX_SCOS);
    expect(() => parseManifest(of(MAX_SCOS + 1))).toThrow(new ManifestError(`the manifest lists more than ${MAX_SCOS} SCOs`));
  });

  it('reads a manifest by its byte order mark, else its declared encoding, else as UTF-8', () => {
    const doc = (encoding: string) => `<?xml version="1.0" encoding="${encoding}"?><t>Sécurité</t>`;
    expect(xmlText(Buffer.from(doc('ISO-8859-1'), 'latin1'))).toBe(doc('ISO-8859-1'));
    expect(xmlText(Buffer.from(doc('windows-1252'), 'latin1'))).toBe(doc('windows-1252'));
    expect(xmlText(Buffer.from(doc('UTF-8')))).toBe(doc('UTF-8'));
    expect(xmlText(Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(doc('UTF-16'), 'utf16le')]))).toBe(doc('UTF-16'));
    expect(xmlText(Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from(doc('UTF-16'), 'utf16le').swap16()]))).toBe(doc('UTF-16'));
    // Mislabelled: UTF-16 declared without a mark on UTF-8 bytes, an unknown name, and a UTF-8 mark over a declaration.
    expect(xmlText(Buffer.from(doc('UTF-16')))).toBe(doc('UTF-16'));
    expect(xmlText(Buffer.from(doc('x-unknown')))).toBe(doc('x-unknown'));
    expect(xmlText(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(doc('ISO-8859-1'))]))).toBe(`\uFEFF${doc('ISO-8859-1')}`);
  });

  it('joins parameters to an href the way content packaging says', () => {
    expect(withParameters('a.html', undefined)).toBe('a.html');
    expect(withParameters('a.html', '?x=1')).toBe('a.html?x=1');
    expect(withParameters('a.html', 'x=1')).toBe('a.html?x=1');
    expect(withParameters('a.html?l=en', '?x=1')).toBe('a.html?l=en&x=1');
    expect(withParameters('a.html?l=en', '&x=1')).toBe('a.html?l=en&x=1');
    expect(withParameters('a.html', '#p2')).toBe('a.html#p2');
    expect(withParameters('a.html#p1', '#p2')).toBe('a.html#p1');
    expect(withParameters('a.html', '?')).toBe('a.html');
  });

  it('lists every SCO of a multi-SCO organization in document order, with its title, skipping assets and item-less containers', () => {
    const parsed = parseManifest(
      manifest(`
        <organizations default="course">
          <organization identifier="course"><title>Course with chapters</title>
            <item identifier="intro" identifierref="r-intro"><title>  Introduction  </title></item>
            <item identifier="ch1"><title>Chapter 1</title>
              <item identifier="ch1-a" identifierref="r-a"><title>Lesson 1.1</title></item>
              <item identifier="ch1-glossary" identifierref="r-glossary"><title>Glossary (an asset)</title></item>
              <item identifier="ch1-b" identifierref="r-b" parameters="#part2"><title>Lesson 1.2</title></item>
            </item>
            <item identifier="quiz" identifierref="r-quiz"><title>Final quiz</title></item>
            <item identifier="untitled" identifierref="r-a"/>
          </organization>
        </organizations>
        <resources>
          <resource identifier="r-intro" adlcp:scormtype="sco" href="intro.html"/>
          <resource identifier="r-a" adlcp:scormtype="sco" href="ch1/a.html"/>
          <resource identifier="r-b" adlcp:scormtype="sco" href="ch1/b.html"/>
          <resource identifier="r-glossary" adlcp:scormtype="asset" href="glossary.html"/>
          <resource identifier="r-quiz" adlcp:scormtype="sco" href="quiz/index.html?mode=final"/>
        </resources>`),
    );
    expect(parsed.title).toBe('Course with chapters');
    expect(parsed.scos).toEqual([
      { identifier: 'intro', title: 'Introduction', href: 'intro.html' },
      { identifier: 'ch1-a', title: 'Lesson 1.1', href: 'ch1/a.html' },
      { identifier: 'ch1-b', title: 'Lesson 1.2', href: 'ch1/b.html#part2' },
      { identifier: 'quiz', title: 'Final quiz', href: 'quiz/index.html?mode=final' },
      { identifier: 'untitled', title: '', href: 'ch1/a.html' },
    ]);
  });

  it('reads SCORM 2004 editions, ignoring sequencing, and the version from the namespaces when metadata has none', () => {
    const body2004 = (schemaversion: string) =>
      `<manifest xmlns="http://www.imsglobal.org/xsd/imscp_v1p1" xmlns:adlcp="http://www.adlnet.org/xsd/adlcp_v1p3" xmlns:imsss="http://www.imsglobal.org/xsd/imsss">
        ${schemaversion ? `<metadata><schemaversion>${schemaversion}</schemaversion></metadata>` : ''}
        <organizations default="o"><organization identifier="o"><title>T</title>
          <item identifier="i" identifierref="r"><title>I</title><imsss:sequencing><imsss:controlMode flow="true"/></imsss:sequencing></item>
        </organization></organizations>
        <resources><resource identifier="r" adlcp:scormType="sco" href="index.html"/></resources>
        <imsss:sequencingCollection><imsss:sequencing ID="x"/></imsss:sequencingCollection>
      </manifest>`;
    expect(parseManifest(body2004('2004 4th Edition')).version).toBe('scorm_2004_4th');
    expect(parseManifest(body2004('2004 3rd Edition')).version).toBe('scorm_2004_3rd');
    expect(parseManifest(body2004('CAM 1.3')).version).toBe('scorm_2004_3rd');
    expect(parseManifest(body2004('')).version).toBe('scorm_2004_3rd');
    expect(parseManifest(manifest('<organizations><organization identifier="o"><item identifier="i" identifierref="r"/></organization></organizations><resources><resource identifier="r" adlcp:scormtype="sco" href="a.html"/></resources>', '')).version).toBe('scorm_1_2');
  });

  it('refuses what cannot be played: no SCO, no organization, not XML, no manifest element', () => {
    for (const xml of [
      manifest('<organizations><organization identifier="o"><item identifier="i" identifierref="r"/></organization></organizations><resources><resource identifier="r" adlcp:scormtype="asset" href="a.html"/></resources>'),
      manifest('<resources><resource identifier="r" adlcp:scormtype="sco" href="a.html"/></resources>'),
      manifest('<organizations><organization identifier="o"><item identifier="i" identifierref="missing"/></organization></organizations><resources/>'),
      '<manifest><organizations>',
      '<?xml version="1.0"?><other/>',
      '<!DOCTYPE m [<!ENTITY x "y">]><manifest>&x;</manifest>',
    ]) {
      expect(() => parseManifest(xml)).toThrow(ManifestError);
    }
  });
});

describe('package entry paths', () => {
  it('accepts relative paths inside the package only', () => {
    for (const ok of ['index.html', 'a/b/c.js', 'with space/é.png', '.hidden']) expect([ok, isSafeEntryPath(ok)]).toEqual([ok, true]);
    for (const bad of ['../x', 'a/../../x', '/etc/passwd', 'C:/win.ini', 'c:x', 'a\\b', 'a/./b', '', 'a\u0000b']) expect([bad, isSafeEntryPath(bad)]).toEqual([bad, false]);
  });
});

describe('tracking and rollup', () => {
  it('reads a SCORM 1.2 commit in every form the runtime sends, and scales raw scores', () => {
    const nested = { cmi: { core: { lesson_status: 'passed', score: { raw: '45', min: '0', max: '50' } } } };
    const flat = { 'cmi.core.lesson_status': 'passed', 'cmi.core.score.raw': '45', 'cmi.core.score.min': '0', 'cmi.core.score.max': '50' };
    const commitObject = { runtimeData: nested, successStatus: 'passed', completionStatus: 'completed' };
    for (const commit of [nested, flat, commitObject]) {
      expect(trackingOf('scorm_1_2', cmiTree(commit))).toEqual({ completionStatus: 'completed', successStatus: 'passed', score: 90, progress: 1, complete: true });
    }
    expect(trackingOf('scorm_1_2', cmiTree({ cmi: { core: { lesson_status: 'failed' } } })).complete).toBe(false);
    expect(cmiTree({ '__proto__.polluted': 'yes', 'constructor.prototype.x': 1 })).toEqual({});
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('reads SCORM 2004 completion, success, scaled score and progress', () => {
    expect(trackingOf('scorm_2004_4th', cmiTree({ cmi: { completion_status: 'incomplete', progress_measure: '0.4' } }))).toMatchObject({ complete: false, progress: 0.4, score: null });
    expect(trackingOf('scorm_2004_4th', cmiTree({ cmi: { completion_status: 'completed', score: { scaled: '0.75' } } }))).toMatchObject({ complete: true, progress: 1, score: 75 });
  });

  it('rolls a one-SCO attempt up by mode and resumes only what a SCO may be given back', () => {
    const completedAt = new Date('2030-01-01T00:00:00Z');
    const sco = { completionStatus: 'completed', successStatus: 'passed', score: 87.4, progress: 1, completedAt, updatedAt: completedAt };
    const done = { progress: 1, completedAt };
    for (const mode of ['score_provided_by_course', 'average_sco_score', 'last_sco_score']) {
      expect([mode, rollUp(mode, 1, [sco], done)]).toEqual([mode, { score: 87, progress: 1, completedAt }]);
    }
    expect(rollUp('fixed_score', 1, [sco], done).score).toBe(100);
    expect(rollUp('fixed_score', 1, [sco], { ...done, completedAt: null }).score).toBeNull();
    expect(resumeOf('scorm_1_2', { core: { lesson_location: 'p2', exit: 'suspend', student_id: '9', total_time: '0' }, suspend_data: 's' })).toEqual({
      core: { lesson_location: 'p2', lesson_status: 'not attempted', score: {}, entry: 'resume' },
      suspend_data: 's',
    });
    expect(resumeOf('scorm_2004_4th', null)).toBeNull();
  });
});

describe('several SCOs in one attempt', () => {
  const at = (minute: number) => new Date(Date.UTC(2030, 0, 1, 0, minute));
  const sco = (fields: Partial<ScoResult>): ScoResult => ({ completionStatus: 'incomplete', successStatus: 'unknown', score: null, progress: null, completedAt: null, updatedAt: at(0), ...fields });
  const passed = (score: number | null, minute: number) => sco({ completionStatus: 'completed', successStatus: 'passed', score, progress: 1, completedAt: at(minute), updatedAt: at(minute) });

  it('completes an attempt when every SCO of the package is complete, and averages progress over all of them', () => {
    expect(attemptOf(3, [])).toEqual({ completionStatus: null, successStatus: null, score: null, progress: null, complete: false });
    expect(attemptOf(3, [passed(80, 1), sco({ progress: 0.5 })])).toEqual({ completionStatus: 'incomplete', successStatus: 'unknown', score: 80, progress: 0.5, complete: false });
    expect(attemptOf(3, [passed(80, 1), passed(null, 2), passed(60, 3)])).toEqual({ completionStatus: 'completed', successStatus: 'passed', score: 70, progress: 1, complete: true });
    expect(attemptOf(2, [passed(80, 1), sco({ completionStatus: 'completed', successStatus: 'failed', score: 20, completedAt: at(2), progress: 1 })])).toMatchObject({ successStatus: 'failed', complete: true });
  });

  it('scores by mode over the SCOs: provided by course, average over all, last reported, fixed', () => {
    // intro (no score), lesson 90 at minute 5, quiz 60 at minute 3; a fourth SCO not played yet.
    const scos = [passed(null, 1), passed(90, 5), passed(60, 3)];
    expect(scoreOf('score_provided_by_course', 4, scos, false)).toBe(75);
    expect(scoreOf('average_sco_score', 4, scos, false)).toBe(38); // (90 + 60) / 4
    expect(scoreOf('last_sco_score', 4, scos, false)).toBe(90);
    expect(scoreOf('last_sco_score', 4, [...scos, passed(40, 9)], true)).toBe(40);
    expect(scoreOf('fixed_score', 4, scos, false)).toBeNull();
    expect(scoreOf('fixed_score', 4, scos, true)).toBe(100);
    for (const mode of ['score_provided_by_course', 'average_sco_score', 'last_sco_score']) expect(scoreOf(mode, 4, [passed(null, 1)], true)).toBeNull();
    expect(rollUp('average_sco_score', 2, [passed(90, 1), passed(70, 2)], { progress: 1, completedAt: at(2) })).toEqual({ score: 80, progress: 1, completedAt: at(2) });
  });

  it('starts a sitting at the SCO last committed to, or the next open one once that one is complete', () => {
    const toc = ['a', 'b', 'c'].map((identifier) => ({ identifier, title: identifier, href: `${identifier}.html` }));
    const state = (minute: number, complete = false) => ({ updatedAt: at(minute), completedAt: complete ? at(minute) : null });
    expect(startingSco(toc, new Map())).toBe(0);
    expect(startingSco(toc, new Map([['a', state(1, true)], ['b', state(2)]]))).toBe(1);
    expect(startingSco(toc, new Map([['a', state(1)], ['b', state(2, true)]]))).toBe(2);
    expect(startingSco(toc, new Map([['a', state(1)], ['c', state(3, true)]]))).toBe(0);
    expect(startingSco(toc, new Map([['a', state(1, true)], ['b', state(2, true)], ['c', state(3, true)]]))).toBe(2);
  });
});

describe('registration instancing', () => {
  const open = { completedAt: null, supersededAt: null, commits: 3 };
  const completed = { ...open, completedAt: new Date() };
  const untouched = { ...open, commits: 0 };
  it('never makes a new attempt, once per completion after a completed one, every launch unless the last is untouched', () => {
    expect([reuses('never', open), reuses('never', completed)]).toEqual([true, true]);
    expect([reuses('once_per_completion', open), reuses('once_per_completion', completed), reuses('once_per_completion', { ...open, supersededAt: new Date() })]).toEqual([true, false, false]);
    expect([reuses('every_launch', open), reuses('every_launch', untouched), reuses('every_launch', { ...untouched, completedAt: new Date() })]).toEqual([false, true, false]);
  });
});
