import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sportProfile } from '../../src/catalog/sports.ts';
import { americanToProb } from '../../src/domain/odds.ts';
import type { FuturesState } from '../../src/domain/futures.ts';
import type { EventInfo } from '../../src/domain/types.ts';
import type { FeedStateReader, PriceSnapshot } from '../../src/board/feed-state.ts';
import { afterResult, bookOdds, ladderRound, winProbabilities } from '../../src/feeds/simulator/futures-model.ts';
import { FuturesSim } from '../../src/feeds/simulator/futures.ts';
import { boardsAround, FUTURES_SPORTS } from '../../src/feeds/simulator/futures-calendar.ts';
import type { FuturesPriceUpdate, Update } from '../../src/ledger/updates.ts';

const T = Date.parse('2026-11-25T12:00:00Z');

test('fair chances sum to 1 and a book’s implied chances sum above 1 with its overround', () => {
  const strengths = Array.from({ length: 30 }, (_, i) => (i - 15) / 8);
  const fair = winProbabilities(strengths);
  assert.ok(Math.abs(fair.reduce((a, b) => a + b, 0) - 1) < 1e-9);
  const odds = bookOdds(
    fair,
    0.25,
    fair.map(() => 1),
  );
  const implied = odds.reduce((a, o) => a + americanToProb(o), 0);
  assert.ok(implied > 1.2 && implied < 1.6, `implied ${implied}`);
  for (const o of odds) assert.ok(Number.isInteger(o) && Math.abs(o) >= 100);
});

test('a win shortens a team’s odds and a loss lengthens them', () => {
  const strengths = [0.2, 0, -0.3, 0.5];
  const before = bookOdds(winProbabilities(strengths), 0.2, [1, 1, 1, 1]);
  const moved = [...strengths];
  moved[1] = afterResult(afterResult(afterResult(moved[1]!, 'win'), 'win'), 'win');
  moved[2] = afterResult(afterResult(afterResult(moved[2]!, 'loss'), 'loss'), 'loss');
  const after = bookOdds(winProbabilities(moved), 0.2, [1, 1, 1, 1]);
  assert.ok(after[1]! < before[1]!, `${before[1]} -> ${after[1]}`);
  assert.ok(after[2]! > before[2]!, `${before[2]} -> ${after[2]}`);
  assert.equal(afterResult(0.4, 'draw'), 0.4);
});

test('long odds sit on the ladder, rounded down', () => {
  assert.equal(ladderRound(2540), 2500);
  assert.equal(ladderRound(733), 725);
  assert.equal(ladderRound(-112), -110);
  assert.equal(ladderRound(101), 100);
});

/** The committed state a simulator reads: futures states only (no games committed). */
class Boards implements FeedStateReader {
  readonly states = new Map<string, FuturesState>();
  event(): EventInfo | undefined {
    return undefined;
  }
  eventIds(): Iterable<string> {
    return [];
  }
  price() {
    return undefined;
  }
  linePrices(): ReadonlyMap<string, PriceSnapshot> {
    return new Map();
  }
  futuresState(id: string): FuturesState | undefined {
    return this.states.get(id);
  }
  playerStat(): number {
    return 0;
  }
  headId(): number {
    return 0;
  }
}

function run(sportId: number) {
  const state = new Boards();
  const out: Update[] = [];
  const sim = new FuturesSim(
    7,
    state,
    (u) => {
      out.push(u);
      if (u.kind === 'futures_board') state.states.set(u.board.event_id, 'open');
      if (u.kind === 'futures_settlement') state.states.set(u.event_id, u.state);
    },
    [sportProfile(sportId)!],
  );
  return { sim, out, state };
}

test('a season board opens with a price per book and team, and a result moves only what changed', () => {
  const { sim, out } = run(4);
  sim.tick(T);
  const board = out.find((u) => u.kind === 'futures_board');
  assert.ok(board && board.kind === 'futures_board');
  const field = board.board.markets[0]!.participants;
  // Every winner board is on the spec's 1141 (issue 43), the season's too.
  assert.equal(board.board.markets[0]!.market_id, 1141);
  assert.equal(field.length, 30);
  const first = out.filter((u): u is FuturesPriceUpdate => u.kind === 'futures_price');
  const books = new Set(first.map((u) => u.affiliate_id));
  assert.equal(first.length, books.size * 30);
  const price = (list: FuturesPriceUpdate[], team: number) =>
    list.filter((u) => u.participant_id === team).map((u) => u.price);
  const [winner, loser] = [field[0]!.id, field[1]!.id];
  const last = new Map(
    [...books].map((b) => [
      b,
      price(
        first.filter((u) => u.affiliate_id === b),
        winner,
      )[0]!,
    ]),
  );
  out.length = 0;
  for (let i = 0; i < 6; i++)
    sim.onResult({ sportId: 4, startMs: T - 3_600_000, awayId: winner, homeId: loser, winner: 'away' });
  const moved = out.filter((u): u is FuturesPriceUpdate => u.kind === 'futures_price');
  assert.ok(moved.length > 0 && moved.length < first.length * 6, `${moved.length} rows`);
  for (const [book, was] of last) {
    const now = moved.filter((u) => u.affiliate_id === book && u.participant_id === winner).at(-1)?.price;
    assert.ok(now !== undefined && now < was, `book ${book}: ${was} -> ${now}`);
  }
  // A preseason game moves nothing.
  out.length = 0;
  sim.onResult({ sportId: 23, startMs: T - 3_600_000, awayId: winner, homeId: loser, winner: 'away' });
  assert.equal(out.length, 0);
});

test('a board settles at its end, with a listed winner or void, and never twice', () => {
  const { sim, out } = run(40);
  sim.tick(T);
  const golf = out.find((u) => u.kind === 'futures_board');
  assert.ok(golf && golf.kind === 'futures_board');
  assert.equal(golf.board.markets[0]!.market_id, 1141);
  assert.equal(golf.board.markets[0]!.participants[0]!.type, 'TYPE_PLAYER');
  const ends = Date.parse(golf.board.ends_at);
  sim.tick(ends + 1000);
  sim.tick(ends + 60_000);
  const settled = out.filter((u) => u.kind === 'futures_settlement' && u.event_id === golf.board.event_id);
  assert.equal(settled.length, 1);
  const s = settled[0]!;
  assert.ok(s.kind === 'futures_settlement');
  if (s.state === 'settled')
    assert.ok(golf.board.markets[0]!.participants.some((p) => p.id === s.winner_participant_id));
  else assert.equal(s.winner_participant_id, null);
});

test('golf and motor racing have boards; games of their sports are none', () => {
  const strength = () => 0;
  const golf = boardsAround(7, sportProfile(40)!, T, strength);
  const motor = boardsAround(7, sportProfile(41)!, T, strength);
  assert.deepEqual(new Set(golf.map((b) => b.kind)), new Set(['golf']));
  assert.deepEqual(new Set(motor.map((b) => b.kind)), new Set(['race', 'drivers']));
  for (const b of [...golf, ...motor]) assert.ok(Date.parse(b.header.starts_at) < Date.parse(b.header.ends_at));
  // Ids are stable for a seed.
  assert.deepEqual(
    boardsAround(7, sportProfile(40)!, T, strength).map((b) => b.header.event_id),
    golf.map((b) => b.header.event_id),
  );
});

test('every sport with futures has an open board at every hour of the week, golf on Sunday night too', () => {
  const HOUR = 3_600_000;
  const monday = Date.parse('2026-11-23T00:00:00Z');
  for (const sport of FUTURES_SPORTS) {
    const { sim, state } = run(sport.sport_id);
    // Two weeks from a Monday: each hour of each day, the week's changeovers included.
    for (let t = monday; t <= monday + 14 * 24 * HOUR; t += HOUR) {
      sim.tick(t);
      const open = [...state.states.values()].filter((s) => s === 'open').length;
      assert.ok(open > 0, `sport ${sport.sport_id} has no open board at ${new Date(t).toISOString()}`);
    }
  }
  // The golf board of a week opens on the Sunday before, while the last one is decided (22:00 UTC).
  const golf = boardsAround(7, sportProfile(40)!, Date.parse('2026-11-29T20:00:00Z'), () => 0);
  const open = golf.filter((b) => b.opensMs <= Date.parse('2026-11-29T20:00:00Z'));
  assert.deepEqual(
    open.map((b) => new Date(b.endsMs).toISOString()),
    ['2026-11-22T22:00:00.000Z', '2026-11-29T22:00:00.000Z', '2026-12-06T22:00:00.000Z'],
  );
});
