import assert from 'node:assert/strict';
import { test } from 'node:test';
import { getHeapStatistics } from 'node:v8';
import { Board } from '../../src/board/board.ts';
import { DelayedViews } from '../../src/board/delayed-views.ts';
import { DELAY_ENTRY_BYTES, delayEntriesFor, resolveServeConfig } from '../../src/config.ts';
import { MemoryBus } from '../../src/bus/memory-bus.ts';
import { Ledger } from '../../src/ledger/ledger.ts';
import { KEEPING } from '../../src/perf/fresh-cache.ts';
import { MemoryStore } from '../../src/store/memory/memory-store.ts';
import { batch, nbaEvent, nbaPrices, price, score } from '../helpers/fixtures.ts';

const E = 'd1'.repeat(16);
const LATER = 'd2'.repeat(16);
const T0 = Date.parse('2026-11-23T12:00:00Z');

/** A ledger on a memory store whose delayed views (30 s and 300 s) read an injected clock. */
async function setup(store = new MemoryStore(), clock = { now: T0 }) {
  const board = new Board();
  const views = new DelayedViews(board, [30, 300], { now: () => clock.now, tickMs: 60_000 });
  const ledger = await Ledger.open(store, board, new MemoryBus(), {
    now: () => clock.now,
    observe: views.observe,
    replaySinceMs: clock.now - 300_000,
  });
  return { store, board, views, ledger, clock, close: () => views.close() };
}

const iso = (ms: number) => new Date(ms).toISOString();
const moneyline = (view: { getEvent(id: string): ReturnType<Board['getEvent']> }, book = 19) =>
  view.getEvent(E)?.markets.get('1:0')?.participants.get('TYPE_TEAM:2002')?.lines.get('')?.prices.get(book)?.price;

test('a change is shown to a delayed plan once the time it describes is older than the delay', async (t) => {
  const s = await setup();
  t.after(s.close);
  // Described an hour back (a back-fill): every view shows it at once.
  await s.ledger.apply(batch(iso(T0 - 3_600_000), [{ kind: 'event', event: nbaEvent(E) }, ...nbaPrices(E)]));
  assert.equal(moneyline(s.views.forDelay(300)), 130);
  // Described now: the live board has it, the views show the price it replaced.
  await s.ledger.apply(
    batch(iso(T0 - 20_000), [price(E, { market_id: 1, participant_id: 2002, affiliate_id: 19, price: 140 })]),
  );
  await s.ledger.apply(
    batch(iso(T0), [price(E, { market_id: 1, participant_id: 2002, affiliate_id: 19, price: 150 })]),
  );
  assert.equal(moneyline(s.board), 150);
  assert.equal(moneyline(s.views.forDelay(30)), 130, 'the price before both changes within the delay');
  assert.equal(moneyline(s.views.forDelay(300)), 130);
  assert.ok(s.views.forDelay(30).head < s.board.head, 'a delayed head stops before the hidden row');
  s.clock.now = T0 + 11_000;
  assert.equal(moneyline(s.views.forDelay(30)), 140, 'the first change is 31 s old');
  s.clock.now = T0 + 31_000;
  assert.equal(moneyline(s.views.forDelay(30)), 150, 'past 30 s the Pro view shows it');
  assert.equal(moneyline(s.views.forDelay(300)), 130, 'the Free view still does not');
  assert.equal(s.views.forDelay(30).head, s.board.head);
  s.clock.now = T0 + 301_000;
  assert.equal(moneyline(s.views.forDelay(300)), 150);
});

test('events, scores, new lines and main-line moves are undone alike, and the live board is untouched', async (t) => {
  const s = await setup();
  t.after(s.close);
  await s.ledger.apply(batch(iso(T0 - 3_600_000), [{ kind: 'event', event: nbaEvent(E) }, ...nbaPrices(E)]));
  await s.ledger.apply(
    batch(iso(T0), [
      { kind: 'event', event: nbaEvent(LATER) },
      { kind: 'score', event_id: E, score: score(E, 'STATUS_IN_PROGRESS', 3, 5), live_game_state: { period: 1 } },
      // Moves book 19's main spread from -3.5 to a new line, -5.5.
      price(E, {
        market_id: 2,
        participant_id: 2014,
        participant_name: 'Los Angeles',
        affiliate_id: 19,
        line: '-5.5',
        price: -105,
        is_main_line: true,
      }),
    ]),
  );
  const view = s.views.forDelay(30);
  assert.equal(view.getEvent(LATER), undefined, 'an event created within the delay is not there yet');
  assert.deepEqual(
    view.eventsOfSport(4).map((e) => e.info.event_id),
    [E],
  );
  const ev = view.getEvent(E)!;
  assert.equal(ev.info.score, undefined, 'the score it had then: none');
  const lines = ev.markets.get('2:0')!.participants.get('TYPE_TEAM:2014')!.lines;
  assert.equal(lines.get('-3.5')!.prices.get(19)!.is_main_line, true, 'the main line where it was');
  assert.equal(lines.get('-5.5')?.prices.get(19), undefined, 'the new line has no price yet');
  assert.equal(
    ev.markets.get('2:0')!.participants.get('TYPE_TEAM:2014')!.mainLines.get(19),
    '-3.5',
    'the main-line index agrees with the flags',
  );
  // The live board holds the new state, and its objects were not changed by the view.
  const live = s.board.getEvent(E)!;
  assert.equal(live.info.score?.event_status, 'STATUS_IN_PROGRESS');
  const liveLines = live.markets.get('2:0')!.participants.get('TYPE_TEAM:2014')!.lines;
  assert.equal(liveLines.get('-3.5')!.prices.get(19)!.is_main_line, false);
  assert.equal(liveLines.get('-5.5')!.prices.get(19)!.is_main_line, true);
  assert.notEqual(ev, live);
  // The copy is the same until the view moves on; the plain twin (ODDSBASE_PLAIN=1) makes it anew.
  const again = view.getEvent(E);
  assert.deepEqual(again, ev);
  if (KEEPING === 'kept') assert.equal(again, ev, 'the undone event is kept until the view moves on');
});

test('a view never skips a row: a row it cannot show yet holds back every later one', async (t) => {
  const s = await setup();
  t.after(s.close);
  await s.ledger.apply(batch(iso(T0 - 3_600_000), [{ kind: 'event', event: nbaEvent(E) }, ...nbaPrices(E)]));
  const before = s.board.head;
  await s.ledger.apply(
    batch(iso(T0), [price(E, { market_id: 1, participant_id: 2002, affiliate_id: 19, price: 150 })]),
  );
  // Committed later but describing the past: shown only with the row before it, as the log is a sequence.
  await s.ledger.apply(
    batch(iso(T0 - 600_000), [price(E, { market_id: 1, participant_id: 2002, affiliate_id: 23, price: 140 })]),
  );
  assert.equal(s.views.forDelay(30).head, before);
  assert.equal(moneyline(s.views.forDelay(30), 23), 130);
  s.clock.now = T0 + 31_000;
  assert.equal(s.views.forDelay(30).head, s.board.head);
  assert.equal(moneyline(s.views.forDelay(30), 23), 140);
});

test('past its bound of kept changes a view moves on early, and says so', async (t) => {
  const board = new Board();
  const clock = { now: T0 };
  const views = new DelayedViews(board, [300], { now: () => clock.now, maxEntries: 1000, tickMs: 60_000 });
  t.after(() => views.close());
  const ledger = await Ledger.open(new MemoryStore(), board, new MemoryBus(), {
    now: () => clock.now,
    observe: views.observe,
  });
  await ledger.apply(batch(iso(T0 - 3_600_000), [{ kind: 'event', event: nbaEvent(E) }, ...nbaPrices(E)]));
  for (let i = 0; i < 30; i++) {
    const updates = [];
    for (let k = 0; k < 100; k++)
      updates.push(
        price(E, { market_id: 1, participant_id: 2002, affiliate_id: 19, price: 100 + ((i * 100 + k) % 50) * 2 + 1 }),
      );
    await ledger.apply(batch(iso(T0), updates));
  }
  assert.ok(views.size <= 1000 + 100, `${views.size} changes kept`);
  assert.ok(views.forcedAdvances > 0);
});

test("the default bound on kept changes is a tenth of the heap, so it fits under npm start's cap", () => {
  // npm start: --max-old-space-size=288 --max-semi-space-size=4 gives a heap limit of 314,572,800 bytes.
  const capped = delayEntriesFor(314_572_800);
  assert.ok(capped * DELAY_ENTRY_BYTES <= 314_572_800 / 10, `${capped} changes`);
  assert.ok(capped >= 100_000, 'a Free view holds 5 minutes of over 300 changes a second');
  assert.equal(delayEntriesFor(8 * 1024 ** 3), 500_000, 'never more than before on a large heap');
  assert.equal(delayEntriesFor(1024 ** 2), 1000, 'never fewer than the configurable minimum');
  const heap = getHeapStatistics().heap_size_limit;
  const config = resolveServeConfig({ dataDir: '/nonexistent', simulator: false }, {});
  assert.equal(config.limits.delayMaxEntries, delayEntriesFor(heap), 'the server takes it from its own heap');
  assert.equal(
    resolveServeConfig({ dataDir: '/nonexistent', simulator: false }, { DELAY_MAX_ENTRIES: '2000' }).limits
      .delayMaxEntries,
    2000,
  );
});

test('after a restart the views still hide what was committed within their delay', async (t) => {
  const first = await setup();
  await first.ledger.apply(batch(iso(T0 - 3_600_000), [{ kind: 'event', event: nbaEvent(E) }, ...nbaPrices(E)]));
  await first.ledger.apply(
    batch(iso(T0), [price(E, { market_id: 1, participant_id: 2002, affiliate_id: 19, price: 150 })]),
  );
  first.close();
  // The same store, a new process ten seconds later.
  const again = await setup(first.store, { now: T0 + 10_000 });
  t.after(again.close);
  assert.equal(moneyline(again.board), 150);
  assert.equal(again.board.head, first.board.head);
  assert.equal(moneyline(again.views.forDelay(30)), 130);
  again.clock.now = T0 + 31_000;
  assert.equal(moneyline(again.views.forDelay(30)), 150);
  // Ids go on from the head, prices keep their ids.
  await again.ledger.apply(
    batch(iso(T0 + 31_000), [price(E, { market_id: 1, participant_id: 2002, affiliate_id: 19, price: 155 })]),
  );
  assert.equal(again.board.head, first.board.head + 1);
  const p = again.board
    .getEvent(E)!
    .markets.get('1:0')!
    .participants.get('TYPE_TEAM:2002')!
    .lines.get('')!
    .prices.get(19)!;
  assert.equal(
    p.id,
    first.board.getEvent(E)!.markets.get('1:0')!.participants.get('TYPE_TEAM:2002')!.lines.get('')!.prices.get(19)!.id,
  );
});
