import { createHash, randomBytes } from 'node:crypto';

/** Tokens are opaque random strings; only their SHA-256 is stored. */
export const hashToken = (token: string): string => createHash('sha256').update(token).digest('hex');

export const generateToken = (): string => `lms_${randomBytes(32).toString('base64url')}`;
