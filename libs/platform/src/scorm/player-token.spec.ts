import { createSecretKey } from 'node:crypto';
import { signPlayerToken, verifyPlayerToken } from './player-token.js';

const key = createSecretKey(Buffer.alloc(32, 7));
const claims = { kind: 'launch' as const, accountId: 1, userId: 2, registrationId: 3, packageId: 'p' };

describe('SCORM player tokens', () => {
  it('verify for their kind until they expire', () => {
    const now = Date.now();
    const token = signPlayerToken(key, claims, now);
    expect(verifyPlayerToken(key, token, 'launch', now)).toEqual({ ok: true, claims });
    expect(verifyPlayerToken(key, token, 'session', now)).toEqual({ ok: false, reason: 'invalid' });
    expect(verifyPlayerToken(key, token, 'launch', now + 301_000)).toEqual({ ok: false, reason: 'expired' });
  });

  it('refuse tampering, another key and garbage', () => {
    const token = signPlayerToken(key, claims);
    const [body, mac] = token.split('.');
    const forged = Buffer.from(JSON.stringify({ ...claims, userId: 99, exp: 9_999_999_999 })).toString('base64url');
    for (const bad of [`${forged}.${mac}`, `${body}.${mac.slice(1)}x`, 'x', '', `${body}.${mac}.x`, `${body}`]) {
      expect(verifyPlayerToken(key, bad, 'launch')).toEqual({ ok: false, reason: 'invalid' });
    }
    expect(verifyPlayerToken(createSecretKey(Buffer.alloc(32, 8)), token, 'launch')).toEqual({ ok: false, reason: 'invalid' });
  });
});
