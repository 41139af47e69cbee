import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type TestContext, test } from 'node:test';
import { openSqlite } from '../../src/store/sqlite/database.ts';
import { FILL_GROUP_CHANGES, FILL_GROUP_MS, SqliteStore } from '../../src/store/sqlite/sqlite-store.ts';
import { batch, priceRow } from '../contract/fixtures.ts';

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
  const next = (rows: number) => batch(Array.from({ length: rows }, () => priceRow({ id: ++id, price_id: id })));
  return { store, other, seen: () => count.get() as number, committed: () => id, next };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

test('a fill commits in groups: another connection sees each group once it ends, never an open one', async (t) => {
  const { store, seen, committed, next } = open(t);
  const seenAfter: number[] = [];
  let firstSeen = -1;
  await store.fill(async () => {
    await store.commit(next(10));
    firstSeen = seen();
    // More changes than a group holds: at least one group ends before the fill does.
    while (committed() < FILL_GROUP_CHANGES + 5_000) {
      await store.commit(next(100));
      seenAfter.push(seen());
    }
  });
  assert.equal(firstSeen, 0, 'the first commit is in an open group');
  for (const [i, n] of seenAfter.entries()) {
    assert.ok(n === 0 || (n - 10) % 100 === 0, `whole batches only (${n})`);
    assert.ok(n <= 10 + (i + 1) * 100);
    if (i > 0) assert.ok(n >= seenAfter[i - 1]!, 'groups only add');
  }
  assert.ok(seenAfter.at(-1)! > 0, 'groups ended during the fill');
  assert.equal(seen(), committed(), 'the last group ends with the fill');
});

test(`a group ends after ${FILL_GROUP_MS} ms, however few changes it holds: the write lock is given up for other writers`, async (t) => {
  const { store, seen, next } = open(t);
  await store.fill(async () => {
    await store.commit(next(10));
    assert.equal(seen(), 0);
    await sleep(FILL_GROUP_MS + 20);
    await store.commit(next(10));
    assert.equal(seen(), 20);
  });
});

test('a fill that fails drops its open group only; the store and other writers go on', async (t) => {
  const { store, other, seen, committed, next } = open(t);
  let keptBefore = -1;
  await assert.rejects(
    store.fill(async () => {
      // Until a group has just ended (it ends right after a commit, by size or by time)...
      do await store.commit(next(1000));
      while (committed() < FILL_GROUP_CHANGES || seen() !== committed());
      // ...then a small batch opens the next one.
      await store.commit(next(10));
      keptBefore = seen();
      throw new Error('the feed failed');
    }),
    /the feed failed/,
  );
  assert.equal(keptBefore, committed() - 10);
  assert.equal(seen(), keptBefore);
  const read = await store.readChanges({ pricesOnly: false, afterId: 0, toId: 1e9, limit: 1e6 });
  assert.equal(read.length, keptBefore);
  // No transaction is left open: another connection can write, and so can the store.
  other.prepare("INSERT INTO meta (key, value) VALUES ('other', 'wrote')").run();
  await store.commit(next(100));
  assert.equal(seen(), keptBefore + 100);
});
