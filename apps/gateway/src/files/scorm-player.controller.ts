import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { Controller, Get, Inject, Post, Req, Res } from '@nestjs/common';
import { type PlayerFile, type PlayerState, type RequestContext, type RpcReply, SCORM_SUBJECTS } from '@lms/contracts';
import { createFileStore, type FileStore, type PlayerClaims, signPlayerToken } from '@lms/platform';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { GATEWAY_DEPS, type GatewayDeps } from '../gateway-deps.js';
import { ProblemError, RpcReplyError } from '../http/problem.js';
import { playerTokenCheckOf } from './link-credential.js';
import { sendStream } from './stream-reply.js';
import { ServiceClient } from '../http/service-client.js';
import { TextBody } from '../http/uploads.js';

/** scorm-again's browser build (window.Scorm12API, window.Scorm2004API), served from this origin. */
const RUNTIME_JS = readFileSync(join(dirname(createRequire(import.meta.url).resolve('scorm-again')), 'scorm-again.min.js'));

/**
 * The player (docs/scorm.md), started from the page's JSON (no inline script): one runtime per SCO, a table
 * of contents to move between the package's SCOs (previous/next and the list), each SCO committing to its
 * own URL. Leaving a SCO unloads it and, when it did not end its session itself, ends it (its data is
 * committed). `sco_launch_type: new_window` opens each SCO in a window of its own (the SCO finds the
 * runtime through `window.opener`); `player_launch_type: new_window` adds an Exit that closes the player.
 */
const PLAYER_JS = `(function () {
  var config = JSON.parse(document.getElementById('scorm-player').textContent);
  var scorm12 = config.version === 'scorm_1_2';
  var inWindow = config.scoLaunchType === 'new_window';
  var base = config.sessionUrl;
  var stage = document.getElementById('stage');
  var toc = document.getElementById('toc');
  var api = null, current = -1, busy = false, scoWindow = null, done = [];
  var $ = function (id) { return document.getElementById(id); };

  function contentUrl(i) { return base + '/content/' + config.scos[i].href.replace(/^\\/+/, ''); }
  function completeNow() {
    if (!api) return false;
    if (scorm12) return ['completed', 'passed'].indexOf(api.cmi.core.lesson_status) >= 0;
    return api.cmi.completion_status === 'completed' || api.cmi.success_status === 'passed';
  }
  function render() {
    toc.textContent = '';
    config.scos.forEach(function (sco, i) {
      var item = document.createElement('li');
      var button = document.createElement('button');
      button.type = 'button';
      button.textContent = ((sco.complete || done[i]) ? '\\u2713 ' : '') + sco.title;
      if (i === current) button.setAttribute('aria-current', 'step');
      button.addEventListener('click', function () { go(i); });
      item.appendChild(button);
      toc.appendChild(item);
    });
    $('prev').disabled = current <= 0;
    $('next').disabled = current >= config.scos.length - 1;
    $('title').textContent = current >= 0 ? config.scos[current].title : '';
  }
  /** The SCO leaves: its frame goes (or its window closes); a session it left open is ended and committed. */
  function leave() {
    if (current >= 0 && completeNow()) done[current] = true;
    var frame = $('sco');
    if (frame) frame.parentNode.removeChild(frame);
    if (scoWindow && !scoWindow.closed) scoWindow.close();
    scoWindow = null;
    if (api && api.isInitialized() && !api.isTerminated()) {
      if (scorm12) api.LMSFinish(''); else api.Terminate('');
    }
  }
  function openWindow() { scoWindow = window.open(contentUrl(current), 'lms-sco'); }
  function start(i, resume) {
    var settings = { lmsCommitUrl: base + '/scos/' + i + '/commit', autocommit: true, autocommitSeconds: 5, logLevel: 5 };
    api = scorm12 ? new window.Scorm12API(settings) : new window.Scorm2004API(settings);
    if (resume) api.loadFromJSON(resume, '');
    if (scorm12) { api.cmi.core.student_id = config.learner.id; api.cmi.core.student_name = config.learner.name; window.API = api; }
    else {
      api.cmi.learner_id = config.learner.id; api.cmi.learner_name = config.learner.name; window.API_1484_11 = api;
      // A SCO's own navigation request (adl.nav.request continue / previous) moves on when it terminates.
      api.on('SequenceNext', function () { setTimeout(function () { go(current + 1); }, 0); });
      api.on('SequencePrevious', function () { setTimeout(function () { go(current - 1); }, 0); });
    }
    current = i;
    render();
    if (inWindow) { $('open').hidden = false; return; }
    var frame = document.createElement('iframe');
    frame.id = 'sco';
    frame.title = config.scos[i].title;
    frame.src = contentUrl(i);
    stage.appendChild(frame);
  }
  function go(i) {
    if (busy || i < 0 || i >= config.scos.length || i === current) return;
    busy = true;
    leave();
    fetch(base + '/scos/' + i, { credentials: 'same-origin', headers: { accept: 'application/json' } })
      .then(function (res) { if (!res.ok) throw new Error('HTTP ' + res.status); return res.json(); })
      .then(function (state) {
        config.scos = state.scos;
        start(i, state.cmi);
        if (inWindow) openWindow();
      })
      .catch(function () { $('title').textContent = 'This part cannot be opened: open the course again.'; })
      .then(function () { busy = false; });
  }
  $('prev').addEventListener('click', function () { go(current - 1); });
  $('next').addEventListener('click', function () { go(current + 1); });
  $('open').addEventListener('click', function () { openWindow(); });
  $('exit').addEventListener('click', function () { leave(); window.close(); });
  window.addEventListener('pagehide', function () { leave(); });
  start(config.sco, config.resume);
})();
`;

/** The player page: its own scripts only; it frames the package, from this origin. */
const PLAYER_CSP = "default-src 'none'; script-src 'self'; style-src 'unsafe-inline'; frame-src 'self'; connect-src 'self'; img-src 'self' data:; frame-ancestors 'self'; base-uri 'none'; form-action 'none'";
/**
 * A package's files: SCOs use inline scripts and styles, so those are allowed, but nothing leaves this
 * origin, and they run without the learner's token (the player holds only its registration's credential).
 */
const CONTENT_CSP = "default-src 'self' 'unsafe-inline' 'unsafe-eval' data: blob:; frame-ancestors 'self'; base-uri 'self'; form-action 'none'";

/** A commit's CMI data: JSON, or the same JSON as text (the runtime's terminate commit goes by `sendBeacon`). */
function commitBody(body: unknown): Record<string, unknown> {
  let value = body;
  if (body instanceof TextBody) {
    try {
      value = JSON.parse(body.text);
    } catch {
      value = undefined;
    }
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) throw new ProblemError(400, 'COMMIT_INVALID', 'A commit is the CMI data as a JSON object.');
  return value as Record<string, unknown>;
}

/** A SCO's place in the table of contents, from the path; anything else names no SCO. */
function scoIndex(request: FastifyRequest): number {
  const raw = (request.params as Record<string, string>).index ?? '';
  if (!/^\d{1,5}$/.test(raw)) throw new ProblemError(404, 'SCORM_SCO_NOT_FOUND', 'The package has no such SCO.');
  return Number(raw);
}

const escapeJson = (value: unknown) => JSON.stringify(value).replace(/</g, '\\u003c');
const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/**
 * The SCORM player (docs/scorm.md). `/scorm/launch/<token>` opens an attempt with the short-lived URL
 * the learner got from `launch_url`; the page it answers holds a session credential bound to that one
 * registration, which is all the package's files and the runtime's commits are served with. The
 * learner's API token never reaches these pages, and nothing here answers any other request.
 */
@Controller('scorm')
export class ScormPlayerController {
  private readonly files: FileStore;

  constructor(
    @Inject(GATEWAY_DEPS) private readonly deps: GatewayDeps,
    private readonly services: ServiceClient,
  ) {
    this.files = createFileStore(deps.runtime.config, deps.runtime.bus, { writer: false });
  }

  @Get('runtime.js')
  runtime(@Res() reply: FastifyReply): FastifyReply {
    return reply.header('content-type', 'text/javascript; charset=utf-8').header('cache-control', 'public, max-age=3600').send(RUNTIME_JS);
  }

  @Get('player.js')
  player(@Res() reply: FastifyReply): FastifyReply {
    return reply.header('content-type', 'text/javascript; charset=utf-8').header('cache-control', 'public, max-age=3600').send(PLAYER_JS);
  }

  @Get('launch/:token')
  async launch(@Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<FastifyReply> {
    const claims = this.claims(request, 'launch');
    const state = await this.call<PlayerState>(request, claims, SCORM_SUBJECTS.playerState, {});
    const session = signPlayerToken(this.deps.runtime.config.fileUrlSigningKey, { ...claims, kind: 'session' });
    const sessionUrl = `/scorm/s/${session}`;
    const config = {
      version: state.version,
      sessionUrl,
      scos: state.scos,
      sco: state.sco,
      commitUrl: `${sessionUrl}/scos/${state.sco}/commit`,
      contentUrl: `${sessionUrl}/content/${state.scos[state.sco].href.replace(/^\/+/, '')}`,
      resume: state.cmi,
      learner: state.learner,
      scoLaunchType: state.sco_launch_type,
      playerLaunchType: state.player_launch_type,
    };
    // The table of contents shows for a package of several SCOs, or when SCOs open in windows of their own.
    const toc = state.scos.length > 1 || state.sco_launch_type === 'new_window';
    const html = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="referrer" content="no-referrer"><title>${escapeHtml(state.learner.name || 'Course')}</title>
<style>html,body{margin:0;height:100%;font-family:system-ui,sans-serif}body{display:flex;flex-direction:column}
nav{display:flex;gap:.5em;align-items:center;padding:.25em .5em;border-bottom:1px solid #ccc;flex-wrap:wrap}nav[hidden]{display:none}
#toc{display:flex;gap:.25em;list-style:none;margin:0;padding:0;flex-wrap:wrap}#toc [aria-current]{font-weight:bold}
#stage{flex:1;display:flex;flex-direction:column}iframe{border:0;width:100%;flex:1;display:block}</style>
</head><body><nav id="player-nav"${toc ? '' : ' hidden'} aria-label="Course contents"><button type="button" id="prev">Previous</button><ol id="toc"></ol><button type="button" id="next">Next</button>
<strong id="title"></strong><button type="button" id="open" hidden>Open</button><button type="button" id="exit"${state.player_launch_type === 'new_window' ? '' : ' hidden'}>Exit</button></nav>
<main id="stage"></main>
<script type="application/json" id="scorm-player">${escapeJson(config)}</script>
<script src="/scorm/runtime.js"></script><script src="/scorm/player.js"></script>
</body></html>`;
    return reply
      .header('content-type', 'text/html; charset=utf-8')
      .header('cache-control', 'private, no-store')
      .header('content-security-policy', PLAYER_CSP)
      .header('x-frame-options', 'SAMEORIGIN')
      .send(html);
  }

  /** One SCO's saved data and the table of contents, for the player moving to that SCO. */
  @Get('s/:token/scos/:index')
  async sco(@Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<FastifyReply> {
    const claims = this.claims(request, 'session');
    const state = await this.call<PlayerState>(request, claims, SCORM_SUBJECTS.playerState, { sco: scoIndex(request) });
    return reply.header('cache-control', 'private, no-store').send({ sco: state.sco, scos: state.scos, cmi: state.cmi });
  }

  @Get('s/:token/content/*')
  async content(@Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<FastifyReply> {
    const claims = this.claims(request, 'session');
    // The router hands the path decoded once, its query left out, as every parameter: decoding it again read
    // a file named `100%.html` (`100%25.html` in the URL) as something else, and `what%3F.html` as `what`.
    const path = (request.params as Record<string, string>)['*'] ?? '';
    // The service answers only paths the package lists: nothing outside it can be named.
    const file = await this.call<PlayerFile>(request, claims, SCORM_SUBJECTS.playerFile, { path });
    const opened = await this.files.open(file.file_key);
    if (!opened) throw new ProblemError(404, 'SCORM_FILE_NOT_FOUND', 'The package has no such file.');
    reply
      .header('content-type', file.content_type)
      .header('content-length', String(opened.size))
      .header('cache-control', 'private, max-age=300')
      .header('content-security-policy', CONTENT_CSP)
      .header('x-frame-options', 'SAMEORIGIN')
      .header('cross-origin-resource-policy', 'same-origin');
    return sendStream(request, reply, opened.stream);
  }

  /** A commit of the launch SCO (the first of the table of contents). */
  @Post('s/:token/commit')
  async commit(@Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<FastifyReply> {
    return this.commitSco(request, reply, 0);
  }

  /** A commit of one SCO: its CMI data, kept apart from the other SCOs' (docs/scorm.md). */
  @Post('s/:token/scos/:index/commit')
  async scoCommit(@Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<FastifyReply> {
    return this.commitSco(request, reply, scoIndex(request));
  }

  private async commitSco(request: FastifyRequest, reply: FastifyReply, sco: number): Promise<FastifyReply> {
    const claims = this.claims(request, 'session');
    const cmi = commitBody(request.body);
    const answer = await this.call<object>(request, claims, SCORM_SUBJECTS.playerCommit, { sco, cmi });
    return reply.code(200).header('cache-control', 'no-store').send(answer);
  }

  private claims(request: FastifyRequest, kind: PlayerClaims['kind']): PlayerClaims {
    const check = playerTokenCheckOf(request, this.deps.runtime.config.fileUrlSigningKey, kind);
    if (!check.ok && check.reason === 'expired') {
      throw new ProblemError(403, 'PLAYER_LINK_EXPIRED', kind === 'launch' ? 'This course link has expired: open the course again.' : 'This session has expired: open the course again.');
    }
    if (!check.ok) throw new ProblemError(403, 'PLAYER_LINK_INVALID', 'This course link is not valid.');
    return check.claims;
  }

  /** A call to catalog as the learner the credential names, about its registration only. */
  private async call<T>(request: FastifyRequest, claims: PlayerClaims, subject: string, body: object): Promise<T> {
    const ctx: RequestContext = { requestId: request.id, accountId: claims.accountId, subAccountId: null, userId: claims.userId, roles: ['learner'] };
    const answer: RpcReply = await this.services.request(subject, { ctx, params: {}, query: {}, body: { registration_id: claims.registrationId, ...body } });
    if (!answer.ok) throw new RpcReplyError(answer.error);
    return answer.body as T;
  }
}
