import type { EventStatus } from './types.ts';

/**
 * The score rules of the spec as pure functions: period arrays, game_period, status details,
 * clocks and winners. Feeds build scores with them and tests check scores against them.
 */

/** How a sport counts periods; it decides labels, regulation length and final markers. */
export type PeriodScheme =
  /** Pro and college football, pro basketball: four quarters, then one period per overtime. */
  | 'quarters'
  /** College basketball: two halves, then one period per overtime. */
  | 'halves'
  /** Three periods, then overtime periods; a regular-season shootout adds a final 'SO' period. */
  | 'hockey'
  /** Two halves; the clock counts up. */
  | 'soccer'
  /** Nine innings; the home side skips the bottom of the last inning when it leads. */
  | 'innings'
  /** Tennis sets: period entries are games won in each set, the score is sets won. */
  | 'sets'
  /** MMA rounds: no period entries, the winner is in winner_away/winner_home. */
  | 'rounds'
  /** Cricket: one innings per side, one entry each, runs as the score. */
  | 'cricket'
  /** Contests without periods (politics). */
  | 'none';

export const REGULATION_PERIODS: Readonly<Record<PeriodScheme, number>> = {
  quarters: 4,
  halves: 2,
  hockey: 3,
  soccer: 2,
  innings: 9,
  sets: 0,
  rounds: 0,
  cricket: 2,
  none: 0,
};

/** Spec rule 5: preseason sport ids may end final with empty period arrays. */
export const PRESEASON_SPORT_IDS: ReadonlySet<number> = new Set([23, 25]);

export function ordinal(n: number): string {
  const tens = n % 100;
  if (tens >= 11 && tens <= 13) return `${n}th`;
  const suffix = ['th', 'st', 'nd', 'rd'][n % 10] ?? 'th';
  return `${n}${n % 10 > 3 ? 'th' : suffix}`;
}

/** Seconds as "M:SS" ("5:12", "0:07"); fractions are truncated. */
export function formatClock(seconds: number): string {
  const s = Math.max(0, Math.floor(seconds));
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;
}

/** "OT" for the first overtime, then "2OT", "3OT" ... */
export function overtimeLabel(overtime: number): string {
  return overtime <= 1 ? 'OT' : `${overtime}OT`;
}

/** Short name of a period: "Q3", "OT", "2nd Half", "3rd", "R2", "Set 2", "7th". */
export function periodLabel(scheme: PeriodScheme, period: number): string {
  const regulation = REGULATION_PERIODS[scheme];
  switch (scheme) {
    case 'quarters':
      return period > regulation ? overtimeLabel(period - regulation) : `Q${period}`;
    case 'halves':
      return period > regulation ? overtimeLabel(period - regulation) : `${ordinal(period)} Half`;
    case 'hockey':
      return period > regulation ? overtimeLabel(period - regulation) : ordinal(period);
    case 'soccer':
      return `${ordinal(period)} Half`;
    case 'innings':
      return ordinal(period);
    case 'sets':
      return `Set ${period}`;
    case 'rounds':
      return `R${period}`;
    case 'cricket':
      return `${ordinal(period)} Innings`;
    default:
      return '';
  }
}

/** "Final", "Final/OT", "Final/2OT", "Final/SO", or "Final/10" for extra innings. */
export function finalDetail(scheme: PeriodScheme, periods: number, shootout = false): string {
  if (scheme === 'hockey' && shootout) return 'Final/SO';
  const regulation = REGULATION_PERIODS[scheme];
  if (regulation === 0 || periods <= regulation) return 'Final';
  if (scheme === 'innings') return `Final/${periods}`;
  if (scheme === 'soccer' || scheme === 'cricket') return 'Final';
  return `Final/${overtimeLabel(periods - regulation)}`;
}

/** Soccer minute notation of elapsed match seconds: "34'", "45'+2'", "90'+3'". */
export function soccerMinute(elapsedSeconds: number, half: number): string {
  const minute = Math.floor(Math.max(0, elapsedSeconds) / 60) + 1;
  const limit = half <= 1 ? 45 : 90;
  return minute > limit ? `${limit}'+${minute - limit}'` : `${minute}'`;
}

/** The formatted clock of a score: "M:SS" for countdown clocks, minutes in soccer, "0:00" elsewhere. */
export function displayClock(scheme: PeriodScheme, clock: number, period: number): string {
  switch (scheme) {
    case 'quarters':
    case 'halves':
    case 'hockey':
    case 'rounds':
      return formatClock(clock);
    case 'soccer':
      return soccerMinute(clock, period);
    default:
      return '0:00';
  }
}

export interface DetailState {
  scheme: PeriodScheme;
  status: EventStatus;
  /** Current period number (1-based); for a final, the number of periods played. */
  period: number;
  /** Seconds left in the period (countdown schemes) or elapsed match seconds (soccer). */
  clock: number;
  /** The current period has ended and the next has not begun. */
  periodOver?: boolean;
  /** Baseball: which half of the inning is being played (or has just ended). */
  half?: 'top' | 'bottom';
  /** Hockey: the game is (or was) decided in a shootout. */
  shootout?: boolean;
}

/** event_status_detail: "Q3 5:12", "Halftime", "Top 7th", "End 2nd", "Final/OT" ... */
export function statusDetail(s: DetailState): string {
  switch (s.status) {
    case 'STATUS_SCHEDULED':
      return 'Scheduled';
    case 'STATUS_POSTPONED':
      return 'Postponed';
    case 'STATUS_CANCELED':
      return 'Canceled';
    case 'STATUS_HALFTIME':
      return 'Halftime';
    case 'STATUS_FINAL':
      return finalDetail(s.scheme, s.period, s.shootout);
    default:
      return liveDetail(s);
  }
}

function liveDetail(s: DetailState): string {
  const label = periodLabel(s.scheme, s.period);
  switch (s.scheme) {
    case 'innings':
      if (s.periodOver) return `${s.half === 'bottom' ? 'End' : 'Mid'} ${label}`;
      return `${s.half === 'bottom' ? 'Bot' : 'Top'} ${label}`;
    case 'soccer':
      return soccerMinute(s.clock, s.period);
    case 'hockey':
      if (s.shootout) return 'SO';
      return s.periodOver ? `End ${label}` : `${label} ${formatClock(s.clock)}`;
    case 'quarters':
    case 'halves':
    case 'rounds':
      return s.periodOver ? `End ${label}` : `${label} ${formatClock(s.clock)}`;
    case 'cricket':
      return s.periodOver ? 'Innings Break' : label;
    case 'sets':
      return label;
    default:
      return 'In Progress';
  }
}

/** winner_away / winner_home: 1 for the side that won a final game, otherwise 0 (ties: both 0). */
export function winners(
  status: EventStatus,
  scoreAway: number,
  scoreHome: number,
): { winner_away: number; winner_home: number } {
  if (status !== 'STATUS_FINAL' || scoreAway === scoreHome) return { winner_away: 0, winner_home: 0 };
  return scoreAway > scoreHome ? { winner_away: 1, winner_home: 0 } : { winner_away: 0, winner_home: 1 };
}

/**
 * Makes sure a side's array has an entry for `period`, which that side has now begun to play.
 * Entries are only ever added for periods actually reached, so arrays are never padded.
 */
export function openPeriod(byPeriod: number[], period: number): void {
  while (byPeriod.length < period) byPeriod.push(0);
}

/** Adds points to the entry of `period`, opening it first if needed. */
export function addPeriodPoints(byPeriod: number[], period: number, points: number): void {
  openPeriod(byPeriod, period);
  // Periods are 1-based and openPeriod has just made the entry.
  byPeriod[period - 1]! += points;
}

export function sum(values: readonly number[]): number {
  return values.reduce((acc, v) => acc + v, 0);
}
