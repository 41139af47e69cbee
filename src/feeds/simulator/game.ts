import type { Discipline } from '../../catalog/sports.ts';
import type { Score } from '../../domain/types.ts';
import type { CreditReader, Engine, GameContext } from './games/base.ts';
import { BaseballGame } from './games/baseball.ts';
import { BasketballGame } from './games/basketball.ts';
import { CricketGame } from './games/cricket.ts';
import { FootballGame } from './games/football.ts';
import { HockeyGame } from './games/hockey.ts';
import { MmaGame } from './games/mma.ts';
import { PoliticsGame } from './games/politics.ts';
import { SoccerGame } from './games/soccer.ts';
import { TennisGame } from './games/tennis.ts';

export type { CreditReader, Engine, GameContext, PlayerStats, ScoreCore, Segment, Side } from './games/base.ts';

/** An engine that can pick up a committed game after a restart. */
type Resumable = Engine & { restore(score: Score, state: Record<string, unknown>, credited: CreditReader): void };

function build(discipline: Discipline, ctx: GameContext): Resumable {
  switch (discipline) {
    case 'football':
      return new FootballGame(ctx);
    case 'basketball':
      return new BasketballGame(ctx);
    case 'baseball':
      return new BaseballGame(ctx);
    case 'hockey':
      return new HockeyGame(ctx);
    case 'soccer':
      return new SoccerGame(ctx);
    case 'tennis':
      return new TennisGame(ctx);
    case 'mma':
      return new MmaGame(ctx);
    case 'cricket':
      return new CricketGame(ctx);
    default:
      return new PoliticsGame(ctx);
  }
}

/** A game engine of the discipline, at the start of play. */
export function startGame(discipline: Discipline, ctx: GameContext): Engine {
  return build(discipline, ctx);
}

/**
 * A game engine of the discipline, continuing from a committed score, live game state and box
 * score (`credited`: what a player's plays have earned so far).
 */
export function resumeGame(
  discipline: Discipline,
  ctx: GameContext,
  score: Score,
  liveState: Record<string, unknown> | undefined,
  credited: CreditReader,
): Engine {
  const engine = build(discipline, ctx);
  engine.restore(score, liveState ?? {}, credited);
  // What the constructor recorded (a lineup) was sent when the game first started.
  engine.takePlays();
  return engine;
}
