import { createCipheriv, createDecipheriv, createSecretKey, randomBytes, type KeyObject } from 'node:crypto';
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';

/**
 * Personal data at rest (SSNs) is encrypted with AES-256-GCM: a fresh 96-bit nonce per value, the 128-bit
 * authentication tag kept beside the ciphertext, so a tampered value fails to decrypt instead of reading
 * wrong. Stored as 'v1.' + base64(nonce | tag | ciphertext); the version leaves room to rotate keys.
 */
const VERSION = 'v1';
const NONCE_BYTES = 12;
const TAG_BYTES = 16;

export class EncryptionKeyError extends Error {
  override name = 'EncryptionKeyError';
}

/** A 32-byte key from 64 hex characters or base64 (README.md "Configuration", BENEFITS_ENCRYPTION_KEY). */
export function parseEncryptionKey(value: string): Buffer {
  const text = value.trim();
  const key = /^[0-9a-fA-F]{64}$/.test(text) ? Buffer.from(text, 'hex') : Buffer.from(text, 'base64');
  if (key.length !== 32 || (!/^[0-9a-fA-F]{64}$/.test(text) && key.toString('base64').replace(/=+$/, '') !== text.replace(/=+$/, ''))) {
    throw new EncryptionKeyError('BENEFITS_ENCRYPTION_KEY must be 32 bytes: 64 hex characters or base64 (e.g. openssl rand -hex 32)');
  }
  return key;
}

/** Reads the key file, or creates it (mode 0600) with a new random key. For the embedded database only. */
export function loadOrCreateKeyFile(path: string): Buffer {
  if (existsSync(path)) return parseEncryptionKey(readFileSync(path, 'utf8'));
  writeFileSync(path, `${randomBytes(32).toString('hex')}\n`, { mode: 0o600, flag: 'wx' });
  chmodSync(path, 0o600);
  return parseEncryptionKey(readFileSync(path, 'utf8'));
}

export class Encrypter {
  // A KeyObject made once: given a Buffer, every cipher would make (and check) a new one, which costs more
  // than decrypting an SSN (measured building 834 files of 50,000 members).
  readonly #key: KeyObject;
  constructor(key: Buffer) {
    if (key.length !== 32) throw new EncryptionKeyError('the encryption key must be 32 bytes');
    this.#key = createSecretKey(key);
  }

  encrypt(plaintext: string): string {
    const nonce = randomBytes(NONCE_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.#key, nonce);
    const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return `${VERSION}.${Buffer.concat([nonce, cipher.getAuthTag(), ciphertext]).toString('base64')}`;
  }

  decrypt(stored: string): string {
    const [version, data] = stored.split('.', 2);
    if (version !== VERSION || !data) throw new EncryptionKeyError('unknown encrypted value format');
    const bytes = Buffer.from(data, 'base64');
    const decipher = createDecipheriv('aes-256-gcm', this.#key, bytes.subarray(0, NONCE_BYTES));
    decipher.setAuthTag(bytes.subarray(NONCE_BYTES, NONCE_BYTES + TAG_BYTES));
    return Buffer.concat([decipher.update(bytes.subarray(NONCE_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8');
  }
}
