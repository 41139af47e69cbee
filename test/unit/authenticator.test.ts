import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Authenticator } from '../../src/access/authenticator.ts';
import { generateKey, hashKey, newKeyRecord } from '../../src/access/keys.ts';
import type { KeyRecord } from '../../src/store/keys.ts';
import { MemoryKeyStore } from '../../src/store/memory/memory-secrets.ts';
import { heldReads } from '../helpers/held-reads.ts';

const SlowKeys = heldReads<KeyRecord, typeof MemoryKeyStore>(MemoryKeyStore);

const TTL = 2000;

async function setUp() {
  let t = 1_000_000;
  const keys = new SlowKeys();
  const key = generateKey();
  await keys.insert(newKeyRecord(key, 'pro'));
  const auth = new Authenticator(keys, TTL, () => t);
  return { keys, key, auth, at: (ms: number) => (t = 1_000_000 + ms) };
}

test('requests that find no entry while a read of their key runs share that read', async () => {
  const { keys, key, auth } = await setUp();
  const asked = Array.from({ length: 5 }, () => auth.authenticate(key));
  assert.equal(keys.reads, 1);
  await keys.answer();
  const accounts = await Promise.all(asked);
  assert.ok(accounts.every((a) => a !== undefined && a === accounts[0]));
  assert.equal(auth.cached(key), accounts[0]);
});

test('a key in use is read again before its entry lapses, so it never misses the cache', async () => {
  const { keys, key, auth, at } = await setUp();
  const first = auth.authenticate(key);
  await keys.answer();
  const account = await first;
  at(TTL / 2);
  assert.equal(auth.cached(key), account, 'within its time: no read');
  assert.equal(keys.reads, 1);
  at(TTL - TTL / 8);
  assert.equal(auth.cached(key), account, 'in the last quarter: the entry still answers');
  assert.equal(keys.reads, 2, 'and a read of the key begins');
  auth.cached(key);
  assert.equal(keys.reads, 2, 'one read at a time');
  await keys.answer();
  at(TTL + TTL / 2);
  const renewed = auth.cached(key);
  assert.ok(renewed !== undefined, 'past the time of the first entry, the renewed one answers');
  assert.notEqual(renewed, account, 'with the account as read again');
});

test('a key revoked meanwhile is dropped by the renewing read, within the cache time', async () => {
  const { keys, key, auth, at } = await setUp();
  const first = auth.authenticate(key);
  await keys.answer();
  await first;
  await keys.revoke({ hash: hashKey(key) }, new Date().toISOString());
  at(TTL - 1);
  assert.ok(auth.cached(key) !== undefined, 'the entry answers until the read that drops it');
  await keys.answer();
  assert.equal(auth.cached(key), undefined);
  const again = auth.authenticate(key);
  await keys.answer();
  assert.equal(await again, undefined);
});

test('an entry lapses at its time when no request renewed it', async () => {
  const { keys, key, auth, at } = await setUp();
  const first = auth.authenticate(key);
  await keys.answer();
  await first;
  at(TTL);
  assert.equal(auth.cached(key), undefined);
  assert.equal(keys.reads, 1);
});
