import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type TestContext, test } from 'node:test';
import { openSqlite } from '../../src/store/sqlite/database.ts';
import { FILL_GROUP_CHANGES, SqliteStore } from '../../src/store/sqlite/sqlite-store.ts';
import { batch, priceRow } from '../contract/fixtures.ts';

const BATCH = 1000;

/** A store and a second connection on the same file, as a backup or a keys command would open it. */
function open(t: TestContext) {
  const dir = mkdtempSync(join(tmpdir(), 'oddsbase-fill-'));
  const store = new SqliteStore(openSqlite(dir));
  const other = openSqlite(dir);
  t.after(async () => {
    other.close();
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const count = other.prepare('SELECT count(*) FROM changes').pluck();
  let id = 0;
  const next = () =>
    batch(Array.from({ length: BATCH }, () => priceRow({ id: ++id, price_id: id })));
  return { store, other, seen: () => count.get() as number, next };
}

test('a fill commits in groups: another connection sees each group once it ends, never an open one', async (t) => {
  const { store, seen, next } = open(t);
  const batches = (FILL_GROUP_CHANGES / BATCH) * 1.5;
  const seenAfter: number[] = [];
  await store.fill(async () => {
    for (let b = 0; b < batches; b++) {
      await store.commit(next());
      seenAfter.push(seen());
    }
  });
  const groupEnd = FILL_GROUP_CHANGES / BATCH;
  assert.deepEqual(seenAfter.slice(0, groupEnd - 1), Array(groupEnd - 1).fill(0));
  assert.deepEqual(seenAfter.slice(groupEnd - 1), Array(batches - groupEnd + 1).fill(FILL_GROUP_CHANGES));
  assert.equal(seen(), batches * BATCH, 'the last group ends with the fill');
});

test('a fill that fails drops its open group only; the store and other writers go on', async (t) => {
  const { store, other, seen, next } = open(t);
  const batches = FILL_GROUP_CHANGES / BATCH + 3;
  await assert.rejects(
    store.fill(async () => {
      for (let b = 0; b < batches; b++) await store.commit(next());
      throw new Error('the feed failed');
    }),
    /the feed failed/,
  );
  assert.equal(seen(), FILL_GROUP_CHANGES);
  assert.equal((await store.readChanges({ pricesOnly: false, afterId: 0, toId: 1e9, limit: 1e6 })).length, FILL_GROUP_CHANGES);
  // No transaction is left open: another connection can write, and so can the store.
  other.prepare("INSERT INTO meta (key, value) VALUES ('other', 'wrote')").run();
  await store.commit(next());
  assert.equal(seen(), FILL_GROUP_CHANGES + BATCH);
});
