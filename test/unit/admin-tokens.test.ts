import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AdminTokens, generateAdminToken, newAdminTokenRecord } from '../../src/access/admin-tokens.ts';
import type { AdminTokenRecord } from '../../src/store/admin-tokens.ts';
import { MemoryAdminTokenStore } from '../../src/store/memory/memory-secrets.ts';
import { heldReads } from '../helpers/held-reads.ts';

const SlowTokens = heldReads<AdminTokenRecord, typeof MemoryAdminTokenStore>(MemoryAdminTokenStore);

const TTL = 2000;

async function setUp() {
  let t = 1_000_000;
  const store = new SlowTokens();
  const token = generateAdminToken();
  await store.insert(newAdminTokenRecord(token));
  const tokens = new AdminTokens(store, TTL, () => t);
  /** Whether the token is admitted, the store's reads answered as they are asked. */
  const admits = async (header = `Bearer ${token}`) => {
    const admitted = tokens.admits(header);
    await store.answer();
    return admitted;
  };
  return { store, token, tokens, admits, at: (ms: number) => (t = 1_000_000 + ms) };
}

test('a token revoked in the store is refused once its trusted time has passed', async () => {
  const { store, token, admits, at } = await setUp();
  assert.equal(await admits(), true);
  await store.revoke({ prefix: token.slice(0, 12) }, new Date().toISOString());
  at(TTL);
  assert.equal(await admits(), false);
  assert.equal(await admits(`Bearer ${generateAdminToken()}`), false, 'an unknown token');
  assert.equal(await admits(`Basic ${token}`), false, 'not a bearer token');
});

test('a token is trusted from the moment the store was asked, not from its answer', async () => {
  const { store, token, tokens, at } = await setUp();
  const first = tokens.admits(`Bearer ${token}`);
  at(TTL / 2);
  await store.answer();
  assert.equal(await first, true);
  await store.revoke({ prefix: token.slice(0, 12) }, new Date().toISOString());
  at(TTL);
  const later = tokens.admits(`Bearer ${token}`);
  assert.equal(store.reads, 2, 'its time ran from the read, so the store is asked again');
  await store.answer();
  assert.equal(await later, false);
});

test('a token in use is read again before its time lapses, and concurrent requests share a read', async () => {
  const { store, token, tokens, admits, at } = await setUp();
  const asked = Array.from({ length: 5 }, () => tokens.admits(`Bearer ${token}`));
  assert.equal(store.reads, 1);
  await store.answer();
  assert.deepEqual(await Promise.all(asked), [true, true, true, true, true]);
  at(TTL / 2);
  assert.equal(await admits(), true);
  assert.equal(store.reads, 1, 'within its time: no read');
  at(TTL - TTL / 8);
  const renewing = tokens.admits(`Bearer ${token}`);
  assert.equal(store.reads, 2, 'in the last quarter: a read begins');
  assert.equal(await renewing, true, 'while the entry still answers');
  await store.answer();
  at(TTL + TTL / 2);
  assert.equal(await admits(), true);
  assert.equal(store.reads, 2, 'the renewed entry answered');
});
