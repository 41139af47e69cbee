import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { it, type TestContext } from 'node:test';
import { openSqlite, type SqliteDatabase } from '../../src/store/sqlite/database.ts';
import { SqliteHistoryStore } from '../../src/store/sqlite/sqlite-history.ts';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.ts';
import {
  BASE_MS,
  batch,
  EVENT_A,
  EVENT_B,
  eventRecord,
  eventRow,
  marketRecord,
  playRow,
  priceRow,
  scoreRow,
  statRow,
} from '../contract/fixtures.ts';

/** The database, with every SQL text prepared through it noted. */
function recording(db: SqliteDatabase): { db: SqliteDatabase; prepared: Set<string> } {
  const prepared = new Set<string>();
  const proxy = new Proxy(db, {
    get(target, prop) {
      if (prop === 'prepare') {
        return (sql: string) => {
          prepared.add(sql);
          return target.prepare(sql);
        };
      }
      const value: unknown = Reflect.get(target, prop, target);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
  return { db: proxy, prepared };
}

/** Lines of the query plans of `sql` that read the whole change log. */
function logScans(db: SqliteDatabase, sql: Iterable<string>): string[] {
  const out: string[] = [];
  for (const s of sql) {
    // A literal for each parameter (the plan of an unbound statement cannot be read): the same plan.
    const plan = db.prepare(`EXPLAIN QUERY PLAN ${s.replaceAll('?', '1')}`).all() as { detail: string }[];
    for (const { detail } of plan) if (/^SCAN changes\b/.test(detail)) out.push(`${detail}: ${s}`);
  }
  return out;
}

/** A store file of its own, removed after the test, whose statements are recorded. */
function freshRecorded(t: TestContext): { db: SqliteDatabase; rec: ReturnType<typeof recording> } {
  const dir = mkdtempSync(join(tmpdir(), 'oddsbase-plans-'));
  const db = openSqlite(dir);
  t.after(() => {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });
  return { db, rec: recording(db) };
}

// These run on the thread that serves requests, on a timer, against a log of millions of rows: a
// scan there stalls every request for as long as it takes (min() and max() in one query did).
it('the time lookups and a retention step search the change log, never scan it', async (t) => {
  const { db, rec } = freshRecorded(t);
  const store = new SqliteStore(rec.db);
  const rows = [
    eventRow({ id: 1 }),
    scoreRow({ id: 2 }),
    ...Array.from({ length: 20 }, (_, i) => priceRow({ id: 3 + i, price_id: 1 + (i % 4), price: -110 - i })),
    statRow({ id: 23, stat_id: 1, value: 3 }),
    statRow({ id: 24, stat_id: 1, value: 5 }),
    eventRow({ id: 25, event_id: EVENT_B }),
  ];
  await store.commit(
    batch(rows, {
      events: [eventRecord(EVENT_A, 24), eventRecord(EVENT_B, 25)],
      markets: [marketRecord(1, EVENT_A, 1)],
    }),
  );
  rec.prepared.clear();

  assert.equal(await store.firstIdCommittedSince(BASE_MS + 10_000), 10);
  assert.equal(await store.committedMsAt(12), BASE_MS + 12_000);
  const step = await store.compact({ cutoffMs: BASE_MS + 20_000, maxRows: 100 });
  assert.ok(step.dropped > 0, 'the step dropped superseded rows');
  assert.ok(rec.prepared.size > 5, 'the statements were seen');
  assert.deepEqual(logScans(db, rec.prepared), []);
});

// The log names events by key: a read given an event's id looks its key up, then searches by it.
it('reads of one event search the change log by its key, never scan it', async (t) => {
  const { db, rec } = freshRecorded(t);
  const store = new SqliteStore(rec.db);
  const history = new SqliteHistoryStore(rec.db);
  await store.commit(
    batch(
      [
        eventRow({ id: 1 }),
        ...Array.from({ length: 8 }, (_, i) => priceRow({ id: 2 + i, price_id: 1 + (i % 2), market_id: 1 + (i % 2) })),
        playRow({ id: 10, sequence: 1 }),
        statRow({ id: 11, stat_id: 1, value: 3 }),
        eventRow({ id: 12, event_id: EVENT_B }),
      ],
      { events: [eventRecord(EVENT_A, 11), eventRecord(EVENT_B, 12)], markets: [marketRecord(1, EVENT_A, 1)] },
    ),
  );
  rec.prepared.clear();

  const q = { afterId: 0, toId: 100, limit: 5, eventId: EVENT_A };
  assert.equal((await store.readChanges({ ...q, pricesOnly: false })).length, 5);
  assert.equal((await store.readPayloadBytes({ ...q, pricesOnly: true })).count, 5);
  assert.ok((await store.readPlays(EVENT_A, 1, 1)).length > 0);
  assert.equal((await store.readStats(EVENT_A, 100)).length, 1);
  assert.equal((await history.rows({ eventId: EVENT_A, uptoId: 100, limit: 3 })).length, 3);
  assert.equal((await history.rows({ eventId: EVENT_A, marketId: 2, uptoId: 100, limit: 10 })).length, 4);
  await store.archive({ eventIds: [EVENT_A], archivedMs: BASE_MS, seasonTotals: [] });
  assert.equal((await store.readArchivedEvent(EVENT_A))?.latestPrices.length, 2);
  // Packs event A (its rows below the boundary): its rows are read, counted and deleted by its key.
  while ((await store.compact({ cutoffMs: BASE_MS + 11_500, maxRows: 100 })).more);
  assert.equal(db.prepare('SELECT count(*) FROM archived_rows').pluck().get(), 1);
  const byKey = [...rec.prepared].filter((s) => s.includes('event_key'));
  assert.ok(byKey.length >= 10, 'the statements were seen');
  assert.deepEqual(logScans(db, byKey), []);
});
