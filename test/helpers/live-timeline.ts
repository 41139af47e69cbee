import { SPORTS } from '../../src/catalog/sports.ts';
import { type ScoreCore, startGame } from '../../src/feeds/simulator/game.ts';
import { expectation, sportParams, teamRatings } from '../../src/feeds/simulator/model.ts';
import { Rng } from '../../src/feeds/simulator/rng.ts';
import { lineup } from '../../src/feeds/simulator/roster.ts';
import { DAY_MS, daySchedule, type EventSpec } from '../../src/feeds/simulator/schedule.ts';

/** One scheduled game, the time its engine takes to play it and its final score. */
export interface PlayedGame {
  spec: EventSpec;
  startMs: number;
  endMs: number;
  final: ScoreCore;
}

const STEP_S = 30;

/**
 * Plays a scheduled game with its engine alone (no books, no prices), at real time, the way the
 * simulator plays it from its start: how long it is in play and how it ends.
 */
export function playOut(seed: number, spec: EventSpec): { ms: number; final: ScoreCore } {
  const params = sportParams(spec.sport.sport_id);
  const kind = spec.sport.discipline;
  const players = (team: EventSpec['away']) => lineup(seed, team, kind);
  const engine = startGame(kind, {
    sportId: spec.sport.sport_id,
    params,
    expected: expectation(
      params,
      teamRatings(seed, spec.home.team_id),
      teamRatings(seed, spec.away.team_id),
      spec.neutral,
      0,
    ),
    rng: Rng.of(seed, 'game', spec.id),
    who: Rng.of(seed, 'game', 'who', spec.id),
    away: { team: spec.away, roster: players(spec.away) },
    home: { team: spec.home, roster: players(spec.home) },
    postseason: spec.sport.season_type === 'Postseason',
    mainEvent: spec.mainEvent,
  });
  let seconds = 0;
  while (engine.status !== 'STATUS_FINAL' && seconds < 2 * 86_400) {
    engine.advance(STEP_S);
    seconds += STEP_S;
  }
  return { ms: seconds * 1000, final: engine.score() };
}

/** Every game of every sport that starts on the UTC days [firstDay, lastDay], played out. */
export function playedGames(seed: number, firstDay: number, lastDay: number): PlayedGame[] {
  const out: PlayedGame[] = [];
  for (let day = firstDay; day <= lastDay; day++)
    for (const sport of SPORTS)
      for (const spec of daySchedule(seed, sport, day, () => false)) {
        if (spec.fate !== 'play') continue;
        const { ms, final } = playOut(seed, spec);
        out.push({ spec, startMs: spec.startMs, endMs: spec.startMs + ms, final });
      }
  return out;
}

/** Games in play at `t`. */
export function inPlayAt(games: readonly PlayedGame[], t: number): PlayedGame[] {
  return games.filter((g) => g.startMs <= t && t < g.endMs);
}

export { DAY_MS };
