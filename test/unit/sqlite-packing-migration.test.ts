import assert from 'node:assert/strict';
import { test } from 'node:test';
import { openSqlite } from '../../src/store/sqlite/database.ts';
import { SqliteHistoryStore } from '../../src/store/sqlite/sqlite-history.ts';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.ts';
import { BASE_MS, EVENT_A, EVENT_B, eventRow, marketRecord, playRow, priceRow, statRow } from '../contract/fixtures.ts';
import { storeWithArchivedEvent } from '../helpers/archived-event.ts';

/**
 * A data directory written before packing existed: events archived, no packing tables. Opening it
 * queues those events, and the next compaction steps pack them; opening again changes nothing.
 */
test('events archived before packing existed are packed after an upgrade', async (t) => {
  const later = BASE_MS + 3_600_000;
  const { dir, store: old } = await storeWithArchivedEvent(
    t,
    [
      eventRow({ id: 1 }),
      priceRow({ id: 2, price_id: 1 }),
      playRow({ id: 3, sequence: 1 }),
      statRow({ id: 4, stat_id: 1, value: 3 }),
      priceRow({ id: 5, price_id: 1, price: -125 }),
      eventRow({ id: 6, event_id: EVENT_B, committed_ms: later }),
    ],
    [marketRecord(1, EVENT_A, 1)],
  );
  const before = {
    event: await old.readArchivedEvent(EVENT_A),
    plays: (await old.readPlays(EVENT_A, 1, 1)).toString(),
  };
  await old.close();
  // What a file of the earlier version holds: retention's first two tables only.
  const db = openSqlite(dir);
  db.exec('DROP TABLE archived_rows; DROP TABLE archived_prices; DROP TABLE archive_pending;');
  db.close();

  for (let open = 1; open <= 2; open++) {
    const reopened = openSqlite(dir);
    assert.deepEqual(reopened.prepare('SELECT event_id, last_id FROM archive_pending').all(), [
      { event_id: EVENT_A, last_id: 5 },
    ]);
    reopened.close();
  }
  const db2 = openSqlite(dir);
  const store = new SqliteStore(db2);
  t.after(() => store.close());
  // A cutoff past event A's commits and before every row's time: the boundary passes it, nothing is dropped.
  while ((await store.compact({ cutoffMs: BASE_MS + 60_000, maxRows: 100 })).more);
  assert.deepEqual(db2.prepare('SELECT count(*) AS n FROM archive_pending').get(), { n: 0 });
  assert.deepEqual(
    (await store.readChanges({ pricesOnly: false, afterId: 0, toId: 100, limit: 100 })).map((r) => r.id),
    [6],
  );
  assert.deepEqual(await store.readArchivedEvent(EVENT_A), before.event);
  assert.equal((await store.readPlays(EVENT_A, 1, 1)).toString(), before.plays);
  const history = new SqliteHistoryStore(db2);
  assert.deepEqual(
    (await history.firstRows([1], 100)).map((r) => r.id),
    [2],
  );
  // Reopened, the packed event stays packed and is not queued again.
  const db3 = openSqlite(dir);
  assert.deepEqual(db3.prepare('SELECT count(*) AS n FROM archive_pending').get(), { n: 0 });
  db3.close();
});
