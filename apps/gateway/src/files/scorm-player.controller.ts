import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { Controller, Get, Inject, Post, Req, Res } from '@nestjs/common';
import { type PlayerFile, type PlayerState, type RequestContext, type RpcReply, SCORM_SUBJECTS } from '@lms/contracts';
import { createFileStore, type FileStore, type PlayerClaims, signPlayerToken, verifyPlayerToken } from '@lms/platform';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { GATEWAY_DEPS, type GatewayDeps } from '../gateway-deps.js';
import { ProblemError, RpcReplyError } from '../http/problem.js';
import { ServiceClient } from '../http/service-client.js';
import { TextBody } from '../http/uploads.js';

/** scorm-again's browser build (window.Scorm12API, window.Scorm2004API), served from this origin. */
const RUNTIME_JS = readFileSync(join(dirname(createRequire(import.meta.url).resolve('scorm-again')), 'scorm-again.min.js'));

/** Starts the runtime from the page's JSON (no inline script), then loads the SCO in the frame. */
const PLAYER_JS = `(function () {
  var config = JSON.parse(document.getElementById('scorm-player').textContent);
  var settings = { lmsCommitUrl: config.commitUrl, autocommit: true, autocommitSeconds: 5, logLevel: 5 };
  var scorm12 = config.version === 'scorm_1_2';
  var api = scorm12 ? new window.Scorm12API(settings) : new window.Scorm2004API(settings);
  if (config.resume) api.loadFromJSON(config.resume, '');
  if (scorm12) { api.cmi.core.student_id = config.learner.id; api.cmi.core.student_name = config.learner.name; window.API = api; }
  else { api.cmi.learner_id = config.learner.id; api.cmi.learner_name = config.learner.name; window.API_1484_11 = api; }
  document.getElementById('sco').src = config.contentUrl;
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
    const config = {
      version: state.version,
      commitUrl: `/scorm/s/${session}/commit`,
      contentUrl: `/scorm/s/${session}/content/${state.launch_href.replace(/^\/+/, '')}`,
      resume: state.cmi,
      learner: state.learner,
    };
    const html = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="referrer" content="no-referrer"><title>${escapeHtml(state.learner.name || 'Course')}</title>
<style>html,body{margin:0;height:100%}iframe{border:0;width:100%;height:100%;display:block}</style>
</head><body><iframe id="sco" title="Course"></iframe>
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

  @Get('s/:token/content/*')
  async content(@Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<FastifyReply> {
    const claims = this.claims(request, 'session');
    const raw = (request.params as Record<string, string>)['*'] ?? '';
    let path: string;
    try {
      path = decodeURIComponent(raw.split('?')[0]);
    } catch {
      throw new ProblemError(404, 'SCORM_FILE_NOT_FOUND', 'The package has no such file.');
    }
    // The service answers only paths the package lists: nothing outside it can be named.
    const file = await this.call<PlayerFile>(request, claims, SCORM_SUBJECTS.playerFile, { path });
    const opened = await this.files.open(file.file_key);
    if (!opened) throw new ProblemError(404, 'SCORM_FILE_NOT_FOUND', 'The package has no such file.');
    return reply
      .header('content-type', file.content_type)
      .header('content-length', String(opened.size))
      .header('cache-control', 'private, max-age=300')
      .header('content-security-policy', CONTENT_CSP)
      .header('x-frame-options', 'SAMEORIGIN')
      .header('cross-origin-resource-policy', 'same-origin')
      .send(opened.stream);
  }

  @Post('s/:token/commit')
  async commit(@Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<FastifyReply> {
    const claims = this.claims(request, 'session');
    const cmi = commitBody(request.body);
    const answer = await this.call<object>(request, claims, SCORM_SUBJECTS.playerCommit, { cmi });
    return reply.code(200).header('cache-control', 'no-store').send(answer);
  }

  private claims(request: FastifyRequest, kind: PlayerClaims['kind']): PlayerClaims {
    const token = (request.params as Record<string, string>).token ?? '';
    const check = verifyPlayerToken(this.deps.runtime.config.fileUrlSigningKey, token, kind);
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
