import { describe, expect, it } from 'vitest';
import { VerifiedKeyCache } from './verified-key-cache.ts';

const caller = { apiKeyId: 'key_1', providerId: 'prov_1', role: 'admin' as const, employerId: null };

describe('VerifiedKeyCache', () => {
  it('when the database version is unchanged, then a verified key is served from memory', async () => {
    const cache = new VerifiedKeyCache(async () => 7);
    expect(await cache.get('hash')).toBeUndefined();
    cache.set('hash', caller);
    expect(await cache.get('hash')).toEqual(caller);
  });

  it('when another connection committed (the version moved), then everything cached is forgotten', async () => {
    let version = 1;
    const cache = new VerifiedKeyCache(async () => version);
    await cache.get('hash');
    cache.set('hash', caller);
    version = 2;
    expect(await cache.get('hash')).toBeUndefined();
    expect(await cache.get('hash')).toBeUndefined();
  });

  it('when cleared (a revoke in this process), then the key is looked up again', async () => {
    const cache = new VerifiedKeyCache(async () => 1);
    await cache.get('hash');
    cache.set('hash', caller);
    cache.clear();
    expect(await cache.get('hash')).toBeUndefined();
  });
});
