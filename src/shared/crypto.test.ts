import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Encrypter, EncryptionKeyError, loadOrCreateKeyFile, parseEncryptionKey } from './crypto.ts';

const HEX_KEY = 'a'.repeat(64);

describe('parseEncryptionKey', () => {
  it.each([
    ['64 hex characters', HEX_KEY],
    ['base64 of 32 bytes', Buffer.alloc(32, 7).toString('base64')],
  ])('when given %s, then it is a 32-byte key', (_case, value) => {
    expect(parseEncryptionKey(value)).toHaveLength(32);
  });

  it.each([
    ['short hex', 'abcd'],
    ['31 bytes of base64', Buffer.alloc(31).toString('base64')],
    ['not base64', '!'.repeat(44)],
    ['empty', ''],
  ])('when given %s, then it is refused', (_case, value) => {
    expect(() => parseEncryptionKey(value)).toThrow(EncryptionKeyError);
  });
});

describe('Encrypter', () => {
  const encrypter = new Encrypter(parseEncryptionKey(HEX_KEY));

  it('when a value is encrypted, then it decrypts back and never contains the plaintext', () => {
    const stored = encrypter.encrypt('123456789');
    expect(stored).not.toContain('123456789');
    expect(stored.startsWith('v1.')).toBe(true);
    expect(encrypter.decrypt(stored)).toBe('123456789');
  });

  it('when the same value is encrypted twice, then the ciphertexts differ (fresh nonce)', () => {
    expect(encrypter.encrypt('123456789')).not.toBe(encrypter.encrypt('123456789'));
  });

  it('when the ciphertext is tampered with or the key is wrong, then decryption fails', () => {
    const stored = encrypter.encrypt('123456789');
    const bytes = Buffer.from(stored.slice(3), 'base64');
    bytes[bytes.length - 1] = bytes[bytes.length - 1]! ^ 1;
    expect(() => encrypter.decrypt(`v1.${bytes.toString('base64')}`)).toThrow();
    expect(() => new Encrypter(parseEncryptionKey('b'.repeat(64))).decrypt(stored)).toThrow();
  });
});

describe('loadOrCreateKeyFile', () => {
  it('when the file is missing, then it is created with mode 0600 and reused afterwards', () => {
    const directory = mkdtempSync(join(tmpdir(), 'benefits-key-'));
    try {
      const path = join(directory, 'encryption.key');
      const first = loadOrCreateKeyFile(path);
      expect(statSync(path).mode & 0o777).toBe(0o600);
      expect(loadOrCreateKeyFile(path).equals(first)).toBe(true);
      expect(readFileSync(path, 'utf8').trim()).toMatch(/^[0-9a-f]{64}$/);
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  });
});
