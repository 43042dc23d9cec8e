import { createSecretKey } from 'node:crypto';
import { tokenHash } from '@lms/contracts';
import { signFileUrl, signPlayerToken } from '@lms/platform';
import { linkCredentialOf } from './link-credential.js';

const key = createSecretKey(Buffer.alloc(32, 7));
const other = createSecretKey(Buffer.alloc(32, 8));
const claims = { accountId: 1, userId: 2, registrationId: 3, packageId: 'p' };

describe('linkCredentialOf', () => {
  it('names a file URL that verifies by its signature, and refuses a tampered, foreign or expired one', () => {
    const url = signFileUrl(key, 'jobs/1/dump.zip', 'dump.zip');
    const signature = new URL(url, 'http://x').searchParams.get('signature')!;
    expect(linkCredentialOf(url, key)).toEqual({ kind: 'link', hash: tokenHash(signature) });
    expect(linkCredentialOf(url.replace('dump.zip?', 'other.zip?'), key)).toEqual({ kind: 'invalid' });
    expect(linkCredentialOf(url, other)).toEqual({ kind: 'invalid' });
    expect(linkCredentialOf(signFileUrl(key, 'jobs/1/dump.zip', 'dump.zip', Date.now() - 3_600_000), key)).toEqual({ kind: 'invalid' });
    expect(linkCredentialOf('/files/jobs/1/dump.zip', key)).toEqual({ kind: 'invalid' });
  });

  it("names a player's launch and session tokens, each only where its kind is served", () => {
    const launch = signPlayerToken(key, { kind: 'launch', ...claims });
    const session = signPlayerToken(key, { kind: 'session', ...claims });
    expect(linkCredentialOf(`/scorm/launch/${launch}`, key)).toEqual({ kind: 'link', hash: tokenHash(launch) });
    expect(linkCredentialOf(`/scorm/launch/${launch}?x=1`, key)).toEqual({ kind: 'link', hash: tokenHash(launch) });
    expect(linkCredentialOf(`/scorm/s/${session}/content/index.html?y=2`, key)).toEqual({ kind: 'link', hash: tokenHash(session) });
    expect(linkCredentialOf(`/scorm/s/${launch}/scos/0`, key)).toEqual({ kind: 'invalid' });
    expect(linkCredentialOf(`/scorm/launch/${session}`, key)).toEqual({ kind: 'invalid' });
    expect(linkCredentialOf('/scorm/s/', key)).toEqual({ kind: 'invalid' });
  });

  it('leaves paths without a link alone', () => {
    for (const url of ['/scorm/player.js', '/scorm/runtime.js', '/healthz', '/api/author/courses', '/filesx']) expect(linkCredentialOf(url, key)).toBeUndefined();
  });
});
