import { probToAmerican, roundAmerican } from '../../domain/odds.ts';

/**
 * The pure rules of the simulated futures markets: a strength per participant, fair chances from
 * the strengths, results that move the strengths, and a book's outright odds with its overround.
 */

/** How sharply strength separates the field: with 30 teams of unit-normal strength the favourite holds about 15%. */
const SHARPNESS = 1.3;
/** Strength a win adds (a loss takes away): about ten wins make a mid-table team a contender. */
export const RESULT_STEP = 0.09;
/** A book never prices a participant above this implied chance. */
const MAX_IMPLIED = 0.95;

/** Fair chances of winning from strengths: a softmax, so every participant keeps some chance and they sum to 1. */
export function winProbabilities(strengths: readonly number[]): number[] {
  if (strengths.length === 0) return [];
  const top = Math.max(...strengths);
  const weights = strengths.map((s) => Math.exp(SHARPNESS * (s - top)));
  const sum = weights.reduce((a, b) => a + b, 0);
  return weights.map((w) => w / sum);
}

/** A strength after a game: wins lift it, losses lower it, a draw leaves it. */
export function afterResult(strength: number, outcome: 'win' | 'loss' | 'draw'): number {
  return outcome === 'win' ? strength + RESULT_STEP : outcome === 'loss' ? strength - RESULT_STEP : strength;
}

/** Outright overround for a field: books take more on bigger fields (20% to 45% on a 2-way margin of 4.5%). */
export function outrightOverround(twoWayMargin: number, fieldSize: number): number {
  return Math.min(0.5, twoWayMargin * (3 + fieldSize / 10));
}

/**
 * Rounds outright odds the way books quote them: long prices on a coarse ladder, always down
 * (a book shades a long shot's payout), favourites to the nearest 5.
 */
export function ladderRound(american: number): number {
  if (american < 0) return roundAmerican(american, 5);
  const step =
    american < 300
      ? 5
      : american < 1000
        ? 25
        : american < 2000
          ? 50
          : american < 5000
            ? 100
            : american < 10000
              ? 500
              : 1000;
  return Math.max(100, Math.floor(american / step) * step);
}

/**
 * A book's American odds on every participant: the fair chances scaled by the overround, each
 * tilted by the book's own opinion (a multiplier near 1), then rounded on the ladder.
 */
export function bookOdds(fair: readonly number[], overround: number, opinion: readonly number[]): number[] {
  const tilted = fair.map((p, i) => p * (opinion[i] ?? 1));
  const sum = tilted.reduce((a, b) => a + b, 0);
  return tilted.map((p) => ladderRound(probToAmerican(Math.min(MAX_IMPLIED, (p / sum) * (1 + overround)))));
}

/** The participant a uniform draw `u` in [0, 1) picks, each with its chance. */
export function drawWinner(chances: readonly number[], u: number): number {
  let acc = 0;
  for (let i = 0; i < chances.length; i++) {
    acc += chances[i]!;
    if (u < acc) return i;
  }
  return chances.length - 1;
}
