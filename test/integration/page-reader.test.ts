import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import type { Worker } from 'node:worker_threads';
import type { HistoryQuery } from '../../src/store/history.ts';
import { openSqlite, type SqliteDatabase } from '../../src/store/sqlite/database.ts';
import { SqliteHistoryStore } from '../../src/store/sqlite/sqlite-history.ts';
import { PAGE_SLOTS } from '../../src/store/sqlite/page-reader.ts';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.ts';
import type { ChangeQuery, PayloadBytes } from '../../src/store/store.ts';
import { EVENT_A, eventRecord, priceRow } from '../contract/fixtures.ts';

const ROWS = 2000;

/** A store reading its pages on a thread, over ROWS price rows of twenty books. */
async function withStore(
  run: (store: SqliteStore, db: SqliteDatabase, errors: unknown[]) => Promise<void>,
): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'oddsbase-page-reader-'));
  const db = openSqlite(dir);
  const errors: unknown[] = [];
  const store = new SqliteStore(db, { pageThread: true, onError: (err) => errors.push(err) });
  try {
    for (let b = 0; b < ROWS / 500; b++) {
      const changes = Array.from({ length: 500 }, (_, i) =>
        priceRow({ id: b * 500 + i + 1, price_id: i + 1, affiliate_id: i % 20 }),
      );
      await store.commit({ changes, markets: [], events: [eventRecord(changes[0]!.event_id, changes.at(-1)!.id)] });
    }
    await run(store, db, errors);
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

const query = (q: Partial<ChangeQuery>): ChangeQuery => ({
  pricesOnly: true,
  afterId: 0,
  toId: ROWS,
  limit: 250,
  ...q,
});

test("a page read on the thread comes from the thread's own connection", () =>
  withStore(async (store, db) => {
    const before = await store.readPayloadBytes(query({ affiliateIds: [3, 7] }));
    // The store's own connection is gone: only the thread can still read.
    db.close();
    const page = await store.readPayloadBytes(query({ affiliateIds: [3, 7] }));
    assert.deepEqual(
      { count: page.count, lastRowId: page.lastRowId, more: page.more },
      { count: 200, lastRowId: ROWS - 12, more: false },
    );
    assert.ok(page.bytes.equals(before.bytes));
    const full = await store.readPayloadBytes(query({ afterId: 100, limit: 1000 }));
    assert.deepEqual(
      { count: full.count, lastRowId: full.lastRowId, more: full.more },
      { count: 1000, lastRowId: 1100, more: true },
    );
    assert.equal(JSON.parse(`[${full.bytes.toString('utf8')}]`).length, 1000);
  }));

test("whole rows read on the thread, a few hundred a statement, are the store connection's rows", () =>
  withStore(async (store, db) => {
    const queries: Partial<ChangeQuery>[] = [
      { pricesOnly: false, limit: ROWS },
      { afterId: 37, limit: 1201 },
      { affiliateIds: [3, 7], limit: 150 },
      { affiliateIds: [3, 7], limit: 500 },
      { afterId: ROWS - 10, limit: 5000 },
    ];
    const before = [];
    for (const q of queries) before.push(await store.readChanges(query(q)));
    db.close();
    for (const [i, q] of queries.entries()) {
      assert.deepEqual(await store.readChanges(query(q)), before[i], JSON.stringify(q));
    }
    assert.deepEqual(
      before.map((rows) => rows.length),
      [ROWS, 1201, 150, 200, 10],
    );
  }));

test('the thread reads while the event loop goes on', () =>
  withStore(async (store) => {
    let turns = 0;
    const counting = setInterval(() => turns++, 0);
    try {
      // Forty reads asked at once: on the store's own connection they would all run before any timer.
      const pages = await Promise.all(
        Array.from({ length: 40 }, (_, i) => store.readPayloadBytes(query({ afterId: i * 10, limit: 1000 }))),
      );
      assert.ok(pages.every((p) => p.count === 1000));
      assert.ok(turns > 0, `the loop went round ${turns} times while the pages were read`);
      turns = 0;
      const rows = await store.readChanges(query({ limit: ROWS }));
      assert.equal(rows.length, ROWS);
      assert.ok(turns > 0, `the loop went round ${turns} times while ${ROWS} rows were read`);
    } finally {
      clearInterval(counting);
    }
  }));

test("the store's history store reads on its thread, with the store connection's rows", () =>
  withStore(async (store, db) => {
    const here = new SqliteHistoryStore(db);
    const onThread = store.history();
    const queries: HistoryQuery[] = [
      { eventId: EVENT_A, uptoId: ROWS, limit: 1000 },
      { eventId: EVENT_A, uptoId: 1500, limit: 300, coverage: { affiliateIds: [3, 7] } },
      { priceIds: [5, 17, 260], uptoId: ROWS, limit: 1000 },
    ];
    for (const q of queries) assert.deepEqual(await onThread.rows(q), await here.rows(q), JSON.stringify(q));
    const ids = Array.from({ length: 400 }, (_, i) => i + 1);
    assert.deepEqual(await onThread.firstRows(ids, ROWS), await here.firstRows(ids, ROWS));
    const cutoff = new Date(Date.UTC(2030, 0, 1)).toISOString();
    assert.deepEqual(
      await onThread.lastRowsAtOrBefore(ids, cutoff, ROWS),
      await here.lastRowsAtOrBefore(ids, cutoff, ROWS),
    );
    assert.equal((await onThread.firstRows(ids, ROWS)).length, 400);

    let turns = 0;
    const counting = setInterval(() => turns++, 0);
    try {
      // On the store's own connection, twenty reads asked at once would all run before any timer.
      const reads = await Promise.all(
        Array.from({ length: 20 }, (_, i) => onThread.rows({ eventId: EVENT_A, uptoId: ROWS - i, limit: 1000 })),
      );
      assert.ok(reads.every((rows) => rows.length === 1000));
      assert.ok(turns > 0, `the loop went round ${turns} times while the history was read`);
    } finally {
      clearInterval(counting);
    }
  }));

test('when the thread fails, its error is reported and pages are read on the store connection', () =>
  withStore(async (store, _db, errors) => {
    const expected = await store.readPayloadBytes(query({ afterId: 40 }));
    const worker = (store as unknown as { pageReader: { worker: Worker } }).pageReader.worker;
    await worker.terminate();
    const page = await store.readPayloadBytes(query({ afterId: 40 }));
    assert.ok(page.bytes.equals(expected.bytes));
    assert.equal((await store.readChanges(query({ afterId: 40, limit: 1500 }))).length, 1500);
    assert.equal(page.lastRowId, expected.lastRowId);
    assert.match(String(errors[0]), /page reader's thread exited/);
  }));

/** Where a page's bytes lie: lent shared memory (with its release) or a buffer of its own (without). */
const memoryOf = (p: PayloadBytes): string =>
  p.bytes.buffer instanceof SharedArrayBuffer && p.release
    ? 'shared'
    : !p.release && !(p.bytes.buffer instanceof SharedArrayBuffer)
      ? 'own'
      : 'mixed';

test('a page read on the thread is written into shared memory, lent until it is given back', () =>
  withStore(async (store) => {
    const joined = async (q: Partial<ChangeQuery>) =>
      (await store.readChanges(query({ ...q, pricesOnly: true }))).map((r) => r.payload).join(',');
    const a = await store.readPayloadBytes(query({ afterId: 0 }));
    assert.equal(memoryOf(a), 'shared');
    assert.equal(a.bytes.toString('utf8'), await joined({ afterId: 0 }));
    const aBytes = Buffer.from(a.bytes);
    // While `a` is lent, other reads go elsewhere and leave its bytes as they were.
    const b = await store.readPayloadBytes(query({ afterId: 250 }));
    assert.notEqual(b.bytes.byteOffset, a.bytes.byteOffset);
    assert.equal(b.bytes.toString('utf8'), await joined({ afterId: 250 }));
    assert.equal(a.bytes.toString('utf8'), aBytes.toString('utf8'));
    a.release!();
    a.release!();
    // Given back (twice does no harm), its memory takes the next read.
    const c = await store.readPayloadBytes(query({ afterId: 500 }));
    assert.equal(c.bytes.byteOffset, a.bytes.byteOffset);
    assert.equal(c.bytes.toString('utf8'), await joined({ afterId: 500 }));
    const d = await store.readPayloadBytes(query({ afterId: 750 }));
    assert.notEqual(d.bytes.byteOffset, c.bytes.byteOffset);
    b.release!();
    c.release!();
    d.release!();
  }));

test('a page larger than a slot, or read while every slot is lent, comes in memory of its own', () =>
  withStore(async (store) => {
    const whole = await store.readPayloadBytes(query({ limit: ROWS }));
    assert.equal(whole.count, ROWS);
    assert.equal(memoryOf(whole), 'own');
    assert.equal(JSON.parse(`[${whole.bytes.toString('utf8')}]`).length, ROWS);

    const held = [];
    for (let i = 0; i < PAGE_SLOTS; i++) held.push(await store.readPayloadBytes(query({ afterId: i, limit: 10 })));
    assert.deepEqual(new Set(held.map(memoryOf)), new Set(['shared']));
    const extra = await store.readPayloadBytes(query({ afterId: 100, limit: 10 }));
    assert.equal(memoryOf(extra), 'own');
    assert.equal(extra.count, 10);
    held.pop()!.release!();
    const again = await store.readPayloadBytes(query({ afterId: 100, limit: 10 }));
    assert.equal(memoryOf(again), 'shared');
    assert.equal(again.bytes.toString('utf8'), extra.bytes.toString('utf8'));
    for (const p of [...held, again]) p.release!();
  }));
