import assert from 'node:assert/strict';
import { test } from 'node:test';
import { OPEN_SCOPE, type PlanScope } from '../../src/access/plan-scope.ts';
import { Board } from '../../src/board/board.ts';
import { MemoryBus } from '../../src/bus/memory-bus.ts';
import { ByteBudget } from '../../src/perf/byte-budget.ts';
import { V1EventCache, V1FilterCache, v1Filter, viewV1Event } from '../../src/projection/v1-event.ts';
import { Ledger } from '../../src/ledger/ledger.ts';
import type { Update } from '../../src/ledger/updates.ts';
import { MemoryStore } from '../../src/store/memory/memory-store.ts';
import { batch, nbaEvent, nbaPrices, price, score } from '../helpers/fixtures.ts';
import { SIMULATOR_CATALOG } from '../helpers/simulator-catalog.ts';

const E = 'e'.repeat(32);
const AT = '2026-11-23T10:00:00Z';

async function board(...more: Update[][]) {
  const b = new Board();
  const ledger = await Ledger.open(new MemoryStore(), b, new MemoryBus());
  await ledger.apply(batch(AT, [{ kind: 'event', event: nbaEvent(E) }, ...nbaPrices(E)]));
  for (const [i, updates] of more.entries()) {
    await ledger.apply(batch(`2026-11-23T10:0${i + 1}:00Z`, updates));
  }
  return b.getEvent(E)!;
}

const all = (include?: string, scope: PlanScope = OPEN_SCOPE, affiliate_ids?: string) =>
  v1Filter(scope, { include, affiliate_ids });

test('a full-game line set holds each book’s main moneyline, spread and total, alternates apart', async () => {
  const { event, prices } = viewV1Event(await board(), all(), SIMULATOR_CATALOG);
  assert.deepEqual(Object.keys(event.lines), ['19', '23']);
  const set = event.lines['19']!;
  assert.equal(set.period_id, 0);
  assert.equal(set.period_description, 'Full Game');
  assert.deepEqual(set.affiliate, {
    affiliate_id: 19,
    affiliate_name: 'Kingsbook',
    affiliate_url: 'https://kingsbook.example',
  });
  assert.deepEqual(set.moneyline, {
    line_id: 1,
    event_id: 'e'.repeat(32),
    affiliate_id: 19,
    moneyline_away: 130,
    moneyline_away_delta: 0,
    moneyline_home: -150,
    moneyline_home_delta: 0,
    moneyline_draw: 0.0001,
    moneyline_draw_delta: 0,
    date_updated: '2026-11-23T10:00:00.000Z',
    format: 'American',
  });
  assert.equal(set.spread.point_spread_away, 3.5);
  assert.equal(set.spread.point_spread_away_money, -110);
  assert.equal(set.spread.point_spread_home, -3.5);
  assert.equal(set.spread.point_spread_home_money, -110);
  // The home alternate -4.5 pairs with an away +4.5 the book does not offer.
  assert.deepEqual(set.spread.extended_spreads, [
    {
      event_id: 'e'.repeat(32),
      affiliate_id: 19,
      point_spread_away: 0.0001,
      point_spread_away_money: 0.0001,
      point_spread_home: -4.5,
      point_spread_home_money: 105,
      date_updated: '2026-11-23T10:00:00.000Z',
    },
  ]);
  assert.deepEqual(
    [set.total.total_over, set.total.total_over_money, set.total.total_under, set.total.total_under_money],
    [221.5, -108, 221.5, -112],
  );
  assert.deepEqual(set.total.extended_totals, []);
  // Seven prices per book: two moneylines, three spreads, two totals; no score without include=scores.
  assert.equal(prices, 14);
  assert.equal(event.score, undefined);
  assert.equal(event.line_periods, undefined);
});

test('line ids are the smallest price id of the book’s lines in the period, and stay when prices move', async () => {
  const state = await board();
  const ids = (s: typeof state) => {
    const out = new Map<number, number>();
    for (const m of s.markets.values())
      for (const p of m.participants.values())
        for (const l of p.lines.values())
          for (const pr of l.prices.values())
            out.set(pr.affiliate_id, Math.min(out.get(pr.affiliate_id) ?? Infinity, pr.id));
    return out;
  };
  const { event } = viewV1Event(state, all(), SIMULATOR_CATALOG);
  assert.equal(event.lines['19']!.line_id, ids(state).get(19));
  assert.equal(event.lines['23']!.line_id, ids(state).get(23));
  assert.notEqual(event.lines['19']!.line_id, event.lines['23']!.line_id);
  const moved = await board([
    price(E, { market_id: 2, participant_id: 2014, affiliate_id: 19, line: '-4.5', price: -108, is_main_line: true }),
  ]);
  assert.equal(viewV1Event(moved, all(), SIMULATOR_CATALOG).event.lines['19']!.line_id, event.lines['19']!.line_id);
});

test('deltas: the price delta of each main price, the points a main-line move covered', async () => {
  const state = await board([
    price(E, { market_id: 1, participant_id: 2002, affiliate_id: 19, price: 125 }),
    price(E, { market_id: 2, participant_id: 2014, affiliate_id: 19, line: '-4.5', price: -108, is_main_line: true }),
    price(E, { market_id: 3, participant_id: 0, affiliate_id: 19, line: '222.5', price: -105, is_main_line: true }),
  ]);
  const set = viewV1Event(state, all(), SIMULATOR_CATALOG).event.lines['19']!;
  assert.equal(set.moneyline.moneyline_away, 125);
  assert.equal(set.moneyline.moneyline_away_delta, -5);
  assert.equal(set.spread.point_spread_home, -4.5);
  assert.equal(set.spread.point_spread_home_delta, -1);
  // The home price on -4.5 was 105 before the move.
  assert.equal(set.spread.point_spread_home_money_delta, -213);
  assert.equal(set.total.total_over, 222.5);
  assert.equal(set.total.total_over_delta, 1);
  // The old main lines are alternates now; the away main (+3.5) did not move, so -3.5 pairs with nothing.
  assert.deepEqual(
    set.spread.extended_spreads.map((x) => [x.point_spread_away, x.point_spread_home, x.point_spread_home_money]),
    [[0.0001, -3.5, -110]],
  );
  assert.deepEqual(
    set.total.extended_totals.map((x) => [x.total_over, x.total_over_money, x.total_under, x.total_under_money]),
    [[221.5, -108, 0.0001, 0.0001]],
  );
  // Book 23 did not move.
  assert.equal(viewV1Event(state, all(), SIMULATOR_CATALOG).event.lines['23']!.spread.point_spread_home_delta, 0);
});

test('include=all_periods: every book with every period, empty periods off the board with line id 0', async () => {
  const state = await board([
    price(E, { market_id: 4, period_id: 1, participant_id: 2002, affiliate_id: 23, price: 140 }),
    price(E, { market_id: 41, participant_id: 2014, affiliate_id: 6, price: -300 }),
  ]);
  const { event } = viewV1Event(state, all('all_periods'), SIMULATOR_CATALOG);
  const periods = event.line_periods!;
  assert.deepEqual(Object.keys(periods), ['6', '19', '23']);
  assert.deepEqual(Object.keys(periods['23']!), [
    'period_full_game',
    'period_first_half',
    'period_second_half',
    'period_first_period',
    'period_second_period',
    'period_third_period',
    'period_fourth_period',
    'period_live_full_game',
  ]);
  assert.equal(periods['23']!.period_first_half!.moneyline.moneyline_away, 140);
  assert.equal(periods['23']!.period_first_half!.period_id, 1);
  assert.ok(periods['23']!.period_first_half!.line_id > 0);
  assert.equal(periods['19']!.period_first_half!.line_id, 0);
  assert.equal(periods['19']!.period_first_half!.moneyline.moneyline_away, 0.0001);
  assert.equal(periods['6']!.period_live_full_game!.moneyline.moneyline_home, -300);
  assert.equal(periods['6']!.period_live_full_game!.period_id, 7);
  // Book 6 prices no full game: it is not in lines, which stay the full-game sets.
  assert.deepEqual(Object.keys(event.lines), ['19', '23']);
  assert.equal(event.lines['19'], periods['19']!.period_full_game);
});

test('the plan and affiliate_ids narrow the books and periods; include=scores adds the score', async () => {
  const state = await board([
    { kind: 'score', event_id: E, score: score(E, 'STATUS_IN_PROGRESS', 3, 5) },
    price(E, { market_id: 41, participant_id: 2014, affiliate_id: 19, price: -300 }),
  ]);
  const noLive: PlanScope = Object.assign(Object.create(Object.getPrototypeOf(OPEN_SCOPE)), OPEN_SCOPE, {
    liveOdds: false,
    books: new Set([23]),
  });
  const { event } = viewV1Event(state, all('scores,all_periods', noLive), SIMULATOR_CATALOG);
  assert.deepEqual(Object.keys(event.lines), ['23']);
  assert.deepEqual(Object.keys(event.line_periods!), ['23']);
  assert.equal(event.line_periods!['23']!.period_live_full_game!.moneyline.moneyline_home, 0.0001);
  assert.equal(event.score!.event_status, 'STATUS_IN_PROGRESS');
  assert.equal(event.score!.score_home, 5);
  assert.deepEqual(Object.keys(viewV1Event(state, all(undefined, OPEN_SCOPE, '19'), SIMULATOR_CATALOG).event.lines), [
    '19',
  ]);
});

test('the caches: an event serialised once per change and filter, filters parsed once, on the byte budget', async () => {
  const state = await board();
  const budget = new ByteBudget(1 << 20);
  // What the trick keeps ('kept'), whatever ODDSBASE_PLAIN says: its plain twin keeps nothing.
  const cache = new V1EventCache(budget, SIMULATOR_CATALOG, 'kept');
  const filters = new V1FilterCache(budget, 'kept');
  const f = filters.get(OPEN_SCOPE, { include: 'scores' });
  assert.equal(filters.get(OPEN_SCOPE, { include: ['scores'] }), f);
  assert.notEqual(filters.get(OPEN_SCOPE, { include: 'all_periods' }), f);
  const once = cache.event(state, f);
  assert.ok(budget.stats().bytes < once.body.length, 'asked once: a mark, not the view');
  const first = cache.event(state, f);
  assert.notEqual(first, once);
  assert.equal(cache.event(state, f), first, 'asked again: kept');
  assert.ok(budget.stats().bytes > first.body.length);
  assert.equal(first.points, 2 + 14);
  assert.deepEqual(
    JSON.parse(first.body.toString()),
    JSON.parse(JSON.stringify(viewV1Event(state, f, SIMULATOR_CATALOG).event)),
  );
  state.version++;
  assert.notEqual(cache.event(state, f), first);
});
