import assert from 'node:assert/strict';
import { before, test } from 'node:test';
import { Board } from '../../src/board/board.ts';
import type { GameState } from '../../src/board/event-state.ts';
import { seasonGames, sumBoxes } from '../../src/board/season-totals.ts';
import { MemoryBus } from '../../src/bus/memory-bus.ts';
import { statByName } from '../../src/catalog/stats.ts';
import type { PlayInput } from '../../src/domain/plays.ts';
import { ByteBudget } from '../../src/perf/byte-budget.ts';
import { SeasonStatsCache } from '../../src/http/season-stats.ts';
import { Ledger } from '../../src/ledger/ledger.ts';
import { MemoryStore } from '../../src/store/memory/memory-store.ts';
import { batch, creditPlay, nbaEvent, score } from '../helpers/fixtures.ts';
import { SIMULATOR_CATALOG } from '../helpers/simulator-catalog.ts';

/**
 * Season totals through the real ledger: two regular-season games of Boston (2002), one final and
 * one in progress, sum to the season; a preseason game and a game of another season stay out.
 */

const NOW = Date.parse('2026-11-20T12:00:00Z');
const AT = new Date(NOW - 3_600_000).toISOString();
const BOS = 2002;
const LAL = 2014;
const FINAL = '1'.repeat(32);
const LIVE = '2'.repeat(32);
const PRESEASON = '3'.repeat(32);
const LAST_SEASON = '4'.repeat(32);
const SELECTOR = { teamId: BOS, sportIds: [4, 23, 24, 32], year: 2027, seasonType: 'Regular Season' };

let board: Board;
let ledger: Ledger;

function game(id: string, opts: { sportId?: number; seasonType?: string; year?: number } = {}) {
  const ev = nbaEvent(id, '2026-11-19', 1);
  return {
    ...ev,
    sport_id: opts.sportId ?? 4,
    schedule: { ...ev.schedule, season_year: opts.year ?? 2027, season_type: opts.seasonType ?? 'Regular Season' },
  };
}

/** A play crediting `n` of `stat` to the player in roster slot `slot` of `team`. */
const play = (team: number, slot: number, stat: string, n: number, scoreAway: number, scoreHome: number): PlayInput =>
  creditPlay(team, team * 100 + slot, stat, n, { away: scoreAway, home: scoreHome });

async function playGame(eventId: string, plays: PlayInput[], status: 'STATUS_FINAL' | 'STATUS_IN_PROGRESS') {
  const last = plays.at(-1)!;
  await ledger.apply(
    batch(AT, [
      ...plays.map((p) => ({ kind: 'play' as const, event_id: eventId, play: p })),
      { kind: 'score', event_id: eventId, score: score(eventId, status, last.score_away, last.score_home) },
    ]),
  );
}

before(async () => {
  board = new Board();
  ledger = await Ledger.open(new MemoryStore(), board, new MemoryBus(), { now: () => NOW });
  await ledger.apply(
    batch(AT, [
      { kind: 'event', event: game(FINAL) },
      { kind: 'event', event: game(LIVE) },
      { kind: 'event', event: game(PRESEASON, { sportId: 23, seasonType: 'Preseason' }) },
      { kind: 'event', event: game(LAST_SEASON, { year: 2026 }) },
    ]),
  );
  for (const id of [FINAL, LIVE, PRESEASON, LAST_SEASON]) {
    await ledger.apply(batch(AT, [{ kind: 'score', event_id: id, score: score(id, 'STATUS_IN_PROGRESS', 0, 0) }]));
  }
  await playGame(
    FINAL,
    [
      play(BOS, 1, 'points', 2, 2, 0),
      play(BOS, 2, 'points', 3, 5, 0),
      play(LAL, 1, 'points', 2, 5, 2),
      play(BOS, 1, 'rebounds', 1, 5, 2),
    ],
    'STATUS_FINAL',
  );
  await playGame(LIVE, [play(BOS, 1, 'points', 2, 2, 0), play(BOS, 3, 'assists', 1, 2, 0)], 'STATUS_IN_PROGRESS');
  await playGame(PRESEASON, [play(BOS, 1, 'points', 2, 2, 0)], 'STATUS_FINAL');
  await playGame(LAST_SEASON, [play(BOS, 1, 'points', 3, 3, 0)], 'STATUS_FINAL');
});

const boxOf = (id: string): GameState => board.getEvent(id)!.game!;

/** Sum of one stat over boxes, read straight from them. */
function sum(boxes: GameState[], read: (box: GameState) => number | undefined): number {
  return boxes.reduce((a, b) => a + (read(b) ?? 0), 0);
}

test('the regular season counts its final and in-progress games, not preseason nor another season', () => {
  const found = seasonGames(board, SELECTOR);
  assert.deepEqual(found.games.map((g) => g.eventId).sort(), [FINAL, LIVE]);
  const pre = seasonGames(board, { ...SELECTOR, seasonType: 'Preseason' });
  assert.deepEqual(
    pre.games.map((g) => g.eventId),
    [PRESEASON],
  );
  assert.deepEqual(
    seasonGames(board, { ...SELECTOR, year: 2026 }).games.map((g) => g.eventId),
    [LAST_SEASON],
  );
});

test('season totals equal the sums of the games’ boxes, for the team and each player', () => {
  const boxes = [boxOf(FINAL), boxOf(LIVE)];
  const totals = sumBoxes(
    BOS,
    seasonGames(board, SELECTOR).games.map((g) => g.box),
  );
  const points = statByName(4, 'points')!.id;
  const assists = statByName(4, 'assists')!.id;
  assert.equal(totals.team.get(points), 7);
  for (const [statId, value] of totals.team)
    assert.equal(
      value,
      sum(boxes, (b) => b.teams.get(BOS)?.get(statId)),
      `stat ${statId}`,
    );
  assert.deepEqual([...totals.players.keys()].sort(), [BOS * 100 + 1, BOS * 100 + 2, BOS * 100 + 3]);
  for (const [playerId, own] of totals.players) {
    for (const [statId, value] of own)
      assert.equal(
        value,
        sum(boxes, (b) => b.players.get(playerId)?.stats.get(statId)),
      );
  }
  assert.equal(totals.players.get(BOS * 100 + 1)!.get(points), 4);
  assert.equal(totals.players.get(BOS * 100 + 3)!.get(assists), 1);
  // The opponent's players are not Boston's.
  assert.equal(totals.players.has(LAL * 100 + 1), false);
});

test('the cached aggregate is served until a stat row of one of its games moves its key', async () => {
  // What the trick keeps ('kept'), whatever ODDSBASE_PLAIN says: its plain twin keeps nothing.
  const cache = new SeasonStatsCache(new ByteBudget(1 << 20), SIMULATOR_CATALOG, 'kept');
  const scope = {
    teamId: BOS,
    teamName: 'Boston',
    year: 2027,
    seasonTypeId: 2,
    roster: SIMULATOR_CATALOG.rosterOf(BOS),
    stats: SIMULATOR_CATALOG,
  };
  const points = statByName(4, 'points')!.id;
  const teamPoints = (json: string) =>
    JSON.parse(json).stats.find((r: { stat_id: number }) => r.stat_id === points).value;
  const first = cache.season(scope, seasonGames(board, SELECTOR));
  assert.equal(cache.season(scope, seasonGames(board, SELECTOR)), first);
  assert.equal(teamPoints(`${first.teams[0]!.head}${first.teams[0]!.rows.map((r) => r.json).join(',')}]}`), '7');
  await playGame(LIVE, [play(BOS, 2, 'points', 2, 4, 0)], 'STATUS_IN_PROGRESS');
  const second = cache.season(scope, seasonGames(board, SELECTOR));
  assert.notEqual(second, first);
  assert.equal(teamPoints(`${second.teams[0]!.head}${second.teams[0]!.rows.map((r) => r.json).join(',')}]}`), '9');
  // A game of another season leaves the key where it was.
  await playGame(LAST_SEASON, [play(BOS, 2, 'points', 2, 5, 0)], 'STATUS_FINAL');
  assert.equal(cache.season(scope, seasonGames(board, SELECTOR)), second);
});

test('archived games keep counting: the season archive sums them as the board did, through a store round trip', async () => {
  const points = statByName(4, 'points')!.id;
  const onBoard = sumBoxes(
    BOS,
    seasonGames(board, SELECTOR).games.map((g) => g.box),
  );
  const final = board.getEvent(FINAL)!;
  const adding = new Map();
  const records = board.seasons.totalsWith(final.info, final.game, adding);
  // Both teams of the game get their season's totals.
  assert.deepEqual(records.map((r) => r.key).sort(), [`4|${BOS}|2027|Regular Season`, `4|${LAL}|2027|Regular Season`]);
  board.seasons.put(adding);
  board.evict(final);
  const found = seasonGames(board, SELECTOR);
  assert.deepEqual(found.games.map((g) => g.eventId).sort(), [LIVE, 'archived:4']);
  assert.deepEqual(
    sumBoxes(
      BOS,
      found.games.map((g) => g.box),
    ),
    onBoard,
  );
  assert.equal(board.event(FINAL)?.event_id, FINAL, 'a feed still sees the archived game');
  // What the store keeps restores the same sums.
  const restored = new Board();
  restored.seasons.load(records);
  const again = restored.archivedSeason(4, BOS, 2027, 'Regular Season')!;
  assert.equal(again.games, 1);
  assert.deepEqual(sumBoxes(BOS, [again.box]), sumBoxes(BOS, [final.game!]));
  assert.ok(sumBoxes(BOS, [again.box]).team.get(points)! > 0);
  // A game that never started adds nothing.
  assert.deepEqual(board.seasons.totalsWith({ ...final.info, score: undefined }, final.game, new Map()), []);
});
