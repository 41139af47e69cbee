import assert from 'node:assert/strict';
import { describe, it, type TestContext } from 'node:test';
import type { ChangeRecord } from '../../src/changelog/change.ts';
import type { HistoryQuery, HistoryStore, PriceRecord } from '../../src/store/history.ts';
import type { Store } from '../../src/store/store.ts';
import { nth } from '../helpers/nth.ts';
import { BASE_MS, batch, EVENT_A, EVENT_B, eventRow, priceRow, scoreRow, time } from './fixtures.ts';

export interface HistoryFixture {
  /** Where the rows are committed. */
  store: Store;
  /** Reads the rows committed to `store`. */
  history: HistoryStore;
  cleanup(): Promise<void>;
}

/**
 * Event A: prices 1 and 2 (market 1, price 2 not a main line) and 3 (market 2); event B: price 4.
 * Row 9 is back-filled: it describes a time before row 4's. Times are seconds after the base.
 */
export function log(): ChangeRecord[] {
  return [
    eventRow({ id: 1, at: time(0) }),
    priceRow({ id: 2, price_id: 1, market_id: 1, at: time(10) }),
    priceRow({ id: 3, price_id: 2, market_id: 1, affiliate_id: 22, is_main_line: false, at: time(20) }),
    priceRow({ id: 4, price_id: 3, market_id: 2, period_id: 1, at: time(30) }),
    priceRow({ id: 5, price_id: 4, event_id: EVENT_B, market_id: 1, at: time(40) }),
    scoreRow({ id: 6, at: time(50) }),
    priceRow({ id: 7, price_id: 1, market_id: 1, price: -115, at: time(60) }),
    priceRow({
      id: 8,
      price_id: 2,
      market_id: 1,
      affiliate_id: 22,
      is_main_line: false,
      price: 120,
      at: time(70),
    }),
    priceRow({ id: 9, price_id: 3, market_id: 2, period_id: 1, price: 150, at: time(25) }),
    priceRow({ id: 10, price_id: 4, event_id: EVENT_B, market_id: 1, price: -130, at: time(80) }),
    priceRow({ id: 11, price_id: 1, market_id: 1, price: -125, at: time(90) }),
    priceRow({ id: 13, price_id: 3, market_id: 2, period_id: 1, price: 160, at: time(100) }),
  ];
}

export const HEAD = 13;

function record(r: ChangeRecord): PriceRecord {
  return { id: r.id, price_id: r.price_id!, payload: r.payload, detail: r.detail };
}

const ids = (rows: readonly { id: number }[]): number[] => rows.map((r) => r.id);
const sortedIds = (rows: readonly { id: number }[]): number[] => ids(rows).sort((a, b) => a - b);

/**
 * Events A and B archived and packed (store/packed-rows.ts): a later row of another event moves
 * the head, and a compaction whose cutoff lies before every row's time but after every commit
 * puts the whole log below the retained boundary without dropping a row.
 */
export async function pack(store: Store): Promise<void> {
  await store.commit(batch([eventRow({ id: 100, event_id: 'c'.repeat(32) })]));
  const step = { cutoffMs: BASE_MS + 14_000, maxRows: 1000 };
  assert.equal((await store.compact(step)).dropped, 0);
  await store.archive({ eventIds: [EVENT_A, EVENT_B], archivedMs: BASE_MS, seasonTotals: [] });
  while ((await store.compact(step)).more);
  assert.deepEqual(await store.readChanges({ pricesOnly: false, afterId: 0, toId: 1000, limit: 1000 }), [
    eventRow({ id: 100, event_id: 'c'.repeat(32) }),
  ]);
}

export function historyContract(name: string, make: () => Promise<HistoryFixture>): void {
  for (const packed of [false, true]) historyCases(`${name}${packed ? ', events packed' : ''}`, make, packed);
}

/** Every read gives the same rows whether the events' rows are in the log or packed. */
function historyCases(name: string, make: () => Promise<HistoryFixture>, packed: boolean): void {
  describe(`HistoryStore contract: ${name}`, () => {
    async function withLog(t: TestContext): Promise<HistoryStore> {
      const f = await make();
      t.after(() => f.cleanup());
      await f.store.commit(batch(log()));
      if (packed) await pack(f.store);
      return f.history;
    }

    describe('rows', () => {
      type Scoped = Partial<HistoryQuery> & ({ eventId: string } | { priceIds: number[] });
      const q = (query: Scoped): HistoryQuery => ({ uptoId: HEAD, limit: 100, ...query }) as HistoryQuery;
      const cases: [string, HistoryQuery, number[]][] = [
        ['an event’s price rows, newest first', q({ eventId: EVENT_A }), [13, 11, 9, 8, 7, 4, 3, 2]],
        ['another event', q({ eventId: EVENT_B }), [10, 5]],
        ['an event with no row', q({ eventId: 'f'.repeat(32) }), []],
        ['one market of an event', q({ eventId: EVENT_A, marketId: 1 }), [11, 8, 7, 3, 2]],
        ['another market of it', q({ eventId: EVENT_A, marketId: 2 }), [13, 9, 4]],
        ['a market the event does not have', q({ eventId: EVENT_A, marketId: 3 }), []],
        ['prices of two events', q({ priceIds: [1, 4] }), [11, 10, 7, 5, 2]],
        ['a price named twice counts once', q({ priceIds: [3, 3] }), [13, 9, 4]],
        ['no price', q({ priceIds: [] }), []],
        ['an unknown price', q({ priceIds: [99] }), []],
        ['up to an id, inclusive', q({ eventId: EVENT_A, uptoId: 8 }), [8, 7, 4, 3, 2]],
        ['up to an id between rows', q({ eventId: EVENT_A, uptoId: 12 }), [11, 9, 8, 7, 4, 3, 2]],
        ['up to an id before the first price row', q({ eventId: EVENT_A, uptoId: 1 }), []],
        ['prices up to an id', q({ priceIds: [1, 3], uptoId: 7 }), [7, 4, 2]],
        // Row 9 describes 25 s, so it is in the range although its id is above rows outside it.
        ['a time range, both ends inclusive', q({ eventId: EVENT_A, from: time(25), to: time(70) }), [9, 8, 7, 4]],
        ['from a time on', q({ eventId: EVENT_A, from: time(60) }), [13, 11, 8, 7]],
        ['up to a time', q({ eventId: EVENT_A, to: time(20) }), [3, 2]],
        ['main lines only', q({ eventId: EVENT_A, mainLineOnly: true }), [13, 11, 9, 7, 4, 2]],
        ['a plan’s books', q({ eventId: EVENT_A, coverage: { affiliateIds: [22] } }), [8, 3]],
        ['a plan’s markets', q({ eventId: EVENT_A, coverage: { marketIds: [2] } }), [13, 9, 4]],
        ['a plan’s periods', q({ eventId: EVENT_A, coverage: { periodIds: [0] } }), [11, 8, 7, 3, 2]],
        ['a plan covering no book', q({ priceIds: [1, 2], coverage: { affiliateIds: [] } }), []],
        [
          'a plan’s books and periods, of prices',
          q({ priceIds: [1, 2, 3], coverage: { affiliateIds: [19], periodIds: [0] } }),
          [11, 7, 2],
        ],
        ['main lines only, of prices', q({ priceIds: [1, 2], mainLineOnly: true }), [11, 7, 2]],
        ['the newest rows up to the limit', q({ eventId: EVENT_A, limit: 3 }), [13, 11, 9]],
        ['the newest rows of several prices up to the limit', q({ priceIds: [1, 2], limit: 2 }), [11, 8]],
        ['a limit of 0', q({ eventId: EVENT_A, limit: 0 }), []],
        [
          'market, main lines, time range and bound together',
          q({ eventId: EVENT_A, marketId: 1, mainLineOnly: true, from: time(10), to: time(60), uptoId: 10 }),
          [7, 2],
        ],
        [
          'the limit applies after the filters',
          q({ eventId: EVENT_A, marketId: 1, mainLineOnly: true, from: time(10), to: time(60), limit: 1 }),
          [7],
        ],
        [
          'prices, main lines, a time and a bound',
          q({ priceIds: [2, 3], mainLineOnly: true, to: time(30), uptoId: 12 }),
          [9, 4],
        ],
      ];
      for (const [title, query, expected] of cases) {
        it(title, async (t) => {
          const history = await withLog(t);
          assert.deepEqual(ids(await history.rows(query)), expected);
        });
      }

      it('gives each row’s id, price, Delta row and detail, and nothing else', async (t) => {
        const history = await withLog(t);
        const byId = new Map(log().map((r) => [r.id, r]));
        assert.deepEqual(
          await history.rows(q({ eventId: EVENT_B })),
          [10, 5].map((id) => record(byId.get(id)!)),
        );
      });
    });

    describe('firstRows', () => {
      const cases: [string, number[], number, number[]][] = [
        ['the first row of each price', [1, 2, 3, 4], HEAD, [2, 3, 4, 5]],
        ['prices first written after uptoId are left out', [1, 2, 3, 4], 3, [2, 3]],
        ['a first row exactly at uptoId is in', [3], 4, [4]],
        ['an unknown price is left out', [1, 99], HEAD, [2]],
        ['no price', [], HEAD, []],
      ];
      for (const [title, priceIds, uptoId, expected] of cases) {
        it(title, async (t) => {
          const history = await withLog(t);
          assert.deepEqual(sortedIds(await history.firstRows(priceIds, uptoId)), expected);
        });
      }

      it('gives whole records', async (t) => {
        const history = await withLog(t);
        assert.deepEqual(await history.firstRows([4], HEAD), [record(nth(log(), 4))]);
      });
    });

    describe('lastRowsAtOrBefore', () => {
      const cases: [string, number[], string, number, number[]][] = [
        ['the last row of each price, the cutoff after all', [1, 2, 3, 4], time(1000), HEAD, [8, 10, 11, 13]],
        ['the last row at or before the cutoff, inclusive', [1, 2, 3, 4], time(60), HEAD, [3, 5, 7, 9]],
        // Rows 4 (30 s) and 9 (25 s) are both before the cutoff: the later written one wins.
        ['the last written row wins over a later described one', [3], time(30), HEAD, [9]],
        ['only rows up to uptoId', [1, 2, 3, 4], time(1000), 8, [4, 5, 7, 8]],
        ['a cutoff equal to the first row’s time', [1], time(10), HEAD, [2]],
        ['a cutoff before every row', [1, 2, 3, 4], time(5), HEAD, []],
        ['a price first written after uptoId', [3], time(1000), 3, []],
        ['an unknown price is left out', [4, 99], time(1000), HEAD, [10]],
        ['no price', [], time(1000), HEAD, []],
      ];
      for (const [title, priceIds, cutoff, uptoId, expected] of cases) {
        it(title, async (t) => {
          const history = await withLog(t);
          assert.deepEqual(sortedIds(await history.lastRowsAtOrBefore(priceIds, cutoff, uptoId)), expected);
        });
      }

      it('gives whole records', async (t) => {
        const history = await withLog(t);
        assert.deepEqual(await history.lastRowsAtOrBefore([2], time(60), HEAD), [record(nth(log(), 2))]);
      });
    });
  });
}
