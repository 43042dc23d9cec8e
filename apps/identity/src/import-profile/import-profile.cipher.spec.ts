import { ImportProfileCipher } from './import-profile.cipher.js';
import { DEV_IMPORT_PROFILE_KEY, importProfileKeyConfig } from './import-profile.config.js';

describe('ImportProfileCipher', () => {
  const cipher = new ImportProfileCipher('a-secret-of-at-least-thirty-two-characters');

  it('round-trips, and never stores the clear text', () => {
    const stored = cipher.encrypt('s3cret pässword', 4);
    expect(stored).toMatch(/^v1:[\w-]+:[\w-]+:[\w-]+$/);
    expect(stored).not.toContain('s3cret');
    expect(cipher.decrypt(stored, 4)).toBe('s3cret pässword');
  });

  it('uses a fresh IV each time', () => {
    expect(cipher.encrypt('same', 1)).not.toBe(cipher.encrypt('same', 1));
  });

  it("refuses another account's ciphertext, another key's, and an altered one", () => {
    const stored = cipher.encrypt('pw', 1);
    expect(() => cipher.decrypt(stored, 2)).toThrow();
    expect(() => new ImportProfileCipher('another-secret-of-thirty-two-characters!').decrypt(stored, 1)).toThrow();
    const [v, iv, tag, body] = stored.split(':');
    const flipped = Buffer.from(body, 'base64url');
    flipped[0] ^= 1;
    expect(() => cipher.decrypt([v, iv, tag, flipped.toString('base64url')].join(':'), 1)).toThrow();
    expect(() => cipher.decrypt('plain text', 1)).toThrow();
  });
});

describe('importProfileKeyConfig', () => {
  it('falls back to the development key, flagged as such, when IMPORT_PROFILE_KEY is unset or empty', () => {
    expect(importProfileKeyConfig({})).toEqual({ secret: DEV_IMPORT_PROFILE_KEY, isDevDefault: true });
    expect(importProfileKeyConfig({ IMPORT_PROFILE_KEY: '' })).toEqual({ secret: DEV_IMPORT_PROFILE_KEY, isDevDefault: true });
  });

  it('uses the configured secret and refuses a short one', () => {
    const secret = 'x'.repeat(32);
    expect(importProfileKeyConfig({ IMPORT_PROFILE_KEY: secret })).toEqual({ secret, isDevDefault: false });
    expect(() => importProfileKeyConfig({ IMPORT_PROFILE_KEY: 'short' })).toThrow(/at least 32/);
  });
});
