import { randomBytes } from 'node:crypto';

/** Tokens are opaque random strings; identity stores only their `tokenHash` (@lms/contracts). */
export const generateToken = (): string => `lms_${randomBytes(32).toString('base64url')}`;
