import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import type { ChangeRecord } from '../../src/changelog/change.ts';
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
import { toTextKeyed } from '../helpers/old-store.ts';

const BOARD = 'f'.repeat(32);
const EVENT_C = 'c'.repeat(32);

function futuresRow(id: number): ChangeRecord {
  return {
    id,
    kind: 'futures_board',
    event_id: BOARD,
    sport_id: 4,
    at: new Date(BASE_MS + id * 1000).toISOString(),
    committed_ms: BASE_MS + id * 1000,
    price_id: null,
    affiliate_id: null,
    market_id: null,
    payload: '{"event_id":"ffffffffffffffffffffffffffffffff"}',
    detail: null,
  };
}

async function collect<T>(rows: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const r of rows) out.push(r);
  return out;
}

/** Everything the store and the history store read back, through every kind of read. */
async function reads(store: SqliteStore, db: SqliteDatabase) {
  const history = new SqliteHistoryStore(db);
  const loaded = await store.load();
  const earlier = await store.load(8);
  return {
    log: await store.readChanges({ pricesOnly: false, afterId: 0, toId: 1000, limit: 1000 }),
    ofEvent: await store.readChanges({ pricesOnly: false, afterId: 0, toId: 1000, limit: 1000, eventId: EVENT_A }),
    payloads: (
      await store.readPayloadBytes({ pricesOnly: true, afterId: 0, toId: 1000, limit: 1000, eventId: EVENT_A })
    ).bytes.toString(),
    plays: (await store.readPlays(EVENT_A, 1, 10)).toString(),
    stats: await store.readStats(EVENT_A, 1000),
    loaded: { ...loaded, latestPrices: await collect(loaded.latestPrices), statRows: await collect(loaded.statRows) },
    earlier: {
      ...earlier,
      latestPrices: await collect(earlier.latestPrices),
      statRows: await collect(earlier.statRows),
    },
    archived: await store.readArchivedEvent(EVENT_B),
    chart: await history.rows({ eventId: EVENT_A, marketId: 2, uptoId: 1000, limit: 100 }),
    eventHistory: await history.rows({ eventId: EVENT_A, uptoId: 1000, limit: 100 }),
    firsts: await history.firstRows([1, 2, 3], 1000),
  };
}

const indexes = (db: SqliteDatabase) =>
  db.prepare("SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'changes' ORDER BY name").all();

/**
 * A data directory written before event keys existed (the event's text in every change row) opens
 * with the same ids and rows, the current table and indexes, and keeps working: new rows, new
 * events, packing an event archived before the upgrade; opening it again changes nothing.
 */
test('a change log keyed by event text is rewritten with event keys at open, the same rows read back', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'oddsbase-event-keys-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const store = new SqliteStore(openSqlite(dir));
  await store.commit(
    batch(
      [
        eventRow({ id: 1 }),
        priceRow({ id: 2, price_id: 1 }),
        priceRow({ id: 3, price_id: 2, market_id: 2 }),
        scoreRow({ id: 4, home: 1 }),
        eventRow({ id: 5, event_id: EVENT_B }),
        priceRow({ id: 6, event_id: EVENT_B, price_id: 3 }),
        playRow({ id: 7, sequence: 1 }),
        statRow({ id: 8, stat_id: 1, value: 3 }),
        futuresRow(9),
        priceRow({ id: 10, price_id: 2, market_id: 2, price: -125 }),
        statRow({ id: 11, stat_id: 1, value: 5 }),
      ],
      {
        events: [eventRecord(EVENT_A, 11), eventRecord(EVENT_B, 6)],
        markets: [marketRecord(1, EVENT_A, 1), marketRecord(2, EVENT_A, 2), marketRecord(3, EVENT_B, 1)],
      },
    ),
  );
  await store.archive({ eventIds: [EVENT_B], archivedMs: BASE_MS, seasonTotals: [] });
  const freshDir = mkdtempSync(join(tmpdir(), 'oddsbase-event-keys-fresh-'));
  const fresh = openSqlite(freshDir);
  const current = indexes(fresh);
  fresh.close();
  rmSync(freshDir, { recursive: true, force: true });
  const before = await reads(store, (store as unknown as { db: SqliteDatabase }).db);
  await store.close();

  toTextKeyed(dir);

  const db = openSqlite(dir);
  assert.deepEqual(db.prepare("SELECT name FROM pragma_table_info('changes') WHERE name LIKE 'event%'").pluck().all(), [
    'event_key',
  ]);
  assert.deepEqual(indexes(db), current, 'the indexes of a fresh file');
  assert.equal(
    db.prepare("SELECT count(*) FROM sqlite_master WHERE name = 'changes_before_event_keys'").pluck().get(),
    0,
  );
  const migrated = new SqliteStore(db);
  const after = await reads(migrated, db);
  assert.deepEqual(after, before);

  // New rows take keys after the rewritten ones; an archived event is packed as before the upgrade.
  await migrated.commit(
    batch([priceRow({ id: 12, price_id: 1, price: -130 }), eventRow({ id: 13, event_id: EVENT_C })], {
      events: [eventRecord(EVENT_A, 12), eventRecord(EVENT_C, 13)],
    }),
  );
  assert.deepEqual(
    (await migrated.readChanges({ pricesOnly: false, afterId: 11, toId: 1000, limit: 10 })).map((r) => [
      r.id,
      r.event_id,
    ]),
    [
      [12, EVENT_A],
      [13, EVENT_C],
    ],
  );
  while ((await migrated.compact({ cutoffMs: BASE_MS + 60_000, maxRows: 100 })).more);
  assert.equal(db.prepare('SELECT count(*) FROM archived_rows').pluck().get(), 1);
  assert.deepEqual(await migrated.readArchivedEvent(EVENT_B), before.archived);
  await migrated.close();

  const again = openSqlite(dir);
  t.after(() => again.close());
  assert.deepEqual(
    again.prepare('SELECT key, event_id FROM event_keys ORDER BY key').all(),
    [EVENT_A, EVENT_B, BOARD, EVENT_C].map((event_id, i) => ({ key: i + 1, event_id })),
  );
  assert.equal(again.prepare('SELECT max(id) FROM changes').pluck().get(), 13);
});

// A key is handed out inside the commit's transaction: a commit that fails takes its keys with it.
test('a refused commit leaves no key behind, and the event gets one with its next commit', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'oddsbase-event-keys-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const db = openSqlite(dir);
  const store = new SqliteStore(db);
  t.after(() => store.close());
  await store.commit(batch([eventRow({ id: 1 })], { events: [eventRecord(EVENT_A, 1)] }));
  // The second row repeats an id: the transaction fails after event B's key was added.
  const refused = batch([eventRow({ id: 2, event_id: EVENT_B }), eventRow({ id: 2, event_id: EVENT_C })]);
  await assert.rejects(store.commit(refused));
  assert.deepEqual(db.prepare('SELECT event_id FROM event_keys ORDER BY key').pluck().all(), [EVENT_A]);
  await store.commit(batch([eventRow({ id: 2, event_id: EVENT_C }), eventRow({ id: 3, event_id: EVENT_B })]));
  assert.deepEqual(
    (await store.readChanges({ pricesOnly: false, afterId: 0, toId: 10, limit: 10 })).map((r) => r.event_id),
    [EVENT_A, EVENT_C, EVENT_B],
  );
});
