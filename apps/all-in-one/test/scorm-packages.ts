import { strToU8, zipSync, type Zippable } from 'fflate';

/**
 * Small real SCORM packages for the specs: one SCO that finds the runtime the standard way (walking up
 * the frames), and behaves like a course a learner leaves half-way: on a first sitting it records a
 * place and suspend data and suspends; on the next it reads them back, shows them, and finishes with a
 * score. Its page shows what it saw in `#state`.
 */
const manifest12 = `<?xml version="1.0" encoding="UTF-8"?>
<manifest identifier="spec-12" version="1.0" xmlns="http://www.imsproject.org/xsd/imscp_rootv1p1p2" xmlns:adlcp="http://www.adlnet.org/xsd/adlcp_rootv1p2">
  <metadata><schema>ADL SCORM</schema><schemaversion>1.2</schemaversion></metadata>
  <organizations default="org-b">
    <organization identifier="org-a"><title>Not the default</title><item identifier="item-a" identifierref="res-asset"><title>Asset</title></item></organization>
    <organization identifier="org-b"><title>Fire safety</title>
      <item identifier="item-intro" isvisible="true"><title>Module</title>
        <item identifier="item-sco" identifierref="res-sco"><title>Fire safety lesson</title></item>
      </item>
    </organization>
  </organizations>
  <resources>
    <resource identifier="res-asset" type="webcontent" adlcp:scormtype="asset" href="shared/readme.html"><file href="shared/readme.html"/></resource>
    <resource identifier="res-sco" type="webcontent" adlcp:scormtype="sco" href="sco/index.html">
      <file href="sco/index.html"/><dependency identifierref="res-shared"/>
    </resource>
    <resource identifier="res-shared" type="webcontent" adlcp:scormtype="asset"><file href="shared/find-api.js"/></resource>
  </resources>
</manifest>`;

const manifest2004 = `<?xml version="1.0" encoding="UTF-8"?>
<manifest identifier="spec-2004" xmlns="http://www.imsglobal.org/xsd/imscp_v1p1" xmlns:adlcp="http://www.adlnet.org/xsd/adlcp_v1p3" xmlns:imsss="http://www.imsglobal.org/xsd/imsss">
  <metadata><schema>ADL SCORM</schema><schemaversion>2004 4th Edition</schemaversion></metadata>
  <organizations default="org">
    <organization identifier="org"><title>Data privacy</title>
      <item identifier="item-sco" identifierref="res-sco"><title>Privacy lesson</title>
        <imsss:sequencing><imsss:deliveryControls completionSetByContent="true" objectiveSetByContent="true"/></imsss:sequencing>
      </item>
      <imsss:sequencing><imsss:controlMode choice="true" flow="true"/></imsss:sequencing>
    </organization>
  </organizations>
  <resources>
    <resource identifier="res-sco" type="webcontent" adlcp:scormType="sco" href="index.html"><file href="index.html"/><file href="shared/find-api.js"/></resource>
  </resources>
</manifest>`;

const findApi = `function findApi(name) {
  var win = window;
  for (var i = 0; i < 10 && win; i += 1) {
    if (win[name]) return win[name];
    if (win.parent === win) break;
    win = win.parent;
  }
  throw new Error('no SCORM runtime named ' + name);
}`;

const sco12 = `<!doctype html><html><head><meta charset="utf-8"><script src="../shared/find-api.js"></script></head><body><p id="state">loading</p><script>
var api = findApi('API');
api.LMSInitialize('');
var prior = api.LMSGetValue('cmi.suspend_data');
var seen = prior + '|' + api.LMSGetValue('cmi.core.entry') + '|' + api.LMSGetValue('cmi.core.lesson_location') + '|' + api.LMSGetValue('cmi.core.student_id');
if (!prior) {
  api.LMSSetValue('cmi.core.lesson_location', 'page-2');
  api.LMSSetValue('cmi.suspend_data', 'visited=1,2');
  api.LMSSetValue('cmi.core.lesson_status', 'incomplete');
  api.LMSSetValue('cmi.core.exit', 'suspend');
  api.LMSCommit('');
  api.LMSFinish('');
  document.getElementById('state').textContent = 'suspended';
} else {
  api.LMSSetValue('cmi.core.score.min', '0');
  api.LMSSetValue('cmi.core.score.max', '100');
  api.LMSSetValue('cmi.core.score.raw', '87');
  api.LMSSetValue('cmi.core.lesson_status', 'passed');
  api.LMSSetValue('cmi.core.exit', '');
  api.LMSCommit('');
  api.LMSFinish('');
  document.getElementById('state').textContent = 'resumed:' + seen;
}
</script></body></html>`;

const sco2004 = `<!doctype html><html><head><meta charset="utf-8"><script src="shared/find-api.js"></script></head><body><p id="state">loading</p><script>
var api = findApi('API_1484_11');
api.Initialize('');
var prior = api.GetValue('cmi.suspend_data');
var seen = prior + '|' + api.GetValue('cmi.entry') + '|' + api.GetValue('cmi.location') + '|' + api.GetValue('cmi.learner_id');
if (!prior) {
  api.SetValue('cmi.location', 'chapter-3');
  api.SetValue('cmi.suspend_data', 'answers=a,c');
  api.SetValue('cmi.completion_status', 'incomplete');
  api.SetValue('cmi.progress_measure', '0.5');
  api.SetValue('cmi.exit', 'suspend');
  api.Commit('');
  api.Terminate('');
  document.getElementById('state').textContent = 'suspended';
} else {
  api.SetValue('cmi.score.scaled', '0.75');
  api.SetValue('cmi.completion_status', 'completed');
  api.SetValue('cmi.success_status', 'passed');
  api.SetValue('cmi.exit', 'normal');
  api.Commit('');
  api.Terminate('');
  document.getElementById('state').textContent = 'resumed:' + seen;
}
</script></body></html>`;

/**
 * A SCORM 1.2 package of three SCOs in one organization (an introduction without a score, a lesson, a
 * quiz), plus an asset item the table of contents leaves out. Each SCO, once loaded, reports itself
 * complete (the lesson 90, the quiz 60) and shows `done:<identifier>:<student id>` in `#state`. Only the
 * quiz ends its session itself: the player ends the others' when the learner moves on.
 */
const manifestMulti = `<?xml version="1.0" encoding="UTF-8"?>
<manifest identifier="spec-multi" version="1.0" xmlns="http://www.imsproject.org/xsd/imscp_rootv1p1p2" xmlns:adlcp="http://www.adlnet.org/xsd/adlcp_rootv1p2">
  <metadata><schema>ADL SCORM</schema><schemaversion>1.2</schemaversion></metadata>
  <organizations default="org">
    <organization identifier="org"><title>Ladder safety</title>
      <item identifier="intro" identifierref="res-intro"><title>Introduction</title></item>
      <item identifier="module"><title>Module</title>
        <item identifier="lesson" identifierref="res-lesson"><title>Lesson</title></item>
        <item identifier="handout" identifierref="res-handout"><title>Handout</title></item>
      </item>
      <item identifier="quiz" identifierref="res-quiz"><title>Quiz</title></item>
    </organization>
  </organizations>
  <resources>
    <resource identifier="res-intro" type="webcontent" adlcp:scormtype="sco" href="intro.html"><file href="intro.html"/></resource>
    <resource identifier="res-lesson" type="webcontent" adlcp:scormtype="sco" href="lesson/index.html"><file href="lesson/index.html"/></resource>
    <resource identifier="res-handout" type="webcontent" adlcp:scormtype="asset" href="handout.html"><file href="handout.html"/></resource>
    <resource identifier="res-quiz" type="webcontent" adlcp:scormtype="sco" href="quiz.html"><file href="quiz.html"/></resource>
  </resources>
</manifest>`;

const scoMulti = (identifier: string, score: string | null, root = '', finishes = false) => `<!doctype html><html><head><meta charset="utf-8"><script src="${root}find-api.js"></script></head><body><p id="state">loading</p><script>
var api = findApi('API');
api.LMSInitialize('');
${score === null ? '' : `api.LMSSetValue('cmi.core.score.raw', '${score}');`}
api.LMSSetValue('cmi.core.lesson_status', '${score === null ? 'completed' : 'passed'}');
api.LMSCommit('');
document.getElementById('state').textContent = 'done:${identifier}:' + api.LMSGetValue('cmi.core.student_id');
${finishes ? "api.LMSFinish('');" : ''}
</script></body></html>`;

export const zip = (files: Record<string, string>): Buffer => Buffer.from(zipSync(Object.fromEntries(Object.entries(files).map(([path, text]) => [path, strToU8(text)])) as Zippable));

export const scorm12Package = () =>
  zip({ 'imsmanifest.xml': manifest12, 'sco/index.html': sco12, 'shared/find-api.js': findApi, 'shared/readme.html': '<p>read me</p>' });

export const scorm2004Package = () => zip({ 'imsmanifest.xml': manifest2004, 'index.html': sco2004, 'shared/find-api.js': findApi });

export const MANIFESTS = { scorm12: manifest12, scorm2004: manifest2004 };

export const multiScoPackage = () =>
  zip({
    'imsmanifest.xml': manifestMulti,
    'intro.html': scoMulti('intro', null),
    'lesson/index.html': scoMulti('lesson', '90', '../'),
    'quiz.html': scoMulti('quiz', '60', '', true),
    'handout.html': '<p>handout</p>',
    'find-api.js': findApi,
  });

export const MULTI_SCO_MANIFEST = manifestMulti;
