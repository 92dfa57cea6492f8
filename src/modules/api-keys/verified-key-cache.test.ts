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
    const cache = new VerifiedKeyCache(async () => version, { recheckAfterMs: 0 });
    await cache.get('hash');
    cache.set('hash', caller);
    version = 2;
    expect(await cache.get('hash')).toBeUndefined();
    expect(await cache.get('hash')).toBeUndefined();
  });

  it('when the version was read less than recheckAfterMs ago, then it is not read again; after that it is', async () => {
    let version = 1;
    let reads = 0;
    let now = 1000;
    const cache = new VerifiedKeyCache(
      async () => {
        reads += 1;
        return version;
      },
      { recheckAfterMs: 1, now: () => now },
    );
    await cache.get('hash');
    cache.set('hash', caller);
    version = 2;
    now += 0.5;
    expect(await cache.get('hash')).toEqual(caller);
    expect(reads).toBe(1);
    now += 0.5;
    expect(await cache.get('hash')).toBeUndefined();
    expect(reads).toBe(2);
  });

  it('when cleared (a revoke in this process), then the key is looked up again', async () => {
    const cache = new VerifiedKeyCache(async () => 1);
    await cache.get('hash');
    cache.set('hash', caller);
    cache.clear();
    expect(await cache.get('hash')).toBeUndefined();
  });
});
