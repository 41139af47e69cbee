import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Board } from '../../src/board/board.ts';
import type { EventState, PriceState } from '../../src/board/event-state.ts';
import { type EventFilter, viewEvent } from '../../src/projection/event-view.ts';
import { MemoryBus } from '../../src/bus/memory-bus.ts';
import { Simulator } from '../../src/feeds/simulator/index.ts';
import { bookCut, cutBooks } from '../../src/projection/book-cut.ts';
import { eventText, serializeEvent } from '../../src/projection/event-json.ts';

/** The trick itself, whichever the switch picks for the server. */
const eventJson = eventText.eventJson;
import { Ledger } from '../../src/ledger/ledger.ts';
import { MemoryStore } from '../../src/store/memory/memory-store.ts';
import { batch, nbaEvent, nbaPrices } from '../helpers/fixtures.ts';
import { SIMULATOR_CATALOG } from '../helpers/simulator-catalog.ts';

const NOW = Date.parse('2026-11-23T21:30:00Z');

function filter(over: Partial<EventFilter> & Pick<EventFilter, 'marketIds'>): EventFilter {
  return {
    affiliateIds: null,
    periodIds: null,
    mainLine: false,
    participantIds: null,
    participantType: null,
    hideClosed: false,
    includePriceDelta: false,
    liveGameState: false,
    ...over,
  };
}

/** The oracle: the view's objects through the compiled serialiser of EventSchema. */
function assertSameAsView(state: EventState, f: EventFilter, what: string): void {
  const view = viewEvent(state, f, SIMULATOR_CATALOG);
  const written = eventJson(state, f, SIMULATOR_CATALOG);
  assert.equal(written.json, serializeEvent(view.event), what);
  assert.equal(written.priceCount, view.priceCount, what);
  assert.equal(written.marketCount, view.event.markets.length, what);
  assert.equal(written.liveState, view.event.live_game_state !== undefined, what);
}

/** Books of the event's prices, in the order first seen. */
function booksOf(state: EventState): number[] {
  const books = new Set<number>();
  for (const m of state.markets.values())
    for (const p of m.participants.values()) {
      for (const l of p.lines.values()) for (const a of l.prices.keys()) books.add(a);
    }
  return [...books];
}

/**
 * The view of a book set cut from the view of every book is the view written for that book set:
 * the same bytes, prices and markets, for no book, one, every other, all but three and all of them.
 */
function assertCutsSame(state: EventState, f: EventFilter, what: string): number {
  const books = booksOf(state);
  const cut = bookCut(state, f, SIMULATOR_CATALOG);
  const sets = [
    [],
    books.slice(0, 1),
    books.slice(-1),
    books.filter((_, i) => i % 2 === 1),
    books.slice(3),
    books,
    [...books, 999_999],
  ];
  let prices = 0;
  for (const set of sets) {
    const affiliateIds = new Set(set);
    const written = eventJson(state, { ...f, affiliateIds }, SIMULATOR_CATALOG);
    const { bytes, json } = cutBooks(cut, affiliateIds);
    const label = `${what}, books ${set.join(',')}`;
    assert.equal(bytes.toString('utf8'), written.json, label);
    assert.equal(bytes.length, Buffer.byteLength(written.json), label);
    const { priceCount, marketCount, liveState } = written;
    assert.deepEqual(json, { priceCount, marketCount, liveState }, label);
    prices += written.priceCount;
  }
  return prices;
}

/** Filters of every kind a request can send, over the markets, books, periods and participants the event has. */
function filtersFor(state: EventState): EventFilter[] {
  const markets = [...state.markets.values()];
  const all = new Set(markets.map((m) => m.market_id));
  const books = new Set<number>();
  const participants = new Set<number>();
  for (const m of markets) {
    for (const p of m.participants.values()) {
      participants.add(p.id);
      for (const l of p.lines.values()) for (const a of l.prices.keys()) books.add(a);
    }
  }
  const some = <T>(s: Set<T>) => new Set([...s].filter((_, i) => i % 2 === 0));
  return [
    filter({ marketIds: all }),
    filter({ marketIds: all, includePriceDelta: true, liveGameState: true }),
    filter({ marketIds: some(all), affiliateIds: some(books) }),
    filter({ marketIds: all, periodIds: new Set([0]), mainLine: true }),
    filter({ marketIds: all, participantType: 'TYPE_TEAM', hideClosed: true }),
    filter({ marketIds: all, participantType: 'TYPE_PLAYER', includePriceDelta: true }),
    filter({ marketIds: all, participantIds: some(participants), liveGameState: true }),
    filter({ marketIds: new Set([999_999]) }),
  ];
}

test('a simulated board written straight to JSON is the view through the compiled serialiser, byte for byte', async () => {
  const board = new Board();
  const ledger = await Ledger.open(new MemoryStore(), board, new MemoryBus());
  await new Simulator({
    seed: 5,
    speed: 1,
    sink: ledger,
    state: board,
    now: () => NOW,
    sportIds: [1, 4, 6, 7, 11],
    // A day of games is every kind of state the writer meets: earlier starts are left out.
  }).backfill(undefined, { split: NOW - 86_400_000 });
  const events = [...board.events.values()];
  assert.ok(events.length > 20, `the simulator made ${events.length} events`);
  let prices = 0;
  let cutPrices = 0;
  for (const state of events) {
    for (const [i, f] of filtersFor(state).entries()) {
      assertSameAsView(state, f, `${state.info.event_id}, filter ${i}`);
      prices += eventJson(state, f, SIMULATOR_CATALOG).priceCount;
      cutPrices += assertCutsSame(state, f, `${state.info.event_id}, filter ${i}`);
    }
  }
  assert.ok(prices > 10_000, `${prices} prices compared`);
  assert.ok(cutPrices > 10_000, `${cutPrices} prices of cut views compared`);
});

test('escapes, optional price fields, infinities and books added out of order are written as the serialiser writes them', async () => {
  const board = new Board();
  const ledger = await Ledger.open(new MemoryStore(), board, new MemoryBus());
  const id = 'ab'.repeat(16);
  const info = nbaEvent(id);
  info.schedule.event_name = 'He said "markets":[] \\ \u0001 \ud800 done';
  info.teams[0]!.name = 'Bad\nName "quoted" and a long tail to pass forty-two characters \u2028';
  await ledger.apply(batch(new Date(NOW).toISOString(), [{ kind: 'event', event: info }, ...nbaPrices(id)]));
  const state = board.events.get(id)!;
  state.info = { ...state.info, live_game_state: { markets: [], note: 'x"y' } };
  const all = new Set([...state.markets.values()].map((m) => m.market_id));
  const anyLine = [...[...state.markets.values()][0]!.participants.values()][0]!;
  anyLine.name = 'O\'Neil "The \\ Shaq" \u0000';
  const line = [...anyLine.lines.values()][0]!;
  const model = [...line.prices.values()][0]!;
  const add = (affiliate_id: number, extra: Partial<PriceState>) =>
    line.prices.set(affiliate_id, { ...model, affiliate_id, id: model.id + affiliate_id, ...extra });
  add(77, { liquidity_usd: 1234.5, source_id: 'src "1"' });
  add(5, { price: Infinity, price_delta: -Infinity });
  add(-3, { closed_at: '2026-11-23T20:00:00Z' });
  add(2 ** 32, { is_main_line: false });
  add(1.5, {});
  add(0, { price: 0.0001, price_delta: 1e21 });
  for (const f of [
    filter({ marketIds: all }),
    filter({ marketIds: all, includePriceDelta: true, liveGameState: true }),
    filter({ marketIds: all, hideClosed: true, mainLine: true }),
    filter({ marketIds: all, affiliateIds: new Set([77, 1.5, 2 ** 32]), liveGameState: true }),
  ]) {
    assertSameAsView(state, f, JSON.stringify({ ...f, marketIds: [...f.marketIds] }));
    assertCutsSame(state, f, JSON.stringify({ ...f, marketIds: [...f.marketIds] }));
  }
  const text = eventJson(state, filter({ marketIds: all, liveGameState: true }), SIMULATOR_CATALOG).json;
  const parsed = JSON.parse(text);
  assert.deepEqual(Object.keys(parsed.markets[0].participants[0].lines[0].prices).slice(0, 3), ['0', '5', '19']);
  assert.deepEqual(parsed.live_game_state, { markets: [], note: 'x"y' });
});

test('characters beyond ASCII and views of hundreds of kilobytes are written as the serialiser writes them', async () => {
  const board = new Board();
  const ledger = await Ledger.open(new MemoryStore(), board, new MemoryBus());
  const id = 'cd'.repeat(16);
  const info = nbaEvent(id);
  info.teams[1]!.name = 'Atlético São Paulo 🏀';
  await ledger.apply(batch(new Date(NOW).toISOString(), [{ kind: 'event', event: info }, ...nbaPrices(id)]));
  const state = board.events.get(id)!;
  const all = new Set([...state.markets.values()].map((m) => m.market_id));
  const participants = [...state.markets.values()].flatMap((m) => [...m.participants.values()]);
  const names = ['Müller', 'x'.repeat(300_000), `${'é'.repeat(70_000)}\u2028`, 'Ωmega "quoted"', 'plain'];
  for (const [i, name] of names.entries()) {
    participants[i % participants.length]!.name = name;
    assertSameAsView(state, filter({ marketIds: all }), `name ${i}`);
    assertCutsSame(state, filter({ marketIds: all }), `name ${i}`);
  }
  for (const p of participants) p.name = 'small';
  assertSameAsView(state, filter({ marketIds: all, includePriceDelta: true }), 'after the large views');
});
