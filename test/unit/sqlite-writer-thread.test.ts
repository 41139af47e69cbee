import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import type { ChangeRecord } from '../../src/changelog/change.ts';
import { openSqlite, type SqliteDatabase } from '../../src/store/sqlite/database.ts';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.ts';
import type { Commit } from '../../src/store/store.ts';
import {
  batch,
  catalogRow,
  EVENT_A,
  EVENT_B,
  eventRecord,
  eventRow,
  marketRecord,
  playRow,
  priceRow,
  scoreRow,
} from '../contract/fixtures.ts';

const EVENT_C = 'c'.repeat(32);
const TABLES = ['changes', 'event_keys', 'events', 'markets', 'ingest_batches'];

/** A store on a fresh data directory, closed and removed after the test. */
function openStore(t: TestContext, writerThread: boolean): { store: SqliteStore; db: SqliteDatabase } {
  const dir = mkdtempSync(join(tmpdir(), 'oddsbase-writer-'));
  const db = openSqlite(dir);
  const store = new SqliteStore(db, { writerThread, onError: (err) => assert.fail(String(err)) });
  t.after(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });
  return { store, db };
}

/** Every row of the tables a commit writes, in their keys' order. */
function tables(db: SqliteDatabase): Record<string, unknown[]> {
  return Object.fromEntries(TABLES.map((t) => [t, db.prepare(`SELECT * FROM ${t} ORDER BY 1`).all()]));
}

/** Commits of every kind of row, with a text that is not ASCII, nulls, events, markets and named batches. */
function commits(): Commit[] {
  const odd = { ...priceRow({ id: 5, price_id: 2, event_id: EVENT_B }), payload: '{"name":"Škoda – 東京 🏀"}' };
  const named = (c: Commit, id: string, headId: number): Commit => ({
    ...c,
    batch: { id, headId, committedMs: 1_700_000_000_000 + headId },
  });
  return [
    batch([catalogRow({ id: 1, affiliate_id: 19, name: 'Book' }), eventRow({ id: 2 })], {
      events: [eventRecord(EVENT_A, 2)],
    }),
    named(
      batch([priceRow({ id: 3, price_id: 1 }), scoreRow({ id: 4, home: 2 }), odd], {
        events: [eventRecord(EVENT_A, 4), eventRecord(EVENT_B, 5)],
        markets: [marketRecord(1, EVENT_A, 1), marketRecord(2, EVENT_B, 1, 1)],
      }),
      'batch-1',
      5,
    ),
    named(batch([]), 'batch-2', 5),
    batch([playRow({ id: 9, sequence: 1 }), priceRow({ id: 10, price_id: 3, event_id: EVENT_C, sport_id: 1 })], {
      events: [eventRecord(EVENT_C, 10, 1)],
    }),
  ];
}

test('the writer thread and the plain twin write the same rows', async (t) => {
  const plain = openStore(t, false);
  const threaded = openStore(t, true);
  for (const c of commits()) {
    await plain.store.commit(c);
    await threaded.store.commit(c);
  }
  assert.deepEqual(tables(threaded.db), tables(plain.db));
  assert.equal((tables(threaded.db).changes as ChangeRecord[]).length, 7);
});

test('a commit refused on the thread leaves nothing, its new event key included', async (t) => {
  const { store, db } = openStore(t, true);
  await store.commit(batch([eventRow({ id: 1 }), priceRow({ id: 2, price_id: 1 })]));
  const before = tables(db);
  // A new event, then an id at the head: the whole batch is refused.
  const refused = batch([eventRow({ id: 3, event_id: EVENT_B }), priceRow({ id: 2, price_id: 2, event_id: EVENT_B })], {
    events: [eventRecord(EVENT_B, 3)],
    markets: [marketRecord(1, EVENT_B, 1)],
  });
  await assert.rejects(store.commit({ ...refused, batch: { id: 'refused', headId: 3, committedMs: 1 } }), /head/);
  assert.deepEqual(tables(db), before);
  assert.equal(await store.batchHead('refused'), undefined);
  // The thread forgot the key it added: the event's rows are found by it once committed.
  await store.commit(batch([eventRow({ id: 3, event_id: EVENT_B })]));
  const ofB = await store.readChanges({ pricesOnly: false, afterId: 0, toId: 10, limit: 10, eventId: EVENT_B });
  assert.deepEqual(
    ofB.map((r) => r.id),
    [3],
  );
});

test('a fill commits on the store’s own connection, and the thread goes on with its event keys', async (t) => {
  const { store, db } = openStore(t, true);
  await store.commit(batch([eventRow({ id: 1 })]));
  await store.fill(async () => {
    await store.commit(batch([eventRow({ id: 2, event_id: EVENT_B })]));
  });
  await store.commit(batch([scoreRow({ id: 3, event_id: EVENT_B, home: 1 }), eventRow({ id: 4, event_id: EVENT_C })]));
  const keys = db.prepare('SELECT event_id FROM event_keys ORDER BY key').pluck().all();
  assert.deepEqual(keys, [EVENT_A, EVENT_B, EVENT_C]);
  const ofB = await store.readChanges({ pricesOnly: false, afterId: 0, toId: 10, limit: 10, eventId: EVENT_B });
  assert.deepEqual(
    ofB.map((r) => r.id),
    [2, 3],
  );
});
