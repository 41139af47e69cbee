import assert from 'node:assert/strict';
import { describe, it, type TestContext } from 'node:test';
import { Rng } from '../../src/feeds/simulator/rng.ts';
import { BACKUP_OF_META, beginEpochIfRestored, EPOCH_GAP, epochGaps } from '../../src/ops/backup.ts';
import {
  EPOCH_META,
  type ChangeQuery,
  type ChangeRecord,
  type LoadedState,
  type LoadOptions,
  type OpenCommit,
  type PriceRowSummary,
  type Store,
} from '../../src/store/store.ts';
import { openCommit } from '../../src/store/open-commit.ts';
import type { CompactResult } from '../../src/store/retention.ts';
import { nth } from '../helpers/nth.ts';
import {
  BASE_MS,
  batch,
  catalogRow,
  seasonRow,
  EVENT_A,
  EVENT_B,
  eventRecord,
  eventRow,
  marketRecord,
  playRow,
  priceRow,
  scoreRow,
  statRow,
  time,
} from './fixtures.ts';

export interface StoreFixture {
  store: Store;
  /** The same data opened again after `store` is closed; absent for a store that lives in the process. */
  reopen?: () => Promise<Store>;
  cleanup(): Promise<void>;
}

const NO_REOPEN = 'this store lives in the process: there is nothing to reopen';
const EVENT_C = 'c'.repeat(32);
const EVERY_ID = Number.MAX_SAFE_INTEGER;

/**
 * Three events (A and B of sport 4, C of sport 1), every kind of row, sparse ids, five prices of which
 * three change again. Ids in the comments are the ones the cases below expect.
 */
function mixedLog(): ChangeRecord[] {
  return [
    eventRow({ id: 1 }),
    priceRow({ id: 2, price_id: 1, affiliate_id: 19, market_id: 1 }),
    priceRow({ id: 3, price_id: 2, affiliate_id: 22, market_id: 1 }),
    eventRow({ id: 5, event_id: EVENT_C, sport_id: 1 }),
    priceRow({ id: 6, price_id: 3, event_id: EVENT_C, sport_id: 1, affiliate_id: 19, market_id: 2 }),
    scoreRow({ id: 7, home: 3 }),
    priceRow({ id: 8, price_id: 1, affiliate_id: 19, market_id: 1, price: -120 }),
    priceRow({ id: 10, price_id: 4, event_id: EVENT_B, affiliate_id: 22, market_id: 3, period_id: 1 }),
    priceRow({ id: 11, price_id: 3, event_id: EVENT_C, sport_id: 1, affiliate_id: 19, market_id: 2 }),
    scoreRow({ id: 12, event_id: EVENT_C, sport_id: 1, away: 1 }),
    priceRow({ id: 14, price_id: 2, affiliate_id: 22, market_id: 1, price: -105 }),
    priceRow({ id: 15, price_id: 5, event_id: EVENT_B, affiliate_id: 7, market_id: 2 }),
  ];
}

const MIXED_IDS = [1, 2, 3, 5, 6, 7, 8, 10, 11, 12, 14, 15];
const MIXED_PRICE_IDS = [2, 3, 6, 8, 10, 11, 14, 15];

function query(q: Partial<ChangeQuery> = {}): ChangeQuery {
  return { pricesOnly: false, afterId: 0, toId: EVERY_ID, limit: 1000, ...q };
}

const ids = (rows: readonly { id: number }[]): number[] => rows.map((r) => r.id);

/** A load with its paged sources read to the end, as arrays. */
type Loaded = Omit<LoadedState, 'latestPrices' | 'statRows'> & {
  latestPrices: ChangeRecord[];
  statRows: ChangeRecord[];
};

async function loadAll(store: Store, uptoId?: number, opts?: LoadOptions): Promise<Loaded> {
  const loaded = await store.load(uptoId, opts);
  const all = async (rows: AsyncIterable<ChangeRecord>) => {
    const out: ChangeRecord[] = [];
    for await (const r of rows) out.push(r);
    return out;
  };
  return { ...loaded, latestPrices: await all(loaded.latestPrices), statRows: await all(loaded.statRows) };
}

/** What a reader can see of a store, with the parts whose order the contract leaves open sorted. */
async function visible(store: Store): Promise<{ changes: ChangeRecord[]; loaded: Loaded }> {
  const changes = await store.readChanges(query());
  const loaded = await loadAll(store);
  loaded.events.sort((a, b) => a.event_id.localeCompare(b.event_id));
  loaded.markets.sort((a, b) => a.id - b.id);
  loaded.latestPrices.sort((a, b) => a.price_id! - b.price_id!);
  return { changes, loaded };
}

/**
 * Compaction steps until none is left, with the ids scanned and rows dropped summed: a store may end
 * a step early on a time budget (SQLite's does, after 8 ms), so one step need not finish.
 */
async function compactToEnd(store: Store, cutoffMs: number, maxRows = 1000): Promise<CompactResult> {
  const total: CompactResult = { scanned: 0, dropped: 0, oldestId: 0, more: true };
  while (total.more) {
    const r = await store.compact({ cutoffMs, maxRows });
    total.scanned += r.scanned;
    total.dropped += r.dropped;
    total.oldestId = r.oldestId;
    total.more = r.more;
  }
  return total;
}

export function storeContract(name: string, make: () => Promise<StoreFixture>): void {
  describe(`Store contract: ${name}`, () => {
    /** A fresh store for one case, cleaned up when the case ends. */
    async function fresh(t: TestContext): Promise<StoreFixture> {
      const f = await make();
      t.after(() => f.cleanup());
      return f;
    }

    async function withMixedLog(t: TestContext): Promise<Store> {
      const { store } = await fresh(t);
      await store.commit(batch(mixedLog()));
      return store;
    }

    describe('commit', () => {
      it('an empty store has no rows, events, markets or prices, and a head of 0', async (t) => {
        const { store } = await fresh(t);
        const loaded = await loadAll(store);
        assert.deepEqual(
          { ...loaded, epoch: undefined },
          {
            epoch: undefined,
            events: [],
            markets: [],
            latestPrices: [],
            maxPriceId: 0,
            headId: 0,
            headCommittedMs: 0,
            playCounts: [],
            statRows: [],
            futures: [],
            catalog: [],
            seasonRecords: [],
            archived: { events: [], seasonTotals: [] },
          },
        );
        assert.deepEqual(await store.readChanges(query()), []);
      });

      it('keeps every row as committed, with the ledger’s ids, and reads them in id order', async (t) => {
        const { store } = await fresh(t);
        const log = mixedLog();
        // Listed out of order within each batch: the store orders by id, not by position.
        await store.commit(batch([3, 0, 2, 1].map((i) => nth(log, i))));
        await store.commit(batch(log.slice(4).reverse()));
        assert.deepEqual(await store.readChanges(query()), log);
        const loaded = await store.load();
        assert.equal(loaded.headId, 15);
        assert.equal(loaded.headCommittedMs, log.at(-1)!.committed_ms);
      });

      it('keeps the rows as committed, whatever the caller then does with its objects', async (t) => {
        const { store } = await fresh(t);
        const log = mixedLog();
        const committed = structuredClone(log);
        await store.commit(batch(committed));
        nth(committed, 1).payload = 'changed by the committer';
        const read = await store.readChanges(query());
        nth(read, 1).payload = 'changed by a reader';
        nth((await loadAll(store)).latestPrices, 0).payload = 'changed by a loader';
        assert.deepEqual(await store.readChanges(query()), log);
      });

      it('keeps payloads and details holding backslashes, tabs, newlines and carriage returns byte for byte', async (t) => {
        const { store } = await fresh(t);
        const texts = ['back\\slash', 'tab\t', 'new\nline', 'carriage\rreturn', '\\N', '\\\t\n\r\\n', ''];
        const rows = texts.map((text, i) => ({
          ...priceRow({ id: i + 1, price_id: i + 1 }),
          payload: `{"x":${JSON.stringify(text)},"raw":"${text}"}`,
          detail: text,
        }));
        await store.commit(batch(rows));
        assert.deepEqual(await store.readChanges(query()), rows);
      });

      it('a later commit of an event replaces it; markets accumulate', async (t) => {
        const { store } = await fresh(t);
        const log = mixedLog();
        await store.commit(
          batch(log.slice(0, 5), {
            events: [eventRecord(EVENT_A, 1), eventRecord(EVENT_C, 5, 1)],
            markets: [marketRecord(1, EVENT_A, 1), marketRecord(2, EVENT_C, 2)],
          }),
        );
        await store.commit(
          batch(log.slice(5), {
            events: [eventRecord(EVENT_A, 7), eventRecord(EVENT_B, 10)],
            markets: [marketRecord(3, EVENT_B, 3), marketRecord(4, EVENT_B, 2)],
          }),
        );
        const { loaded } = await visible(store);
        assert.deepEqual(loaded.events, [
          eventRecord(EVENT_A, 7),
          eventRecord(EVENT_B, 10),
          eventRecord(EVENT_C, 5, 1),
        ]);
        assert.deepEqual(loaded.markets, [
          marketRecord(1, EVENT_A, 1),
          marketRecord(2, EVENT_C, 2),
          marketRecord(3, EVENT_B, 3),
          marketRecord(4, EVENT_B, 2),
        ]);
      });

      /** Commits a first batch, tries `refused`, and checks that it was refused and left no trace. */
      async function assertRefused(t: TestContext, first: ChangeRecord[], refused: ChangeRecord[]) {
        const { store } = await fresh(t);
        const events = [eventRecord(EVENT_A, nth(first, 0).id)];
        await store.commit(batch(first, { events, markets: [marketRecord(1, EVENT_A, 1)] }));
        const before = await visible(store);
        // The refused batch brings a new event and market too: neither may be kept.
        const more = {
          events: [eventRecord(EVENT_B, nth(refused, 0).id)],
          markets: [marketRecord(9, EVENT_B, 9)],
        };
        await assert.rejects(store.commit(batch(refused, more)));
        assert.deepEqual(await visible(store), before);
        // The refusal left nothing half done: the next good batch goes in.
        const next = before.loaded.headId + 100;
        await store.commit(batch([priceRow({ id: next, price_id: 77 })]));
        assert.deepEqual(ids(await store.readChanges(query({ afterId: before.loaded.headId }))), [next]);
      }

      it('refuses a whole batch that holds one id twice', async (t) => {
        await assertRefused(
          t,
          [priceRow({ id: 1, price_id: 1 })],
          [2, 3, 3].map((id, i) => priceRow({ id, price_id: 2 + i })),
        );
      });

      it('refuses a whole batch that repeats an id already stored', async (t) => {
        await assertRefused(
          t,
          [priceRow({ id: 1, price_id: 1 }), priceRow({ id: 2, price_id: 2 })],
          [priceRow({ id: 3, price_id: 3 }), scoreRow({ id: 2 })],
        );
      });

      it('refuses a whole batch with an id below the head, even one never used', async (t) => {
        await assertRefused(
          t,
          [priceRow({ id: 1, price_id: 1 }), priceRow({ id: 5, price_id: 2 })],
          [priceRow({ id: 3, price_id: 3 }), priceRow({ id: 6, price_id: 4 })],
        );
      });

      it('refuses a whole batch that adds a market instance already kept', async (t) => {
        const { store } = await fresh(t);
        await store.commit(batch([eventRow({ id: 1 })], { markets: [marketRecord(1, EVENT_A, 1)] }));
        const before = await visible(store);
        // The same instance id, then a new id for the same event, market and period.
        for (const market of [marketRecord(1, EVENT_B, 2), marketRecord(2, EVENT_A, 1)]) {
          const refused = batch([priceRow({ id: 2, price_id: 1 })], { markets: [market] });
          await assert.rejects(store.commit(refused));
          assert.deepEqual(await visible(store), before);
        }
        // Another period of the same market is another instance.
        const otherPeriod = marketRecord(2, EVENT_A, 1, 1);
        await store.commit(batch([priceRow({ id: 2, price_id: 1 })], { markets: [otherPeriod] }));
        assert.equal((await store.load()).markets.length, 2);
      });
    });

    describe('open commit', () => {
      /** The store's own open commit, or the one made of its `commit` (src/store/open-commit.ts). */
      const parts = (store: Store, rows: ChangeRecord[][]): OpenCommit => {
        const open = openCommit(store);
        for (const part of rows) open.add(part);
        return open;
      };
      const more = {
        events: [eventRecord(EVENT_A, 7), eventRecord(EVENT_B, 10)],
        markets: [marketRecord(1, EVENT_A, 1)],
      };

      it('rows added in parts, then finished, are what one commit of them writes', async (t) => {
        const log = mixedLog();
        const whole = (await fresh(t)).store;
        await whole.commit(batch(log, more));
        const { store } = await fresh(t);
        await parts(store, [log.slice(0, 3), [], log.slice(3, 9), log.slice(9)]).finish(batch([], more));
        const [a, b] = [await visible(whole), await visible(store)];
        assert.deepEqual({ ...b, loaded: { ...b.loaded, epoch: '' } }, { ...a, loaded: { ...a.loaded, epoch: '' } });
      });

      it('an abort writes none of the rows added, and the same ids commit next', async (t) => {
        const { store } = await fresh(t);
        await store.commit(batch([priceRow({ id: 1, price_id: 1 })]));
        const before = await visible(store);
        const rows = [2, 3, 4].map((id) => priceRow({ id, price_id: id }));
        await parts(store, [rows.slice(0, 2), rows.slice(2)]).abort();
        assert.deepEqual(await visible(store), before);
        await store.commit(batch(rows));
        assert.deepEqual(ids(await store.readChanges(query())), [1, 2, 3, 4]);
      });

      /** Adds `first`, then `refused` to an open commit, finishes it with a new event and market, and checks it left no trace. */
      async function assertRefused(t: TestContext, first: ChangeRecord[], refused: ChangeRecord[], market = 9) {
        const { store } = await fresh(t);
        await store.commit(batch([priceRow({ id: 1, price_id: 1 })], { markets: [marketRecord(1, EVENT_A, 1)] }));
        const before = await visible(store);
        const rest = { events: [eventRecord(EVENT_B, nth(first, 0).id)], markets: [marketRecord(market, EVENT_B, 9)] };
        await assert.rejects(parts(store, [first, refused]).finish(batch([], rest)));
        assert.deepEqual(await visible(store), before);
        // Nothing was left half done: the first part's ids and market go in next.
        await store.commit(batch(first, { markets: [marketRecord(9, EVENT_B, 9)] }));
        assert.deepEqual(ids(await store.readChanges(query({ afterId: 1 }))), ids(first));
      }

      it('a later part that repeats an id of an earlier one refuses every part', async (t) => {
        await assertRefused(
          t,
          [priceRow({ id: 2, price_id: 2 }), priceRow({ id: 3, price_id: 3 })],
          [scoreRow({ id: 3 })],
        );
      });

      it('a later part with an id at or below the head refuses every part', async (t) => {
        await assertRefused(t, [priceRow({ id: 2, price_id: 2 })], [priceRow({ id: 1, price_id: 3 })]);
      });

      it('a market instance already kept, found at finish, refuses every part', async (t) => {
        await assertRefused(t, [priceRow({ id: 2, price_id: 2 })], [priceRow({ id: 3, price_id: 3 })], 1);
      });
    });

    describe('load', () => {
      it('gives the newest row of every price, the events, the markets and the head', async (t) => {
        const { store } = await fresh(t);
        const log = mixedLog();
        await store.commit(batch(log, { events: [eventRecord(EVENT_A, 1)], markets: [marketRecord(1, EVENT_A, 1)] }));
        const { loaded } = await visible(store);
        const byId = new Map(log.map((r) => [r.id, r]));
        // Prices 1 to 5 last changed at ids 8, 14, 11, 10 and 15.
        assert.deepEqual(
          loaded.latestPrices,
          [8, 14, 11, 10, 15].map((id) => byId.get(id)),
        );
        assert.deepEqual(loaded.events, [eventRecord(EVENT_A, 1)]);
        assert.deepEqual(loaded.markets, [marketRecord(1, EVENT_A, 1)]);
        assert.equal(loaded.headId, 15);
        assert.equal(loaded.headCommittedMs, byId.get(15)!.committed_ms);
      });

      it('gives every catalog row of the log in id order, also when loading up to an earlier id', async (t) => {
        const { store } = await fresh(t);
        const rows = [
          catalogRow({ id: 1, affiliate_id: 77, name: 'First' }),
          eventRow({ id: 2 }),
          catalogRow({ id: 3, affiliate_id: 78, name: 'Other' }),
          priceRow({ id: 4, price_id: 1 }),
          catalogRow({ id: 5, affiliate_id: 77, name: 'Renamed' }),
        ];
        await store.commit(batch(rows, { events: [eventRecord(EVENT_A, 2)] }));
        const catalog = [rows[0], rows[2], rows[4]];
        assert.deepEqual((await loadAll(store)).catalog, catalog);
        // Reference data is served as it is now: a load of an earlier head still has all of it.
        assert.deepEqual((await loadAll(store, 2, { asOfOnly: [EVENT_A] })).catalog, catalog);
        assert.deepEqual((await loadAll(store)).events, [eventRecord(EVENT_A, 2)]);
      });

      it('gives every season row of the log in id order, whatever the head loaded', async (t) => {
        const { store } = await fresh(t);
        const rows = [
          seasonRow({ id: 1, team_id: 2014, season_type: 2, points: 10 }),
          eventRow({ id: 2 }),
          seasonRow({ id: 3, team_id: 2014, season_type: 2, points: 12 }),
          seasonRow({ id: 4, team_id: 2002, season_type: 2, points: 9 }),
        ];
        await store.commit(batch(rows, { events: [eventRecord(EVENT_A, 2)] }));
        const seasons = [rows[0], rows[2], rows[3]];
        assert.deepEqual((await loadAll(store)).seasonRecords, seasons);
        // The board takes those up to its head (board/apply.ts), the rest with the rows after it.
        assert.deepEqual((await loadAll(store, 2, { asOfOnly: [EVENT_A] })).seasonRecords, seasons);
      });

      it('a head that is not a price row still counts as the head', async (t) => {
        const { store } = await fresh(t);
        await store.commit(batch([priceRow({ id: 4, price_id: 1 }), scoreRow({ id: 9, committed_ms: 123_456 })]));
        const loaded = await loadAll(store);
        assert.equal(loaded.headId, 9);
        assert.equal(loaded.headCommittedMs, 123_456);
        assert.deepEqual(ids(loaded.latestPrices), [4]);
      });

      it('up to an id: every price and event as the rows up to it left them', async (t) => {
        const store = await withMixedLog(t);
        const log = mixedLog();
        const byId = new Map(log.map((r) => [r.id, r]));
        const loaded = await loadAll(store, 8);
        assert.equal(loaded.headId, 8);
        assert.equal(loaded.maxPriceId, 3);
        assert.equal(loaded.headCommittedMs, byId.get(8)!.committed_ms);
        // Prices 1 to 3 last changed at ids 8, 3 and 6 by then; prices 4 and 5 did not exist.
        assert.deepEqual(
          [...loaded.latestPrices].sort((a, b) => a.price_id! - b.price_id!),
          [8, 3, 6].map((id) => byId.get(id)),
        );
        // Event A: header row 1 and score row 7; event C: header row 5 (its score came at 12).
        const events = [...loaded.events].sort((a, b) => a.event_id.localeCompare(b.event_id));
        assert.deepEqual(
          events.map((e) => [e.event_id, e.change_id, (JSON.parse(e.info) as { score?: unknown }).score]),
          [
            [EVENT_A, 7, { score_home: 3, score_away: 0 }],
            [EVENT_C, 5, undefined],
          ],
        );
        assert.deepEqual((await store.load(99)).headId, 15, 'an id at or past the head loads the head');
      });

      it('up to an id for the listed events only: every other one as of the head', async (t) => {
        const { store } = await fresh(t);
        const log = mixedLog();
        const byId = new Map(log.map((r) => [r.id, r]));
        // The ledger keeps each event's record as its last header or score row left it.
        await store.commit(batch(log, { events: [eventRecord(EVENT_A, 7), eventRecord(EVENT_C, 12, 1)] }));
        const loaded = await loadAll(store, 8, { asOfOnly: [EVENT_A] });
        assert.equal(loaded.headId, 8);
        assert.equal(loaded.headCommittedMs, byId.get(8)!.committed_ms);
        assert.equal(loaded.maxPriceId, 5, 'the whole log’s');
        // A's prices 1 and 2 as of id 8 (price 2 changed again at 14); C's price 3 and B's 4 and 5 as of the head.
        assert.deepEqual(
          [...loaded.latestPrices].sort((a, b) => a.price_id! - b.price_id!),
          [8, 3, 11, 10, 15].map((id) => byId.get(id)),
        );
        // A as its rows up to 8 left it; C as its record (score row 12); B has no header.
        const events = [...loaded.events].sort((a, b) => a.event_id.localeCompare(b.event_id));
        assert.deepEqual(
          events.map((e) => [e.event_id, e.change_id]),
          [
            [EVENT_A, 7],
            [EVENT_C, 12],
          ],
        );
        const asAll = await loadAll(store, 8, { asOfOnly: [EVENT_A, EVENT_B, EVENT_C] });
        const upTo8 = await loadAll(store, 8);
        assert.deepEqual(
          ids([...asAll.latestPrices].sort((a, b) => a.price_id! - b.price_id!)),
          ids([...upTo8.latestPrices].sort((a, b) => a.price_id! - b.price_id!)),
          'every event listed: the load up to the id',
        );
      });

      it('a score row without a live state keeps the one an earlier row set, as the live board does', async (t) => {
        const { store } = await fresh(t);
        const state = { inning: 7, outs: 2 };
        const scoreWith = (id: number, home: number, live?: Record<string, unknown> | null) => ({
          ...scoreRow({ id, home }),
          payload: JSON.stringify({ score: { score_home: home, score_away: 0 }, live_game_state: live }),
        });
        await store.commit(
          batch([
            eventRow({ id: 1 }),
            scoreWith(2, 1, state),
            priceRow({ id: 3, price_id: 1 }),
            scoreWith(4, 2),
            scoreWith(5, 3),
            scoreWith(6, 4, null),
            scoreWith(7, 5),
            priceRow({ id: 8, price_id: 1 }),
          ]),
        );
        // Loads below the head fold the rows (at the head the ledger's own event records are read).
        const infoAt = async (id: number) =>
          JSON.parse((await loadAll(store, id)).events[0]!.info) as {
            score?: { score_home: number };
            live_game_state?: unknown;
          };
        const at5 = await infoAt(5);
        assert.equal(at5.score?.score_home, 3);
        assert.deepEqual(at5.live_game_state, state, 'set at row 2, kept by rows 4 and 5');
        const at7 = await infoAt(7);
        assert.equal(at7.score?.score_home, 5);
        assert.equal(at7.live_game_state, undefined, 'cleared at row 6 and not set since');
      });
    });

    describe('epoch', () => {
      it('lastRowId is the newest row of the log, 0 when empty; rowCount counts its rows', async (t) => {
        const { store } = await fresh(t);
        assert.equal(await store.lastRowId(), 0);
        assert.equal(await store.rowCount(), 0);
        assert.deepEqual(await store.highestIds(), { priceId: 0, marketId: 0 });
        await store.commit(batch(mixedLog()));
        assert.equal(await store.lastRowId(), 15);
        assert.equal(await store.rowCount(), mixedLog().length);
      });

      it('a restored copy begins a new epoch once, its ids past a gap after its last row', async (t) => {
        const { store } = await fresh(t);
        await store.commit(batch(mixedLog()));
        const copied = (await store.load()).epoch;
        await store.setMeta(BACKUP_OF_META, copied);
        const began = await beginEpochIfRestored(store);
        assert.ok(began);
        assert.deepEqual(began.gap, { from: 15, to: 15 + EPOCH_GAP, epoch: began.epoch });
        assert.equal((await store.load()).epoch, began.epoch);
        assert.deepEqual(await epochGaps(store), [began.gap]);
        assert.equal(await beginEpochIfRestored(store), undefined, 'a later start keeps the epoch');
      });

      it('is made by the first load and kept by every later one', async (t) => {
        const { store } = await fresh(t);
        assert.equal(await store.getMeta(EPOCH_META), undefined);
        const epoch = (await store.load()).epoch;
        assert.ok(epoch.length > 0);
        assert.equal(await store.getMeta(EPOCH_META), epoch);
        await store.commit(batch(mixedLog()));
        assert.equal((await store.load()).epoch, epoch);
      });

      it('differs from one new log to the next', async (t) => {
        const a = await fresh(t);
        const b = await fresh(t);
        assert.notEqual((await a.store.load()).epoch, (await b.store.load()).epoch);
      });

      it('is the one set when a log is reset or restored', async (t) => {
        const { store } = await fresh(t);
        await store.load();
        await store.setMeta(EPOCH_META, 'restored-epoch');
        assert.equal((await store.load()).epoch, 'restored-epoch');
      });

      it('is kept when the store is opened again', async (t) => {
        const f = await fresh(t);
        if (!f.reopen) return t.skip(NO_REOPEN);
        const epoch = (await f.store.load()).epoch;
        await f.store.close();
        const again = await f.reopen();
        assert.equal((await again.load()).epoch, epoch);
      });
    });

    describe('named batches', () => {
      const mark = (id: string, headId: number) => ({ id, headId, committedMs: BASE_MS });

      it('keeps a batch id with its rows, and refuses it a second time with nothing written', async (t) => {
        const { store } = await fresh(t);
        assert.equal(await store.batchHead('b-1'), undefined);
        await store.commit({ ...batch([eventRow({ id: 1 }), scoreRow({ id: 2, home: 1 })]), batch: mark('b-1', 2) });
        assert.equal(await store.batchHead('b-1'), 2);
        await assert.rejects(store.commit({ ...batch([scoreRow({ id: 3, home: 2 })]), batch: mark('b-1', 3) }));
        assert.deepEqual(ids(await store.readChanges(query())), [1, 2]);
        assert.equal(await store.batchHead('b-1'), 2);
      });

      it('keeps no batch id of a refused commit', async (t) => {
        const { store } = await fresh(t);
        await store.commit(batch([eventRow({ id: 5 })]));
        // Id 4 is below the head: the commit is refused, and its batch id with it.
        await assert.rejects(store.commit({ ...batch([scoreRow({ id: 4, home: 1 })]), batch: mark('b-2', 4) }));
        assert.equal(await store.batchHead('b-2'), undefined);
      });

      it('keeps a batch without rows, and its id across a reopen', async (t) => {
        const f = await fresh(t);
        await f.store.commit({ ...batch([eventRow({ id: 1 })]), batch: mark('b-3', 1) });
        await f.store.commit({ ...batch([]), batch: mark('b-4', 1) });
        assert.equal(await f.store.batchHead('b-4'), 1);
        if (!f.reopen) return t.skip(NO_REOPEN);
        await f.store.close();
        const again = await f.reopen();
        assert.equal(await again.batchHead('b-3'), 1);
        assert.equal(await again.batchHead('b-4'), 1);
      });
    });

    describe('plays and stats', () => {
      /** Plays 1-3 of A, 1 of B, stat rows of A between them (ids 2, 4, 6, 8). */
      async function gameLog(t: TestContext): Promise<Store> {
        const { store } = await fresh(t);
        await store.commit(
          batch([
            playRow({ id: 1, sequence: 1 }),
            statRow({ id: 2, stat_id: 4001, value: 2 }),
            playRow({ id: 3, sequence: 2 }),
            statRow({ id: 4, stat_id: 4001, value: 5, player_id: 200201 }),
            priceRow({ id: 5, price_id: 1 }),
            statRow({ id: 6, stat_id: 4001, value: 5 }),
            playRow({ id: 7, sequence: 1, event_id: EVENT_B }),
            playRow({ id: 8, sequence: 3 }),
          ]),
        );
        return store;
      }
      const sequences = (page: Buffer) =>
        (JSON.parse(`[${page.toString()}]`) as { sequence: number }[]).map((p) => p.sequence);

      it('reads an event’s plays by number, newest first, whatever the other rows between them', async (t) => {
        const store = await gameLog(t);
        assert.deepEqual(sequences(await store.readPlays(EVENT_A, 1, 3)), [3, 2, 1]);
        assert.deepEqual(sequences(await store.readPlays(EVENT_A, 2, 2)), [2]);
        assert.deepEqual(sequences(await store.readPlays(EVENT_A, 3, 9)), [3], 'past the last play: none');
        assert.deepEqual(sequences(await store.readPlays(EVENT_B, 1, 500)), [1]);
        assert.equal((await store.readPlays(EVENT_A, 3, 2)).length, 0, 'an empty range');
        assert.equal((await store.readPlays(EVENT_C, 1, 500)).length, 0);
      });

      it('reads an event’s stat rows up to an id, and loads play counts and each value’s newest stat row', async (t) => {
        const store = await gameLog(t);
        assert.deepEqual(
          (await store.readStats(EVENT_A, 4)).map((r) => r.id),
          [2, 4],
        );
        assert.deepEqual(
          (await store.readStats(EVENT_A, EVERY_ID)).map((r) => r.id),
          [2, 4, 6],
        );
        assert.deepEqual(await store.readStats(EVENT_B, EVERY_ID), []);
        const loaded = await loadAll(store);
        assert.deepEqual(
          [...loaded.playCounts].sort((a, b) => a.event_id.localeCompare(b.event_id)),
          [
            { event_id: EVENT_A, plays: 3 },
            { event_id: EVENT_B, plays: 1 },
          ],
        );
        // Rows 2 and 6 set the same value: its newest row, in the place of its first.
        assert.deepEqual(
          loaded.statRows.map((r) => r.id),
          [6, 4],
        );
        const early = await loadAll(store, 4);
        assert.deepEqual(early.playCounts, [{ event_id: EVENT_A, plays: 2 }]);
        assert.deepEqual(
          early.statRows.map((r) => r.id),
          [2, 4],
        );
        // Up to 4 for A only: B's play (row 7) as of the head.
        const earlyA = await loadAll(store, 4, { asOfOnly: [EVENT_A] });
        assert.deepEqual(
          [...earlyA.playCounts].sort((a, b) => a.event_id.localeCompare(b.event_id)),
          [
            { event_id: EVENT_A, plays: 2 },
            { event_id: EVENT_B, plays: 1 },
          ],
        );
        assert.deepEqual(
          earlyA.statRows.map((r) => r.id),
          [2, 4],
        );
        // Up to 4 for B only: A's plays and stat rows as of the head.
        const earlyB = await loadAll(store, 4, { asOfOnly: [EVENT_B] });
        assert.deepEqual(earlyB.playCounts, [{ event_id: EVENT_A, plays: 3 }]);
        assert.deepEqual(
          earlyB.statRows.map((r) => r.id),
          [6, 4],
        );
      });

      it('a load keeps a player’s name, said only by the first row of a value it hands out newer', async (t) => {
        const { store } = await fresh(t);
        const named = { display_name: 'Aaron Griffin', position: 'PG' };
        await store.commit(
          batch([
            statRow({ id: 1, stat_id: 4001, value: 2, player_id: 200201, named }),
            statRow({ id: 2, stat_id: 4002, value: 1, player_id: 200201 }),
            statRow({ id: 3, stat_id: 4001, value: 4, player_id: 200201 }),
          ]),
        );
        const loaded = await loadAll(store);
        assert.deepEqual(
          loaded.statRows.map((r) => r.id),
          [3, 2],
        );
        const first = JSON.parse(loaded.statRows[0]!.payload) as Record<string, unknown>;
        assert.deepEqual(
          { value: first.value, display_name: first.display_name, position: first.position },
          { value: '4', ...named },
        );
        assert.equal((JSON.parse(loaded.statRows[1]!.payload) as Record<string, unknown>).display_name, undefined);
      });

      it('a box a feed sets (stat rows before any play, a value set lower) loads as last set', async (t) => {
        const { store } = await fresh(t);
        await store.commit(
          batch([
            statRow({ id: 1, stat_id: 4001, value: 12 }),
            statRow({
              id: 2,
              stat_id: 4001,
              value: 9,
              player_id: 200202,
              named: { display_name: 'Bo Cruz', position: 'C' },
            }),
            statRow({
              id: 3,
              stat_id: 4001,
              value: 3,
              player_id: 200201,
              named: { display_name: 'Al Tan', position: 'G' },
            }),
          ]),
        );
        await store.commit(
          batch([
            playRow({ id: 4, sequence: 1 }),
            statRow({ id: 5, stat_id: 4001, value: 7, player_id: 200202 }),
            statRow({ id: 6, stat_id: 4001, value: 10 }),
            playRow({ id: 7, sequence: 2 }),
          ]),
        );
        const loaded = await loadAll(store);
        assert.deepEqual(loaded.playCounts, [{ event_id: EVENT_A, plays: 2 }]);
        // Each value's newest row, in the order of the values' first rows, a player named by his first.
        assert.deepEqual(
          loaded.statRows.map((r) => {
            const v = JSON.parse(r.payload) as { value: string; display_name?: string };
            return [r.id, v.value, v.display_name];
          }),
          [
            [6, '10', undefined],
            [5, '7', 'Bo Cruz'],
            [3, '3', 'Al Tan'],
          ],
        );
        assert.deepEqual(sequences(await store.readPlays(EVENT_A, 1, 500)), [2, 1], 'plays by number, stat rows apart');
      });

      it('a load hands out every latest price and stat row, however many pages they take', async (t) => {
        const { store } = await fresh(t);
        // 12,000 prices, the first 500 changed twice; 11,000 stat rows over two events.
        const rows: ChangeRecord[] = [];
        for (let p = 1; p <= 12_000; p++) rows.push(priceRow({ id: rows.length + 1, price_id: p }));
        for (let p = 1; p <= 500; p++) rows.push(priceRow({ id: rows.length + 1, price_id: p, price: 120 }));
        for (let i = 0; i < 11_000; i++) {
          rows.push(statRow({ id: rows.length + 1, event_id: i % 2 ? EVENT_B : EVENT_A, stat_id: i, value: i }));
        }
        await store.commit(batch(rows));
        const loaded = await loadAll(store);
        assert.equal(loaded.maxPriceId, 12_000);
        assert.deepEqual(
          loaded.latestPrices.map((r) => r.price_id),
          Array.from({ length: 12_000 }, (_, i) => i + 1),
        );
        assert.deepEqual(
          loaded.latestPrices.filter((r) => r.id > 12_000).map((r) => r.price_id),
          Array.from({ length: 500 }, (_, i) => i + 1),
          'a price changed twice loads its newest row',
        );
        const stats = loaded.statRows;
        assert.equal(stats.length, 11_000);
        // Each event's rows together and in id order (the order the box scores are folded in).
        const byEvent = [EVENT_A, EVENT_B].map((e) => stats.filter((r) => r.event_id === e).map((r) => r.id));
        for (const list of byEvent)
          assert.deepEqual(
            list,
            [...list].sort((a, b) => a - b),
          );
        const runs = stats.filter((r, i) => i === 0 || stats[i - 1]!.event_id !== r.event_id).length;
        assert.equal(runs, 2, 'one run of rows per event');
      });
    });

    describe('fill', () => {
      it('each commit of a fill is read back at once; a refused one leaves no trace; all are kept once it ends', async (t) => {
        const f = await fresh(t);
        const log = mixedLog();
        const result = await f.store.fill(async () => {
          await f.store.commit(batch(log.slice(0, 4), { events: [eventRecord(EVENT_A, 1)] }));
          assert.deepEqual(await f.store.readChanges(query()), log.slice(0, 4));
          await assert.rejects(f.store.commit(batch([nth(log, 2)])));
          await f.store.commit(batch(log.slice(4), { markets: [marketRecord(1, EVENT_A, 1)] }));
          assert.deepEqual(ids(await f.store.readChanges(query())), MIXED_IDS);
          return 'filled';
        });
        assert.equal(result, 'filled');
        const after = await visible(f.store);
        assert.deepEqual(after.changes, log);
        if (!f.reopen) return;
        await f.store.close();
        assert.deepEqual(await visible(await f.reopen()), after);
      });

      it('a fill that fails keeps whole batches only, and the store takes commits after it', async (t) => {
        const { store } = await fresh(t);
        const log = mixedLog();
        await store.commit(batch(log.slice(0, 2)));
        await assert.rejects(
          store.fill(async () => {
            await store.commit(batch(log.slice(2, 6)));
            await store.commit(batch(log.slice(6, 9)));
            throw new Error('the feed failed');
          }),
          /the feed failed/,
        );
        const kept = ids(await store.readChanges(query()));
        // What a store keeps of the failed fill depends on where its groups ended, never half a batch.
        assert.ok(
          [2, 6, 9].some((n) => kept.join() === MIXED_IDS.slice(0, n).join()),
          `kept ${kept.join()}`,
        );
        await store.commit(batch(log.slice(9)));
        assert.deepEqual(ids(await store.readChanges(query())).slice(-3), [12, 14, 15]);
      });

      it('one fill at a time', async (t) => {
        const { store } = await fresh(t);
        await store.fill(async () => {
          await assert.rejects(
            store.fill(async () => undefined),
            /already running/,
          );
        });
        assert.equal(await store.fill(async () => 'again'), 'again');
      });
    });

    describe('durability', () => {
      it('rows, events, markets and meta committed before a close are there after reopening', async (t) => {
        const f = await fresh(t);
        if (!f.reopen) return t.skip(NO_REOPEN);
        await f.store.commit(
          batch(mixedLog(), { events: [eventRecord(EVENT_A, 1)], markets: [marketRecord(1, EVENT_A, 1)] }),
        );
        await f.store.setMeta('owner', 'contract');
        const before = await visible(f.store);
        await f.store.close();
        const again = await f.reopen();
        assert.deepEqual(await visible(again), before);
        assert.equal(await again.getMeta('owner'), 'contract');
      });
    });

    describe('meta', () => {
      it('reads back what was set, the last value winning, each key apart', async (t) => {
        const { store } = await fresh(t);
        assert.equal(await store.getMeta('a'), undefined);
        await store.setMeta('a', '1');
        await store.setMeta('b', '');
        assert.equal(await store.getMeta('a'), '1');
        await store.setMeta('a', '2');
        assert.equal(await store.getMeta('a'), '2');
        assert.equal(await store.getMeta('b'), '');
      });
    });

    describe('readChanges', () => {
      const cases: [string, Partial<ChangeQuery>, number[]][] = [
        ['every kind', {}, MIXED_IDS],
        ['price rows only', { pricesOnly: true }, MIXED_PRICE_IDS],
        ['one sport', { sportId: 1 }, [5, 6, 11, 12]],
        ['one sport, price rows only', { sportId: 4, pricesOnly: true }, [2, 3, 8, 10, 14, 15]],
        ['one event', { eventId: EVENT_A }, [1, 2, 3, 7, 8, 14]],
        ['one event, price rows only', { eventId: EVENT_A, pricesOnly: true }, [2, 3, 8, 14]],
        ['an event with no row', { eventId: 'f'.repeat(32) }, []],
        ['several events', { eventIds: [EVENT_B, EVENT_C] }, [5, 6, 10, 11, 12, 15]],
        ['several events, price rows only', { eventIds: [EVENT_C, EVENT_A], pricesOnly: true }, [2, 3, 6, 8, 11, 14]],
        ['an empty event list matches nothing', { eventIds: [] }, []],
        ['one book (rows without a book never match)', { affiliateIds: [22] }, [3, 10, 14]],
        ['several books', { affiliateIds: [19, 7] }, [2, 6, 8, 11, 15]],
        ['one market', { marketIds: [2] }, [6, 11, 15]],
        ['several markets', { marketIds: [1, 3] }, [2, 3, 8, 10, 14]],
        ['an empty book list matches nothing', { affiliateIds: [] }, []],
        ['an empty market list matches nothing', { marketIds: [] }, []],
        ['an empty period list matches nothing', { periodIds: [] }, []],
        ['one period (rows without a period never match)', { periodIds: [1] }, [10]],
        ['the full game', { periodIds: [0] }, [2, 3, 6, 8, 11, 14, 15]],
        ['period and book', { periodIds: [0], affiliateIds: [22] }, [3, 14]],
        ['sport, book and market', { sportId: 4, affiliateIds: [22], marketIds: [1] }, [3, 14]],
        ['event, book and markets', { eventId: EVENT_A, affiliateIds: [19], marketIds: [1, 2] }, [2, 8]],
        ['event, sport and market', { eventId: EVENT_B, sportId: 4, marketIds: [2] }, [15]],
        ['an event of another sport', { eventId: EVENT_C, sportId: 4 }, []],
        ['after an id, exclusive, up to an id, inclusive', { afterId: 3, toId: 11 }, [5, 6, 7, 8, 10, 11]],
        ['bounds that fall between ids', { afterId: 4, toId: 9 }, [5, 6, 7, 8]],
        ['bounds and filters', { afterId: 2, toId: 14, pricesOnly: true, affiliateIds: [22] }, [3, 10, 14]],
        ['after the head', { afterId: 15 }, []],
        ['up to an id below the first', { toId: 0 }, []],
        ['an empty range', { afterId: 6, toId: 6 }, []],
        ['the first rows up to the limit', { pricesOnly: true, limit: 3 }, [2, 3, 6]],
        ['the limit counts matching rows after afterId', { afterId: 6, limit: 2, eventId: EVENT_A }, [7, 8]],
        ['a limit of 0', { limit: 0 }, []],
      ];
      for (const [title, q, expected] of cases) {
        it(title, async (t) => {
          const store = await withMixedLog(t);
          assert.deepEqual(ids(await store.readChanges(query(q))), expected);
        });
      }

      it('gives whole rows', async (t) => {
        const store = await withMixedLog(t);
        const log = mixedLog();
        assert.deepEqual(await store.readChanges(query({ afterId: 5, toId: 7 })), [log[4], log[5]]);
      });
    });

    describe('readPayloadBytes', () => {
      it('joins the payloads of the rows readChanges gives, by commas, in id order', async (t) => {
        const store = await withMixedLog(t);
        const queries: Partial<ChangeQuery>[] = [
          {},
          { pricesOnly: true },
          { pricesOnly: true, sportId: 4, limit: 2 },
          { eventId: EVENT_A, afterId: 2, toId: 12 },
          { affiliateIds: [19, 7], marketIds: [1, 2] },
          { pricesOnly: true, afterId: 3, limit: 4 },
        ];
        for (const q of queries) {
          const rows = await store.readChanges(query(q));
          const page = await store.readPayloadBytes(query(q));
          assert.equal(page.bytes.toString('utf8'), rows.map((r) => r.payload).join(','), JSON.stringify(q));
          assert.equal(page.count, rows.length);
          assert.equal(page.lastRowId, rows.at(-1)!.id);
        }
        // The payloads, parsed back as a JSON array, are the Delta rows in id order.
        const page = await store.readPayloadBytes(query({ pricesOnly: true }));
        assert.deepEqual(ids(JSON.parse(`[${page.bytes.toString('utf8')}]`) as { id: number }[]), MIXED_PRICE_IDS);
      });

      it('bytes lent with a release stay as read until it is called, whatever is read meanwhile', async (t) => {
        const store = await withMixedLog(t);
        const held = await store.readPayloadBytes(query({ pricesOnly: true }));
        const copy = Buffer.from(held.bytes);
        const others = [];
        for (let i = 0; i < 100; i++) {
          others.push(await store.readPayloadBytes(query({ afterId: i % 12, limit: 1 + (i % 3) })));
          others.at(-1)!.release?.();
        }
        assert.equal(others.filter((p) => p.count === 0).length, 0);
        assert.equal(held.bytes.toString('utf8'), copy.toString('utf8'));
        held.release?.();
        held.release?.();
        assert.equal(
          (await store.readPayloadBytes(query({ pricesOnly: true }))).bytes.toString('utf8'),
          copy.toString('utf8'),
        );
      });

      it('an empty read: no bytes, no rows, last row 0, no more', async (t) => {
        const store = await withMixedLog(t);
        const page = await store.readPayloadBytes(query({ afterId: 15 }));
        assert.deepEqual({ ...page, bytes: page.bytes.length }, { bytes: 0, count: 0, lastRowId: 0, more: false });
      });

      const boundaries: [string, Partial<ChangeQuery>, number, number, boolean][] = [
        ['every matching row fits the limit exactly', { pricesOnly: true, limit: 8 }, 8, 15, false],
        ['one matching row beyond the limit', { pricesOnly: true, limit: 7 }, 7, 14, true],
        ['the next matching row is exactly at toId', { pricesOnly: true, limit: 7, toId: 15 }, 7, 14, true],
        ['the next matching row is just above toId', { pricesOnly: true, limit: 7, toId: 14 }, 7, 14, false],
        ['rows follow, but none matches', { affiliateIds: [22], limit: 3 }, 3, 14, false],
        ['a match after rows that do not', { eventId: EVENT_A, pricesOnly: true, limit: 3 }, 3, 8, true],
        ['fewer rows than the limit', { eventId: EVENT_B, limit: 5 }, 2, 15, false],
      ];
      for (const [title, q, count, lastRowId, more] of boundaries) {
        it(`more: ${title}`, async (t) => {
          const store = await withMixedLog(t);
          const page = await store.readPayloadBytes(query(q));
          assert.deepEqual(
            { count: page.count, lastRowId: page.lastRowId, more: page.more },
            { count, lastRowId, more },
          );
        });
      }
    });

    describe('scanPriceRows', () => {
      const summary = (r: ChangeRecord): PriceRowSummary => ({
        id: r.id,
        sport_id: r.sport_id,
        event_id: r.event_id,
        affiliate_id: r.affiliate_id,
        market_id: r.market_id,
        period_id: (JSON.parse(r.detail!) as { period_id: number }).period_id,
        payload: r.payload,
      });
      const ranges: [number, number, number[]][] = [
        [0, EVERY_ID, MIXED_PRICE_IDS],
        [2, 11, [3, 6, 8, 10, 11]],
        [4, 9, [6, 8]],
        [15, 20, []],
        [6, 6, []],
        [0, 1, []],
      ];
      for (const [afterId, toId, expected] of ranges) {
        const range = `(${afterId}, ${toId === EVERY_ID ? '∞' : toId}]`;
        it(`gives the price rows in ${range}, oldest first`, async (t) => {
          const store = await withMixedLog(t);
          const seen: PriceRowSummary[] = [];
          await store.scanPriceRows(afterId, toId, (row) => seen.push({ ...row }));
          const byId = new Map(mixedLog().map((r) => [r.id, r]));
          assert.deepEqual(
            seen,
            expected.map((id) => summary(byId.get(id)!)),
          );
        });
      }

      it('gives period 0 to a price row whose detail names none', async (t) => {
        const { store } = await fresh(t);
        const noPeriod = priceRow({ id: 1, price_id: 1 });
        const detail = JSON.parse(noPeriod.detail!) as Record<string, unknown>;
        delete detail.period_id;
        await store.commit(batch([{ ...noPeriod, detail: JSON.stringify(detail) }]));
        const seen: number[] = [];
        await store.scanPriceRows(0, 1, (row) => seen.push(row.period_id));
        assert.deepEqual(seen, [0]);
      });
    });

    describe('time lookups', () => {
      /** Sparse ids with ties in committed_ms. */
      const timed = (): ChangeRecord[] => [
        priceRow({ id: 3, price_id: 1, committed_ms: 100 }),
        scoreRow({ id: 4, committed_ms: 200 }),
        priceRow({ id: 7, price_id: 1, committed_ms: 200 }),
        priceRow({ id: 9, price_id: 2, committed_ms: 200 }),
        eventRow({ id: 12, committed_ms: 500 }),
      ];

      it('an empty store knows no time and no id', async (t) => {
        const { store } = await fresh(t);
        assert.equal(await store.committedMsAt(0), undefined);
        assert.equal(await store.committedMsAt(10), undefined);
        assert.equal(await store.firstIdCommittedSince(0), undefined);
      });

      it('committedMsAt: the newest row at or below the id', async (t) => {
        const { store } = await fresh(t);
        await store.commit(batch(timed()));
        const expected: [number, number | undefined][] = [
          [0, undefined],
          [2, undefined],
          [3, 100],
          [5, 200],
          [9, 200],
          [11, 200],
          [12, 500],
          [1000, 500],
        ];
        for (const [id, ms] of expected) assert.equal(await store.committedMsAt(id), ms, `id ${id}`);
      });

      it('firstIdCommittedSince: the smallest id committed at or after the time', async (t) => {
        const { store } = await fresh(t);
        await store.commit(batch(timed()));
        const expected: [number, number | undefined][] = [
          [0, 3],
          [100, 3],
          [101, 4],
          [200, 4],
          [201, 12],
          [500, 12],
          [501, undefined],
        ];
        for (const [ms, id] of expected) assert.equal(await store.firstIdCommittedSince(ms), id, `ms ${ms}`);
      });

      it('firstIdDescribedSince: the smallest id whose described time (the earlier of at and commit) is at or after the time', async (t) => {
        const { store } = await fresh(t);
        // A fill: days of the past committed within moments, then live rows described as committed.
        const at = (ms: number) => new Date(ms).toISOString();
        await store.commit(
          batch([
            priceRow({ id: 1, price_id: 1, at: at(1_000), committed_ms: 900_000 }),
            priceRow({ id: 2, price_id: 2, at: at(5_000), committed_ms: 900_001 }),
            priceRow({ id: 3, price_id: 1, at: at(900_002), committed_ms: 900_002 }),
          ]),
        );
        const expected: [number, number | undefined][] = [
          [0, 1],
          [1_001, 2],
          [5_001, 3],
          [900_000, 3],
          [900_003, undefined],
        ];
        for (const [ms, id] of expected) assert.equal(await store.firstIdDescribedSince(ms), id, `ms ${ms}`);
        assert.equal(await store.firstIdCommittedSince(5_001), 1, 'by commit time the whole fill is recent');
      });

      it('firstIdDescribedSince finds the first recent row among older ones committed after it', async (t) => {
        const { store } = await fresh(t);
        // Live rows and the background part of a first fill, which describes the past, in turn.
        const at = (ms: number) => new Date(ms).toISOString();
        const rows = [];
        for (let id = 1; id <= 400; id++) {
          const committed = 1_000_000 + id;
          const live = id % 100 === 50;
          rows.push(priceRow({ id, price_id: id, at: at(live ? committed : 1_000 + id), committed_ms: committed }));
        }
        await store.commit(batch(rows));
        assert.equal(await store.firstIdDescribedSince(1_000_000), 50);
        assert.equal(await store.firstIdDescribedSince(1_000_051), 150);
        assert.equal(await store.firstIdDescribedSince(1_000_351), undefined);
        assert.equal(await store.firstIdDescribedSince(1_000), 1, 'every row is described since');
      });

      it('eventsDescribedSince: the events with a row from an id on that describes a time since', async (t) => {
        const { store } = await fresh(t);
        // Live rows of B and the background part of a first fill (A, and C once), which describes the past.
        const at = (ms: number) => new Date(ms).toISOString();
        const rows = [];
        for (let id = 1; id <= 400; id++) {
          const committed = 1_000_000 + id;
          const live = id % 100 === 50;
          const event_id = live ? EVENT_B : id === 300 ? EVENT_C : EVENT_A;
          rows.push(
            priceRow({ id, price_id: id, event_id, at: at(live ? committed : 1_000 + id), committed_ms: committed }),
          );
        }
        await store.commit(batch(rows));
        const sorted = (events: string[]) => [...events].sort();
        const END = Number.MAX_SAFE_INTEGER;
        assert.deepEqual(sorted(await store.eventsDescribedSince(1_000_000, 50, END)), [EVENT_B]);
        assert.deepEqual(sorted(await store.eventsDescribedSince(1_000, 1, END)), [EVENT_A, EVENT_B, EVENT_C]);
        assert.deepEqual(sorted(await store.eventsDescribedSince(1_000, 301, END)), [EVENT_A, EVENT_B]);
        assert.deepEqual(await store.eventsDescribedSince(1_000_000, 351, END), []);
        assert.deepEqual(await store.eventsDescribedSince(1_001_400, 1, END), [], 'a second past the last row');
        // Up to an id: C's one row and B's last are past it.
        assert.deepEqual(sorted(await store.eventsDescribedSince(1_000, 1, 299)), [EVENT_A, EVENT_B]);
        assert.deepEqual(sorted(await store.eventsDescribedSince(1_000, 300, 300)), [EVENT_C]);
      });

      it('both agree with a walk over a long log with gaps and ties', async (t) => {
        const { store } = await fresh(t);
        const rng = new Rng(7);
        const random = () => rng.next();
        const log: ChangeRecord[] = [];
        let id = 0;
        let ms = 1_000;
        for (let i = 0; i < 600; i++) {
          id += 1 + Math.floor(random() * 4);
          ms += Math.floor(random() * 3);
          log.push(priceRow({ id, price_id: 1 + (i % 9), committed_ms: ms }));
        }
        for (let i = 0; i < log.length; i += 50) await store.commit(batch(log.slice(i, i + 50)));
        for (let at = 0; at <= id + 1; at++) {
          const newest = log.filter((r) => r.id <= at).at(-1);
          assert.equal(await store.committedMsAt(at), newest?.committed_ms, `id ${at}`);
        }
        for (let since = 999; since <= ms + 1; since++) {
          const first = log.find((r) => r.committed_ms >= since);
          assert.equal(await store.firstIdCommittedSince(since), first?.id, `ms ${since}`);
        }
      });
    });

    describe('retention', () => {
      const HOUR_S = 3600;
      // The fixtures' event starts at 23:00, five hours after BASE_MS.
      const after = (seconds: number) => time(5 * HOUR_S + seconds);
      /**
       * Price 1 before and after the start, header, score, stat and play rows, all committed in the
       * first minutes; row 200 is committed after the cutoff (BASE + 7 h), so the boundary is 200.
       */
      const retentionLog = (): ChangeRecord[] => [
        eventRow({ id: 1 }),
        priceRow({ id: 2, price_id: 1 }),
        scoreRow({ id: 3, home: 1 }),
        priceRow({ id: 4, price_id: 1, price: -120 }),
        priceRow({ id: 5, price_id: 1, price: -125 }),
        eventRow({ id: 6 }),
        scoreRow({ id: 7, home: 2 }),
        statRow({ id: 8, stat_id: 1, value: 1 }),
        statRow({ id: 9, stat_id: 1, value: 2 }),
        playRow({ id: 10, sequence: 1 }),
        priceRow({ id: 11, price_id: 1, price: -130, at: after(11) }),
        priceRow({ id: 12, price_id: 1, price: -135, at: after(12) }),
        priceRow({
          id: 200,
          price_id: 1,
          price: -140,
          at: after(3 * HOUR_S),
          committed_ms: BASE_MS + 8 * HOUR_S * 1000,
        }),
      ];
      const CUTOFF = BASE_MS + 7 * HOUR_S * 1000;
      const KEPT = [2, 5, 6, 7, 9, 10, 12, 200];

      async function withRetentionLog(t: TestContext): Promise<Store> {
        const { store } = await fresh(t);
        await store.commit(
          batch(retentionLog(), {
            events: [eventRecord(EVENT_A, 200), eventRecord(EVENT_B, 0)],
            markets: [marketRecord(1, EVENT_A, 1)],
          }),
        );
        return store;
      }

      it('before any step the whole log is kept', async (t) => {
        const store = await withRetentionLog(t);
        assert.deepEqual(await store.retained(), { oldestId: 1, sinceMs: undefined });
      });

      it('keeps the opener, the closing and the last row of a price, the last header, score and box cell, and every play', async (t) => {
        const store = await withRetentionLog(t);
        const { scanned, ...r } = await compactToEnd(store, CUTOFF);
        assert.deepEqual(r, { dropped: 5, oldestId: 200, more: false });
        // 199 ids in one step; a step its time budget ends early leaves the ids no row has
        // (13 to 198) to the next step's skip, which does not count them.
        assert.ok(scanned >= 13 && scanned <= 199, `scanned ${scanned}`);
        assert.deepEqual(ids(await store.readChanges(query())), KEPT);
        assert.deepEqual(await store.retained(), { oldestId: 200, sinceMs: CUTOFF });
        // Nothing more to do until the cutoff moves.
        assert.deepEqual(await store.compact({ cutoffMs: CUTOFF, maxRows: 1000 }), {
          scanned: 0,
          dropped: 0,
          oldestId: 200,
          more: false,
        });
      });

      it('drops a season row only once a newer one of its team, year and type replaced it', async (t) => {
        const { store } = await fresh(t);
        await store.commit(
          batch([
            ...retentionLog().filter((r) => r.id < 200),
            seasonRow({ id: 13, team_id: 2014, season_type: 2, points: 10 }),
            seasonRow({ id: 14, team_id: 2014, season_type: 3, points: 4 }),
            seasonRow({ id: 15, team_id: 2014, season_type: 2, points: 12 }),
            seasonRow({ id: 16, team_id: 2002, season_type: 2, points: 7 }),
            ...retentionLog().filter((r) => r.id === 200),
          ]),
        );
        await compactToEnd(store, CUTOFF);
        const kept = ids(await store.readChanges(query()));
        assert.deepEqual(
          kept.filter((id) => id >= 13 && id <= 16),
          [14, 15, 16],
        );
        assert.deepEqual(ids((await loadAll(store)).seasonRecords), [14, 15, 16]);
      });

      it('never drops a catalog row, however old, even one a later record of its key replaced', async (t) => {
        const { store } = await fresh(t);
        await store.commit(
          batch([
            ...retentionLog().filter((r) => r.id < 200),
            catalogRow({ id: 13, affiliate_id: 77, name: 'First' }),
            catalogRow({ id: 14, affiliate_id: 77, name: 'Renamed' }),
            ...retentionLog().filter((r) => r.id === 200),
          ]),
        );
        await compactToEnd(store, CUTOFF);
        const kept = ids(await store.readChanges(query()));
        assert.deepEqual(
          kept.filter((id) => id === 13 || id === 14),
          [13, 14],
        );
        assert.deepEqual(ids((await loadAll(store)).catalog), [13, 14]);
      });

      it('small steps reach the same log as one large step', async (t) => {
        const store = await withRetentionLog(t);
        let steps = 0;
        for (
          let r = await store.compact({ cutoffMs: CUTOFF, maxRows: 3 });
          ;
          r = await store.compact({ cutoffMs: CUTOFF, maxRows: 3 })
        ) {
          steps++;
          assert.ok(r.scanned <= 3);
          if (!r.more) break;
        }
        // Four steps of three ids, and one that skips 13 to 199, which no row has.
        assert.equal(steps, Math.ceil(12 / 3) + 1);
        assert.deepEqual(ids(await store.readChanges(query())), KEPT);
      });

      it('ids no row has take no step (a restored log skips 10^12 of them)', async (t) => {
        const { store } = await fresh(t);
        const gap = 1_000_000_000_000;
        const late = retentionLog().at(-1)!;
        await store.commit(
          batch([...retentionLog().slice(0, -1), { ...late, id: gap }], {
            events: [eventRecord(EVENT_A, gap), eventRecord(EVENT_B, 0)],
            markets: [marketRecord(1, EVENT_A, 1)],
          }),
        );
        let steps = 0;
        for (
          let r = await store.compact({ cutoffMs: CUTOFF, maxRows: 3 });
          r.more;
          r = await store.compact({ cutoffMs: CUTOFF, maxRows: 3 })
        ) {
          steps++;
          assert.ok(steps < 10, 'the gap is crossed in one step');
        }
        assert.deepEqual(ids(await store.readChanges(query())), [...KEPT.slice(0, -1), gap]);
        assert.equal((await store.retained()).oldestId, gap);
      });

      it('drops nothing that describes a time at or after the cutoff', async (t) => {
        const store = await withRetentionLog(t);
        // A cutoff before the start: rows 11 and 12 describe later times and stay.
        const r = await compactToEnd(store, BASE_MS + 3 * HOUR_S * 1000);
        assert.equal(r.oldestId, 200);
        assert.deepEqual(ids(await store.readChanges(query())), [2, 5, 6, 7, 9, 10, 11, 12, 200]);
      });

      it('a start after compaction finds the same current state', async (t) => {
        const store = await withRetentionLog(t);
        const before = await loadAll(store);
        await compactToEnd(store, CUTOFF);
        const loaded = await loadAll(store);
        assert.deepEqual(loaded.latestPrices, before.latestPrices);
        assert.deepEqual(loaded.events, before.events);
        assert.deepEqual(loaded.playCounts, before.playCounts);
        assert.deepEqual(ids(loaded.statRows), [9]);
      });

      it('archivedSince names the events archived at or after a time, each at its first archiving', async (t) => {
        const store = await withRetentionLog(t);
        assert.deepEqual(await store.archivedSince(0), []);
        await store.archive({ eventIds: [EVENT_A], archivedMs: BASE_MS, seasonTotals: [] });
        await store.archive({ eventIds: [EVENT_B, EVENT_A], archivedMs: BASE_MS + 5, seasonTotals: [] });
        assert.deepEqual(await store.archivedSince(0), [
          { eventId: EVENT_A, archivedMs: BASE_MS },
          { eventId: EVENT_B, archivedMs: BASE_MS + 5 },
        ]);
        assert.deepEqual(await store.archivedSince(BASE_MS + 1), [{ eventId: EVENT_B, archivedMs: BASE_MS + 5 }]);
        assert.deepEqual(await store.archivedSince(BASE_MS + 6), []);
      });

      it('archived events leave the load; their headers, season totals and reads stay', async (t) => {
        const store = await withRetentionLog(t);
        const totals = { key: '4|2002|2026|Regular Season', body: '{"games":1}' };
        await store.archive({ eventIds: [EVENT_A], archivedMs: BASE_MS, seasonTotals: [totals] });
        const loaded = await loadAll(store);
        assert.deepEqual(
          loaded.events.map((e) => e.event_id),
          [EVENT_B],
        );
        assert.deepEqual(loaded.markets, []);
        assert.deepEqual(loaded.latestPrices, []);
        assert.deepEqual(loaded.playCounts, []);
        assert.deepEqual(loaded.statRows, []);
        assert.deepEqual(loaded.archived, { events: [eventRecord(EVENT_A, 200)], seasonTotals: [totals] });
        // Only headers of events scheduled at or after the given start are loaded.
        assert.deepEqual((await store.load(undefined, { archivedSince: '2026-11-24' })).archived.events, []);
        const read = await store.readArchivedEvent(EVENT_A);
        assert.ok(read);
        assert.deepEqual(read.event, eventRecord(EVENT_A, 200));
        assert.deepEqual(read.markets, [marketRecord(1, EVENT_A, 1)]);
        assert.deepEqual(ids(read.latestPrices), [200]);
        assert.deepEqual(read.playCounts, [{ event_id: EVENT_A, plays: 1 }]);
        assert.deepEqual(ids(read.statRows), [8, 9]);
        assert.equal(await store.readArchivedEvent(EVENT_B), undefined);
        // Archiving again changes nothing; newer totals replace the kept ones.
        const newer = { ...totals, body: '{"games":2}' };
        await store.archive({ eventIds: [EVENT_A], archivedMs: BASE_MS + 1, seasonTotals: [newer] });
        assert.deepEqual((await store.load()).archived.seasonTotals, [newer]);
      });

      /** The reads of an archived event that do not go through the log's ids. */
      const archivedReads = async (store: Store) => ({
        event: await store.readArchivedEvent(EVENT_A),
        plays: (await store.readPlays(EVENT_A, 1, 10)).toString(),
        stats: await store.readStats(EVENT_A, EVERY_ID),
        statsUpTo8: await store.readStats(EVENT_A, 8),
        maxPriceId: (await store.load()).maxPriceId,
        highest: await store.highestIds(),
      });
      /** Row 300 (event B) is committed after the second cutoff: the boundary passes all of event A. */
      const LATER_CUTOFF = BASE_MS + 9 * HOUR_S * 1000;
      const later = () =>
        eventRow({ id: 300, event_id: EVENT_B, at: after(4 * HOUR_S), committed_ms: BASE_MS + 10 * HOUR_S * 1000 });

      it('packs an archived event once its rows lie below the boundary: its reads stay, its rows leave the log', async (t) => {
        const f = await fresh(t);
        const { store } = f;
        await store.commit(
          batch([...retentionLog(), later()], {
            events: [eventRecord(EVENT_A, 200), eventRecord(EVENT_B, 300)],
            markets: [marketRecord(1, EVENT_A, 1)],
          }),
        );
        await compactToEnd(store, LATER_CUTOFF);
        await store.archive({ eventIds: [EVENT_A], archivedMs: BASE_MS, seasonTotals: [] });
        const before = await archivedReads(store);
        assert.ok(before.event);
        assert.notEqual(before.plays, '');
        // Event A's price and market are off the load, not off the ids a new writer goes on from.
        assert.deepEqual(before.highest, { priceId: 1, marketId: 1 });
        // The next step packs it.
        assert.equal((await store.compact({ cutoffMs: LATER_CUTOFF, maxRows: 1000 })).more, false);
        assert.deepEqual(ids(await store.readChanges(query())), [300]);
        assert.deepEqual(await archivedReads(store), before);
        assert.deepEqual(
          (await loadAll(store)).events.map((e) => e.event_id),
          [EVENT_B],
        );
        if (f.reopen) {
          const again = await f.reopen();
          assert.deepEqual(await archivedReads(again), before);
        }
      });

      it('an event that gains a row while it is being packed stays in the log', async (t) => {
        const { store } = await fresh(t);
        await store.commit(
          batch([...retentionLog(), later()], { events: [eventRecord(EVENT_A, 200), eventRecord(EVENT_B, 300)] }),
        );
        await compactToEnd(store, LATER_CUTOFF);
        await store.archive({ eventIds: [EVENT_A], archivedMs: BASE_MS, seasonTotals: [] });
        // The step reads event A's rows and compresses them; a row of it is committed meanwhile.
        const step = store.compact({ cutoffMs: LATER_CUTOFF, maxRows: 1000 });
        await store.commit(batch([playRow({ id: 301, sequence: 2, committed_ms: BASE_MS + 11 * HOUR_S * 1000 })]));
        await step;
        assert.deepEqual(ids(await store.readChanges(query({ eventId: EVENT_A }))), [2, 5, 6, 7, 9, 10, 200, 301]);
        assert.equal((await store.readPlays(EVENT_A, 1, 2)).toString().split('},{').length, 2);
      });

      it('an archived event whose rows reach the boundary or the head stays in the log', async (t) => {
        const store = await withRetentionLog(t);
        await compactToEnd(store, CUTOFF);
        await store.archive({ eventIds: [EVENT_A], archivedMs: BASE_MS, seasonTotals: [] });
        // Row 200, event A's last, is at the boundary and is the head.
        await compactToEnd(store, LATER_CUTOFF);
        assert.deepEqual(ids(await store.readChanges(query())), [2, 5, 6, 7, 9, 10, 200]);
        assert.deepEqual(ids((await store.readArchivedEvent(EVENT_A))!.latestPrices), [200]);
      });
    });
  });
}
