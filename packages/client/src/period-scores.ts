import type { Score } from './types.ts';

/** Preseason sport ids, excluded from results (spec: Score rules). */
const PRESEASON = new Set([23, 25]);
/** Professional football and basketball, regular season and playoffs: four periods plus overtimes. */
const FOUR_PERIODS = new Set([2, 26, 4, 24]);
/** Professional baseball, regular season and playoffs: the home side may not bat in the last inning. */
const BASEBALL = new Set([3, 31]);

export interface PeriodCheck {
  /** True when a result may be derived from the period scores. */
  usable: boolean;
  /** Each failed rule, in words. */
  problems: string[];
}

const sum = (xs: readonly number[]): number => xs.reduce((a, b) => a + b, 0);

/**
 * Whether a score's period arrays may be used to derive a result, by the spec's rules: final,
 * not preseason, each side read by its own length (never padded), each side's sum equal to its
 * final score, and the period count the sport implies (four plus one per overtime in professional
 * football and basketball, matching `game_period`; in baseball the home side equal to the away
 * side or one shorter).
 */
export function checkPeriodScores(sportId: number, score: Score): PeriodCheck {
  const problems: string[] = [];
  const away = score.score_away_by_period;
  const home = score.score_home_by_period;
  if (PRESEASON.has(sportId)) problems.push(`sport ${sportId} is preseason`);
  if (score.event_status !== 'STATUS_FINAL') problems.push(`status is ${score.event_status}, not final`);
  if (away.length === 0 || home.length === 0) problems.push('a side has no period scores');
  if (sum(away) !== score.score_away)
    problems.push(`away periods sum to ${sum(away)}, the final is ${score.score_away}`);
  if (sum(home) !== score.score_home)
    problems.push(`home periods sum to ${sum(home)}, the final is ${score.score_home}`);
  if (FOUR_PERIODS.has(sportId)) {
    if (away.length < 4 || home.length < 4) problems.push('fewer than four periods');
    if (away.length !== home.length) problems.push(`the sides have ${away.length} and ${home.length} periods`);
    if (away.length !== score.game_period) problems.push(`${away.length} periods but game_period ${score.game_period}`);
  } else if (BASEBALL.has(sportId)) {
    if (home.length !== away.length && home.length !== away.length - 1) {
      problems.push(`home has ${home.length} innings against away's ${away.length}`);
    }
  } else if (away.length !== home.length) {
    problems.push(`the sides have ${away.length} and ${home.length} periods`);
  }
  return { usable: problems.length === 0, problems };
}
