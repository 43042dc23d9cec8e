import { createSecretKey } from 'node:crypto';
import { signFileUrl, signPlayerToken } from '@lms/platform';
import { linkCredentialOf } from './link-credential.js';

const key = createSecretKey(Buffer.alloc(32, 7));
const other = createSecretKey(Buffer.alloc(32, 8));
const claims = { accountId: 1, userId: 2, registrationId: 3, packageId: 'p' };

/** A request as Fastify has it once it matched `route`, with the parameters it decoded. */
const at = (url: string, route?: string, params: Record<string, string> = {}) => ({ url, routeOptions: { url: route }, params });

describe('linkCredentialOf', () => {
  it('names a file URL that verifies by its file, and refuses a tampered, foreign or expired one', () => {
    const url = signFileUrl(key, 'jobs/1/dump.zip', 'dump.zip');
    expect(linkCredentialOf(at(url, '/files/*'), key)).toEqual({ kind: 'link', key: 'file:jobs/1/dump.zip' });
    // Another URL of the same file is the same grant: minting links does not reset its quota.
    expect(linkCredentialOf(at(signFileUrl(key, 'jobs/1/dump.zip', 'other.zip'), '/files/*'), key)).toEqual({ kind: 'link', key: 'file:jobs/1/dump.zip' });
    expect(linkCredentialOf(at(url.replace('dump.zip?', 'other.zip?'), '/files/*'), key)).toEqual({ kind: 'invalid' });
    expect(linkCredentialOf(at(url, '/files/*'), other)).toEqual({ kind: 'invalid' });
    expect(linkCredentialOf(at(signFileUrl(key, 'jobs/1/dump.zip', 'dump.zip', Date.now() - 3_600_000), '/files/*'), key)).toEqual({ kind: 'invalid' });
    expect(linkCredentialOf(at('/files/jobs/1/dump.zip', '/files/*'), key)).toEqual({ kind: 'invalid' });
  });

  it("names a player's launch and session tokens by their registration, each only where its kind is served", () => {
    const launch = signPlayerToken(key, { kind: 'launch', ...claims });
    const session = signPlayerToken(key, { kind: 'session', ...claims });
    const registration = { kind: 'link', key: 'scorm:1:3' };
    expect(linkCredentialOf(at(`/scorm/launch/${launch}?x=1`, '/scorm/launch/:token', { token: launch }), key)).toEqual(registration);
    expect(linkCredentialOf(at('/scorm/s/x/content/index.html', '/scorm/s/:token/content/*', { token: session, '*': 'index.html' }), key)).toEqual(registration);
    expect(linkCredentialOf(at('/scorm/s/x/scos/0/commit', '/scorm/s/:token/scos/:index/commit', { token: session, index: '0' }), key)).toEqual(registration);
    expect(linkCredentialOf(at('/scorm/s/x/scos/0', '/scorm/s/:token/scos/:index', { token: launch }), key)).toEqual({ kind: 'invalid' });
    expect(linkCredentialOf(at('/scorm/launch/x', '/scorm/launch/:token', { token: session }), key)).toEqual({ kind: 'invalid' });
  });

  it('judges the route matched, not the URL as sent: an encoded path is the route it reaches', () => {
    const launch = signPlayerToken(key, { kind: 'launch', ...claims });
    expect(linkCredentialOf(at(`/%73corm/launch/${launch}`, '/scorm/launch/:token', { token: launch }), key)).toEqual({ kind: 'link', key: 'scorm:1:3' });
  });

  it('leaves routes without a link alone', () => {
    for (const route of ['/scorm/player.js', '/scorm/runtime.js', '/healthz', '/api/author/course_templates', undefined]) expect(linkCredentialOf(at('/x', route), key)).toBeUndefined();
  });
});
