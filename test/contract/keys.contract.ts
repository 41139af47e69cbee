import assert from 'node:assert/strict';
import { describe, it, type TestContext } from 'node:test';
import { hashKey, keyPrefix, newKeyRecord } from '../../src/access/keys.ts';
import type { KeyRecord, KeyStore } from '../../src/store/keys.ts';
import { nth } from '../helpers/nth.ts';

export interface KeyStoreFixture {
  keys: KeyStore;
  /** The same keys opened again; absent for a store that lives in the process. */
  reopen?: () => Promise<KeyStore>;
  cleanup(): Promise<void>;
}

const NO_REOPEN = 'this key store lives in the process: there is nothing to reopen';

// Keys 2 and 3 share a prefix (the first 10 characters), as keys can; key 1 has its own.
const KEY_1 = `ob_1111111${'a'.repeat(33)}`;
const KEY_2 = `ob_2222222${'a'.repeat(33)}`;
const KEY_3 = `ob_2222222${'b'.repeat(33)}`;
const REVOKED_AT = '2026-11-23T20:00:00.000Z';

function key(k: string, createdAt: string): KeyRecord {
  return newKeyRecord(k, 'starter', { createdAt: new Date(createdAt), label: `key ${k.slice(3, 4)}` });
}

/** Every optional field set, so each column's round trip is checked. */
function fullKey(k: string, createdAt: string): KeyRecord {
  return newKeyRecord(k, 'enterprise', {
    label: 'everything set',
    createdAt: new Date(createdAt),
    billing: 'weekly',
    budgetCapUsd: 12.5,
    v1: true,
    v2: false,
    credits: 250_000,
    creditsExpiry: '2027-01-01T00:00:00.000Z',
    expiresAt: '2027-06-01T00:00:00.000Z',
    custom: JSON.stringify({ requests_per_second: 50 }),
  });
}

export function keyStoreContract(name: string, make: () => Promise<KeyStoreFixture>): void {
  describe(`KeyStore contract: ${name}`, () => {
    async function fresh(t: TestContext): Promise<KeyStoreFixture> {
      const f = await make();
      t.after(() => f.cleanup());
      return f;
    }

    /** Keys 1 to 3, inserted out of creation order. */
    async function withKeys(t: TestContext): Promise<KeyStore> {
      const { keys } = await fresh(t);
      await keys.insert(key(KEY_2, '2026-11-02T00:00:00.000Z'));
      await keys.insert(fullKey(KEY_1, '2026-11-03T00:00:00.000Z'));
      await keys.insert(key(KEY_3, '2026-11-01T00:00:00.000Z'));
      return keys;
    }

    it('an empty store lists no key and counts 0', async (t) => {
      const { keys } = await fresh(t);
      assert.deepEqual(await keys.list(), []);
      assert.equal(await keys.count(), 0);
    });

    it('finds a key by its hash as it was inserted, every field kept', async (t) => {
      const keys = await withKeys(t);
      assert.deepEqual(await keys.findByHash(hashKey(KEY_1)), fullKey(KEY_1, '2026-11-03T00:00:00.000Z'));
      assert.deepEqual(await keys.findByHash(hashKey(KEY_2)), key(KEY_2, '2026-11-02T00:00:00.000Z'));
    });

    it('finds nothing for an unknown hash, nor for a prefix or the key itself', async (t) => {
      const keys = await withKeys(t);
      assert.equal(await keys.findByHash(hashKey('ob_unknown')), undefined);
      assert.equal(await keys.findByHash(keyPrefix(KEY_1)), undefined);
      assert.equal(await keys.findByHash(KEY_1), undefined);
    });

    it('refuses a second key with the same hash and keeps the first', async (t) => {
      const keys = await withKeys(t);
      await assert.rejects(keys.insert(key(KEY_1, '2026-11-04T00:00:00.000Z')));
      assert.deepEqual(await keys.findByHash(hashKey(KEY_1)), fullKey(KEY_1, '2026-11-03T00:00:00.000Z'));
      assert.equal(await keys.count(), 3);
    });

    it('lists every key, oldest first', async (t) => {
      const keys = await withKeys(t);
      assert.deepEqual(
        (await keys.list()).map((r) => r.key_hash),
        [KEY_3, KEY_2, KEY_1].map(hashKey),
      );
    });

    it('a key read is the caller’s: changing it changes nothing kept', async (t) => {
      const keys = await withKeys(t);
      const found = (await keys.findByHash(hashKey(KEY_2)))!;
      found.tier = 'max';
      nth(await keys.list(), 0).label = 'changed';
      assert.deepEqual(await keys.findByHash(hashKey(KEY_2)), key(KEY_2, '2026-11-02T00:00:00.000Z'));
      assert.equal(nth(await keys.list(), 0).label, key(KEY_3, '2026-11-01T00:00:00.000Z').label);
    });

    it('revokes one active key by hash, once', async (t) => {
      const keys = await withKeys(t);
      assert.equal(await keys.revoke({ hash: hashKey(KEY_2) }, REVOKED_AT), 1);
      assert.equal((await keys.findByHash(hashKey(KEY_2)))!.revoked_at, REVOKED_AT);
      // Key 3 shares key 2's prefix: revoking by hash touches only the key named.
      assert.equal((await keys.findByHash(hashKey(KEY_3)))!.revoked_at, null);
      assert.equal(await keys.revoke({ hash: hashKey(KEY_2) }, '2026-11-24T00:00:00.000Z'), 0);
      assert.equal((await keys.findByHash(hashKey(KEY_2)))!.revoked_at, REVOKED_AT);
    });

    it('revokes every active key of a prefix and counts only those', async (t) => {
      const keys = await withKeys(t);
      await keys.revoke({ hash: hashKey(KEY_3) }, REVOKED_AT);
      const later = '2026-11-24T00:00:00.000Z';
      assert.equal(await keys.revoke({ prefix: keyPrefix(KEY_2) }, later), 1);
      assert.equal((await keys.findByHash(hashKey(KEY_2)))!.revoked_at, later);
      assert.equal((await keys.findByHash(hashKey(KEY_3)))!.revoked_at, REVOKED_AT);
      assert.equal((await keys.findByHash(hashKey(KEY_1)))!.revoked_at, null);
    });

    it('revokes all the keys sharing a prefix at once', async (t) => {
      const keys = await withKeys(t);
      assert.equal(await keys.revoke({ prefix: keyPrefix(KEY_3) }, REVOKED_AT), 2);
      assert.deepEqual(
        (await keys.list()).map((r) => r.revoked_at),
        [REVOKED_AT, REVOKED_AT, null],
      );
    });

    it('a prefix matches whole stored prefixes only', async (t) => {
      const keys = await withKeys(t);
      assert.equal(await keys.revoke({ prefix: 'ob_222' }, REVOKED_AT), 0);
      assert.equal(await keys.revoke({ prefix: KEY_2 }, REVOKED_AT), 0);
      assert.equal(await keys.revoke({ prefix: 'ob_9999999' }, REVOKED_AT), 0);
      assert.deepEqual(
        (await keys.list()).map((r) => r.revoked_at),
        [null, null, null],
      );
    });

    it('finds the active keys of a whole stored prefix, oldest first', async (t) => {
      const keys = await withKeys(t);
      assert.deepEqual(
        (await keys.activeByPrefix(keyPrefix(KEY_2))).map((r) => r.key_hash),
        [hashKey(KEY_3), hashKey(KEY_2)],
      );
      await keys.revoke({ hash: hashKey(KEY_3) }, REVOKED_AT);
      assert.deepEqual(await keys.activeByPrefix(keyPrefix(KEY_2)), [key(KEY_2, '2026-11-02T00:00:00.000Z')]);
      assert.deepEqual(await keys.activeByPrefix('ob_222'), []);
      assert.deepEqual(await keys.activeByPrefix(KEY_1), []);
    });

    it('an unknown hash revokes nothing', async (t) => {
      const keys = await withKeys(t);
      assert.equal(await keys.revoke({ hash: hashKey('ob_unknown') }, REVOKED_AT), 0);
    });

    it('a hash, when given, decides alone', async (t) => {
      const keys = await withKeys(t);
      assert.equal(await keys.revoke({ hash: hashKey(KEY_1), prefix: keyPrefix(KEY_2) }, REVOKED_AT), 1);
      assert.deepEqual(
        (await keys.list()).map((r) => r.revoked_at),
        [null, null, REVOKED_AT],
      );
    });

    it('counts every key, revoked ones too', async (t) => {
      const keys = await withKeys(t);
      await keys.revoke({ prefix: keyPrefix(KEY_2) }, REVOKED_AT);
      assert.equal(await keys.count(), 3);
    });

    it('keys and revocations are there after reopening', async (t) => {
      const f = await fresh(t);
      if (!f.reopen) return t.skip(NO_REOPEN);
      await f.keys.insert(fullKey(KEY_1, '2026-11-03T00:00:00.000Z'));
      await f.keys.insert(key(KEY_2, '2026-11-02T00:00:00.000Z'));
      await f.keys.revoke({ hash: hashKey(KEY_2) }, REVOKED_AT);
      const before = await f.keys.list();
      const again = await f.reopen();
      assert.deepEqual(await again.list(), before);
    });
  });
}
