import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

const VERSION = 'v1';
const IV_BYTES = 12;

/**
 * AES-256-GCM for the import profile's CSV password. The key is derived from a secret with HKDF, and the
 * account id is bound as associated data, so a ciphertext copied to another account's row fails to open.
 * Stored form: `v1:<iv>:<tag>:<ciphertext>`, each part base64url.
 */
export class ImportProfileCipher {
  private readonly key: Buffer;

  constructor(secret: string) {
    this.key = Buffer.from(hkdfSync('sha256', secret, 'lms.identity.import_profile', 'csv_password', 32));
  }

  encrypt(plain: string, accountId: number): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    cipher.setAAD(this.aad(accountId));
    const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return [VERSION, iv, cipher.getAuthTag(), body].map((part) => (typeof part === 'string' ? part : part.toString('base64url'))).join(':');
  }

  /** Throws when the text was not made by this key for this account, or was altered. */
  decrypt(stored: string, accountId: number): string {
    const [version, iv, tag, body, ...rest] = stored.split(':');
    if (version !== VERSION || iv === undefined || tag === undefined || body === undefined || rest.length > 0) throw new Error('not an import profile ciphertext');
    const decipher = createDecipheriv('aes-256-gcm', this.key, Buffer.from(iv, 'base64url'));
    decipher.setAAD(this.aad(accountId));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8');
  }

  private aad(accountId: number): Buffer {
    return Buffer.from(`account:${accountId}`, 'utf8');
  }
}
