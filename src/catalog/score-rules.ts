import { finalDetail, type PeriodScheme, REGULATION_PERIODS, sum, winners } from '../domain/score.ts';
import type { Score } from '../domain/types.ts';
import type { SportEntry } from './records.ts';

/**
 * The spec's score rules for a sport: the pure rules of domain/score.ts with the period scheme its
 * catalog record's discipline gives. A sport is what the current catalog holds for it (a feed's own
 * sport as much as the simulator's), never the simulator's tables.
 */

/** What the score rules read of a sport record. */
export type ScoredSport = Pick<SportEntry, 'sport_id' | 'discipline' | 'season_type'>;

/** The spec's college basketball (sport 5) plays halves; every other basketball sport quarters. */
const COLLEGE_BASKETBALL = 5;

export function schemeOf(sport: ScoredSport): PeriodScheme {
  switch (sport.discipline) {
    case 'football':
      return 'quarters';
    case 'basketball':
      return sport.sport_id === COLLEGE_BASKETBALL ? 'halves' : 'quarters';
    case 'hockey':
      return 'hockey';
    case 'soccer':
      return 'soccer';
    case 'baseball':
      return 'innings';
    case 'tennis':
      return 'sets';
    case 'mma':
      return 'rounds';
    case 'cricket':
      return 'cricket';
    default:
      return 'none';
  }
}

/** One broken rule: the field of the score it is about (a JSON pointer into the score) and why. */
export interface ScoreFault {
  field: string;
  message: string;
}

/**
 * Checks a score against the spec's score rules for its sport; returns one fault per broken rule
 * (empty when the score is consistent).
 */
export function scoreRuleViolations(score: Score, sport: ScoredSport): ScoreFault[] {
  const out: ScoreFault[] = [];
  const broken = (field: string, message: string) => out.push({ field, message });
  const scheme = schemeOf(sport);
  const away = score.score_away_by_period;
  const home = score.score_home_by_period;
  const final = score.event_status === 'STATUS_FINAL';
  const counts: [string, readonly number[]][] = [
    ['/score_away', [score.score_away]],
    ['/score_home', [score.score_home]],
    ['/score_away_by_period', away],
    ['/score_home_by_period', home],
  ];
  for (const [field, values] of counts) {
    for (const v of values) {
      if (!Number.isInteger(v) || v < 0) broken(field, `scores must be non-negative integers, got ${v}`);
    }
  }
  const decidedByScore = scheme !== 'rounds' && scheme !== 'none';
  if (decidedByScore) {
    const w = winners(score.event_status, score.score_away, score.score_home);
    if (w.winner_away !== score.winner_away || w.winner_home !== score.winner_home) {
      broken(
        w.winner_away !== score.winner_away ? '/winner_away' : '/winner_home',
        'winner flags do not match the final score',
      );
    }
  } else if (!final && (score.winner_away !== 0 || score.winner_home !== 0)) {
    broken(score.winner_away !== 0 ? '/winner_away' : '/winner_home', 'winner flags set before the final');
  }
  // Spec, score rule 5: preseason games may end final with empty period arrays.
  if (final && away.length === 0 && home.length === 0 && sport.season_type === 'Preseason') return out;
  if (scheme === 'rounds' || scheme === 'none') {
    if (away.length > 0 || home.length > 0) {
      broken(
        away.length > 0 ? '/score_away_by_period' : '/score_home_by_period',
        `${scheme} scores carry no period entries`,
      );
    }
    return out;
  }
  // A tennis score counts completed sets won; the last entry is still being played until the final.
  const done = final ? away.length : away.length - 1;
  // Sides may hold different counts of entries (reported below); a set one side lacks is won by neither.
  const setsWon = (mine: number[], theirs: number[]) =>
    mine.filter((g, i) => {
      const other = theirs[i];
      return i < done && other !== undefined && g > other;
    }).length;
  const totals = scheme === 'sets' ? [setsWon(away, home), setsWon(home, away)] : [sum(away), sum(home)];
  if (totals[0] !== score.score_away || totals[1] !== score.score_home) {
    broken(
      totals[0] !== score.score_away ? '/score_away_by_period' : '/score_home_by_period',
      scheme === 'sets' ? 'sets won do not match the set scores' : 'period entries do not add up to the score',
    );
  }
  if (scheme === 'innings') {
    if (away.length !== score.game_period) broken('/game_period', 'away innings count differs from game_period');
    const short = home.length === away.length - 1;
    if (home.length !== away.length && !short) {
      broken('/score_home_by_period', 'home innings must equal away innings or one fewer');
    }
    if (final) {
      if (away.length < REGULATION_PERIODS.innings)
        broken('/score_away_by_period', 'a final needs at least nine innings');
      if (short && score.score_home <= score.score_away) {
        broken('/score_home_by_period', 'home may skip its last at-bat only when it leads');
      }
    }
  } else if (scheme !== 'cricket') {
    if (away.length !== home.length)
      broken('/score_home_by_period', 'both sides need the same number of period entries');
    if (away.length !== score.game_period) {
      broken('/game_period', `game_period ${score.game_period} differs from ${away.length} period entries`);
    }
    const regulation = REGULATION_PERIODS[scheme];
    if (final && regulation > 0 && away.length < regulation) {
      broken('/score_away_by_period', 'a final needs every regulation period');
    }
  }
  if (final) {
    const shootout = scheme === 'hockey' && score.event_status_detail === 'Final/SO';
    const expected = finalDetail(scheme, scheme === 'sets' ? 0 : score.game_period, shootout);
    if (score.event_status_detail !== expected) {
      broken('/event_status_detail', `event_status_detail "${score.event_status_detail}" should be "${expected}"`);
    }
  }
  return out;
}
