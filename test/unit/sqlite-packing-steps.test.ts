import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ChangeRecord } from '../../src/changelog/change.ts';
import { SqliteHistoryStore } from '../../src/store/sqlite/sqlite-history.ts';
import {
  BASE_MS,
  EVENT_A,
  EVENT_B,
  eventRow,
  marketRecord,
  playRow,
  priceRow,
  statRow,
  time,
} from '../contract/fixtures.ts';
import { storeWithArchivedEvent } from '../helpers/archived-event.ts';

const MAX_ROWS = 100;
/** Every row of event A describes a time after the cutoff: compaction drops none, packing takes them all. */
const LATE = 100_000;

/**
 * Packing an event with more rows than a step's `maxRows`: no step deletes more than that many of
 * its rows (each delete costs SQLite 50-180 µs on the request thread), and between the steps every
 * reader of the event (by event, by market, by price, openers and closing, plays, stats, the
 * archived event) answers exactly as before packing: never with both the record and rows, never
 * with neither.
 */
test('a large event is packed over steps of at most maxRows deletes, readers unchanged in between', async (t) => {
  const rows: ChangeRecord[] = [eventRow({ id: 1, at: time(LATE) })];
  for (let id = 2; id <= 330; id++) {
    const at = time(LATE + id);
    if (id % 11 === 0) rows.push(playRow({ id, at, sequence: id / 11 }));
    else if (id % 13 === 0) rows.push(statRow({ id, at, stat_id: id % 3, value: id }));
    else rows.push(priceRow({ id, at, price_id: 1 + (id % 20), market_id: 1 + (id % 2), price: -100 - id }));
  }
  const last = rows.at(-1)!.id;
  rows.push(eventRow({ id: last + 1, event_id: EVENT_B }));
  const { db, store } = await storeWithArchivedEvent(t, rows, [
    marketRecord(1, EVENT_A, 1),
    marketRecord(2, EVENT_A, 2),
  ]);
  const history = new SqliteHistoryStore(db);
  const prices = Array.from({ length: 20 }, (_, i) => i + 1);
  const uptoId = last + 1;
  const reads = async () => ({
    byEvent: await history.rows({ eventId: EVENT_A, uptoId, limit: 1000 }),
    byMarket: await history.rows({ eventId: EVENT_A, marketId: 2, uptoId, limit: 1000 }),
    byPrice: await history.rows({ priceIds: [3, 4, 17], uptoId, limit: 1000 }),
    firstRows: (await history.firstRows(prices, uptoId)).sort((a, b) => a.price_id - b.price_id),
    closing: (await history.lastRowsAtOrBefore(prices, time(LATE + 200), uptoId)).sort(
      (a, b) => a.price_id - b.price_id,
    ),
    plays: (await store.readPlays(EVENT_A, 1, 100)).toString(),
    stats: await store.readStats(EVENT_A, uptoId),
    event: await store.readArchivedEvent(EVENT_A),
  });
  const before = await reads();
  assert.equal(before.byEvent.length, rows.filter((r) => r.price_id !== null).length);

  const logged = db.prepare(
    'SELECT count(*) FROM changes WHERE event_key = (SELECT key FROM event_keys WHERE event_id = ?)',
  );
  const packed = db.prepare('SELECT count(*) FROM archived_rows').pluck();
  let left = logged.pluck().get(EVENT_A) as number;
  let packSteps = 0;
  for (let more = true; more;) {
    more = (await store.compact({ cutoffMs: BASE_MS + (last + 1) * 1000, maxRows: MAX_ROWS })).more;
    const now = logged.pluck().get(EVENT_A) as number;
    assert.ok(left - now <= MAX_ROWS, `one step deleted ${left - now} of the event's rows`);
    if (packed.get() === 1) packSteps++;
    left = now;
    assert.deepEqual(await reads(), before, `reads after a step, ${now} rows of the event left in the log`);
  }
  assert.equal(left, 0);
  assert.ok(packSteps >= Math.ceil(last / MAX_ROWS), `the rows left over ${packSteps} steps`);
  assert.equal(db.prepare('SELECT count(*) FROM archive_pending').pluck().get(), 0);
  assert.deepEqual(
    (await store.readChanges({ pricesOnly: false, afterId: 0, toId: uptoId, limit: 10 })).map((r) => r.id),
    [uptoId],
  );
});
