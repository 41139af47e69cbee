import assert from 'node:assert/strict';
import { before, test } from 'node:test';
import { Board } from '../../src/board/board.ts';
import type { EventState } from '../../src/board/event-state.ts';
import { MemoryBus } from '../../src/bus/memory-bus.ts';
import { type Discipline, SPORTS } from '../../src/catalog/sports.ts';
import { statByName, statById } from '../../src/catalog/stats.ts';
import type { Play, PlayInput } from '../../src/domain/plays.ts';
import { Simulator } from '../../src/feeds/simulator/index.ts';
import { Ledger } from '../../src/ledger/ledger.ts';
import type { LedgerSink, UpdateBatch } from '../../src/ledger/updates.ts';
import { MemoryStore } from '../../src/store/memory/memory-store.ts';
import { SCORING_STATS } from '../helpers/fixtures.ts';

/**
 * One simulated weekend of one sport id per discipline, through the real ledger: every final game's
 * plays add up to its score, its box score to its plays, and every live state names its last play.
 */

const NOW = Date.parse('2026-11-23T09:00:00Z');
/** One sport id per discipline that plays over the weekend before NOW. */
const SPORT_IDS = [1, 3, 4, 6, 7, 11, 21, 22, 38];
/** The start of the day before NOW: games that start earlier are not filled. */
const SPLIT = Date.parse('2026-11-22T00:00:00Z');
interface Run {
  board: Board;
  store: MemoryStore;
  /** Each event's plays as the feed sent them, in order. */
  sent: Map<string, PlayInput[]>;
  /** Live states that followed plays in a batch, with the last of those plays. */
  followed: { eventId: string; lastPlay: string; liveState: Record<string, unknown> | null | undefined }[];
}

let run: Run;

before(async () => {
  const store = new MemoryStore();
  const board = new Board();
  const ledger = await Ledger.open(store, board, new MemoryBus(), { now: () => NOW });
  const sent = new Map<string, PlayInput[]>();
  const followed: Run['followed'] = [];
  const sink: LedgerSink = {
    async apply(batch: UpdateBatch) {
      const last = new Map<string, string>();
      for (const u of batch.updates) {
        if (u.kind === 'play') {
          const list = sent.get(u.event_id) ?? [];
          list.push(u.play);
          sent.set(u.event_id, list);
          last.set(u.event_id, u.play.description);
        } else if (u.kind === 'score' && last.has(u.event_id)) {
          followed.push({ eventId: u.event_id, lastPlay: last.get(u.event_id)!, liveState: u.live_game_state });
        }
      }
      await ledger.apply(batch);
    },
  };
  const sim = new Simulator({ seed: 3, speed: 1, sink, state: board, now: () => NOW, sportIds: SPORT_IDS });
  // The rules hold game by game: the games of the day before NOW are enough (split leaves out earlier starts).
  await sim.backfill(undefined, { split: SPLIT });
  run = { board, store, sent, followed };
});

const disciplineOf = (ev: EventState): Discipline => SPORTS.find((s) => s.sport_id === ev.info.sport_id)!.discipline;

function finals(): EventState[] {
  return [...run.board.events.values()].filter((e) => e.info.score?.event_status === 'STATUS_FINAL');
}

test('every discipline but politics has final games with plays; politics has none', () => {
  const withPlays = new Set(
    finals()
      .filter((e) => (e.game?.plays ?? 0) > 0)
      .map(disciplineOf),
  );
  for (const d of ['football', 'baseball', 'basketball', 'hockey', 'mma', 'soccer', 'cricket', 'tennis'] as const) {
    assert.ok(withPlays.has(d), `${d}: no final game with plays`);
  }
  assert.ok(!withPlays.has('politics'));
});

test('plays are numbered 1.. per event and their running scores reach the final score', async () => {
  for (const ev of finals()) {
    const count = ev.game?.plays ?? 0;
    if (count === 0) continue;
    const page = await run.store.readPlays(ev.info.event_id, 1, count);
    const plays = (JSON.parse(`[${page.toString()}]`) as Play[]).reverse();
    assert.deepEqual(
      plays.map((p) => p.sequence),
      Array.from({ length: count }, (_, i) => i + 1),
    );
    const last = plays.at(-1)!;
    const score = ev.info.score!;
    assert.deepEqual([last.score_away, last.score_home], [score.score_away, score.score_home], ev.info.event_id);
    for (const p of plays) assert.equal(p.event_id, ev.info.event_id);
  }
});

test('each play’s scoring credits are exactly the change of the running score', () => {
  for (const ev of finals()) {
    const sent = run.sent.get(ev.info.event_id) ?? [];
    const scoring = SCORING_STATS[disciplineOf(ev)];
    const [away, home] = ev.info.teams;
    let prev = { away: 0, home: 0 };
    for (const p of sent) {
      const credited = (teamId: number) =>
        p.credits.filter((c) => c.team_id === teamId && scoring.includes(c.stat)).reduce((a, c) => a + c.n, 0);
      if (scoring.length > 0) {
        assert.equal(p.score_away - prev.away, credited(away!.team_id), `${ev.info.event_id}: ${p.description}`);
        assert.equal(p.score_home - prev.home, credited(home!.team_id), `${ev.info.event_id}: ${p.description}`);
      }
      prev = { away: p.score_away, home: p.score_home };
    }
  }
});

test('the box score is the sum of the plays’ credits, and each team value the sum of its players’', () => {
  let checked = 0;
  for (const ev of finals()) {
    const game = ev.game;
    const sent = run.sent.get(ev.info.event_id) ?? [];
    if (!game || sent.length === 0) continue;
    const teams = new Map<string, number>();
    const players = new Map<string, number>();
    for (const p of sent) {
      for (const c of p.credits) {
        const stat = statByName(ev.info.sport_id, c.stat)!;
        if (c.player_id !== undefined && stat.scope !== 'team') {
          const key = `${c.player_id}:${stat.id}`;
          players.set(key, (players.get(key) ?? 0) + c.n);
        }
        if (stat.scope !== 'player') {
          const key = `${c.team_id}:${stat.id}`;
          teams.set(key, (teams.get(key) ?? 0) + c.n);
        }
      }
    }
    const boxTeams = new Map<string, number>();
    for (const [teamId, stats] of game.teams) for (const [statId, v] of stats) boxTeams.set(`${teamId}:${statId}`, v);
    const boxPlayers = new Map<string, number>();
    for (const [playerId, line] of game.players) {
      for (const [statId, v] of line.stats) boxPlayers.set(`${playerId}:${statId}`, v);
    }
    assert.deepEqual(boxTeams, teams, ev.info.event_id);
    assert.deepEqual(boxPlayers, players, ev.info.event_id);
    // Stats kept on both levels: the team's value is its players' sum.
    for (const [teamId, stats] of game.teams) {
      for (const [statId, v] of stats) {
        if (statById(statId)!.scope !== 'both') continue;
        let sum = 0;
        for (const line of game.players.values()) if (line.team_id === teamId) sum += line.stats.get(statId) ?? 0;
        const teamOnly = sent
          .flatMap((p) => p.credits)
          .filter(
            (c) =>
              c.team_id === teamId && c.player_id === undefined && statByName(ev.info.sport_id, c.stat)?.id === statId,
          )
          .reduce((a, c) => a + c.n, 0);
        assert.equal(v, sum + teamOnly, `${ev.info.event_id} stat ${statId}`);
      }
    }
    checked++;
  }
  assert.ok(checked >= 20, `${checked} games checked`);
});

test('baseball boxes flag each starting pitcher, and position players pitching only sparsely', () => {
  const starting = statByName(3, 'startingPitcher')!.id;
  const positional = statByName(3, 'positionPlayerPitching')!.id;
  let games = 0;
  for (const ev of finals()) {
    if (ev.info.sport_id !== 3 || !ev.game) continue;
    games++;
    const starters = [...ev.game.players.values()].filter((l) => l.stats.get(starting) === 1);
    assert.equal(starters.length, 2, ev.info.event_id);
    assert.notEqual(starters[0]!.team_id, starters[1]!.team_id);
    for (const line of ev.game.players.values()) {
      const flag = line.stats.get(positional);
      if (flag !== undefined) assert.equal(flag, 1);
    }
  }
  assert.ok(games > 0);
});

test('a live state sent with plays names the last of them', () => {
  assert.ok(run.followed.length > 100);
  for (const f of run.followed) {
    if (f.liveState) assert.equal(f.liveState.last_play, f.lastPlay, f.eventId);
  }
});

test('a restart rebuilds play counts and box scores from the store', async () => {
  const board = new Board();
  await Ledger.open(run.store, board, new MemoryBus(), { now: () => NOW });
  let compared = 0;
  for (const ev of run.board.events.values()) {
    if (!ev.game) continue;
    const again = board.events.get(ev.info.event_id)!.game!;
    assert.equal(again.plays, ev.game.plays);
    assert.deepEqual(again.teams, ev.game.teams);
    assert.deepEqual(again.players, ev.game.players);
    compared++;
  }
  assert.ok(compared > 0);
});
