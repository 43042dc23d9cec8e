import { ManifestError, parseManifest } from './manifest.js';
import { isSafeEntryPath } from './package-reader.js';
import { cmiTree, resumeOf, rollUp, trackingOf } from './rollup.js';

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

  it('rolls up by mode and resumes only what a SCO may be given back', () => {
    const done = { score: 87.4, progress: 1, completedAt: new Date('2030-01-01T00:00:00Z') };
    expect(rollUp('score_provided_by_course', done)).toEqual({ score: 87, progress: 1, completedAt: done.completedAt });
    expect(rollUp('fixed_score', done).score).toBe(100);
    expect(rollUp('fixed_score', { ...done, completedAt: null }).score).toBeNull();
    expect(resumeOf('scorm_1_2', { core: { lesson_location: 'p2', exit: 'suspend', student_id: '9', total_time: '0' }, suspend_data: 's' })).toEqual({
      core: { lesson_location: 'p2', lesson_status: 'not attempted', score: {}, entry: 'resume' },
      suspend_data: 's',
    });
    expect(resumeOf('scorm_2004_4th', null)).toBeNull();
  });
});
