import type { Score } from '../../../domain/types.ts';
import type { ClockGame, Side } from './base.ts';

/** Reading committed scores and live states back into engines after a restart. */

export function num(value: unknown, fallback: number): number {
  return typeof value === 'number' && Number.isFinite(value) ? value : fallback;
}

export function sideOf(value: unknown, fallback: Side): Side {
  return value === 'away' || value === 'home' ? value : fallback;
}

export function copyInto(target: number[], source: readonly number[]): void {
  target.length = 0;
  target.push(...source);
}

/**
 * Period, clock, arrays and break state of a clock game from its committed score. A game caught
 * in a break resumes half-way through it.
 */
export function restoreClock(game: ClockGame, score: Score): void {
  copyInto(game.away, score.score_away_by_period.length > 0 ? score.score_away_by_period : [0]);
  copyInto(game.home, score.score_home_by_period.length > 0 ? score.score_home_by_period : [0]);
  game.period = Math.max(1, score.game_period);
  game.clock = score.game_clock;
  game.status = score.event_status === 'STATUS_HALFTIME' ? 'STATUS_HALFTIME' : 'STATUS_IN_PROGRESS';
  game.inBreak = score.event_status === 'STATUS_HALFTIME' || score.event_status_detail.startsWith('End ');
  if (game.inBreak) game.breakLeft = game.status === 'STATUS_HALFTIME' ? 450 : 60;
}
