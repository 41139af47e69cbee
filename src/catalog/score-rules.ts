import {
  finalDetail,
  type PeriodScheme,
  PRESEASON_SPORT_IDS,
  REGULATION_PERIODS,
  sum,
  winners,
} from '../domain/score.ts';
import type { Score } from '../domain/types.ts';
import { sportProfile } from './sports.ts';

/**
 * The spec's score rules for a sport id: the pure rules of domain/score.ts with the period scheme
 * the sport's discipline gives, which only the catalog knows.
 */

export function schemeForSport(sportId: number): PeriodScheme {
  switch (sportProfile(sportId)?.discipline) {
    case 'football':
      return 'quarters';
    case 'basketball':
      return sportId === 5 ? 'halves' : 'quarters';
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

/**
 * Checks a score against the spec's score rules for its sport; returns one message per broken
 * rule (empty when the score is consistent).
 */
export function scoreRuleViolations(score: Score, sportId: number): string[] {
  const out: string[] = [];
  const scheme = schemeForSport(sportId);
  const away = score.score_away_by_period;
  const home = score.score_home_by_period;
  const final = score.event_status === 'STATUS_FINAL';
  for (const v of [score.score_away, score.score_home, ...away, ...home]) {
    if (!Number.isInteger(v) || v < 0) out.push(`scores must be non-negative integers, got ${v}`);
  }
  const decidedByScore = scheme !== 'rounds' && scheme !== 'none';
  if (decidedByScore) {
    const w = winners(score.event_status, score.score_away, score.score_home);
    if (w.winner_away !== score.winner_away || w.winner_home !== score.winner_home) {
      out.push('winner flags do not match the final score');
    }
  } else if (!final && (score.winner_away !== 0 || score.winner_home !== 0)) {
    out.push('winner flags set before the final');
  }
  if (final && away.length === 0 && home.length === 0 && PRESEASON_SPORT_IDS.has(sportId)) return out;
  if (scheme === 'rounds' || scheme === 'none') {
    if (away.length > 0 || home.length > 0) out.push(`${scheme} scores carry no period entries`);
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
    out.push(scheme === 'sets' ? 'sets won do not match the set scores' : 'period entries do not add up to the score');
  }
  if (scheme === 'innings') {
    if (away.length !== score.game_period) out.push('away innings count differs from game_period');
    const short = home.length === away.length - 1;
    if (home.length !== away.length && !short) out.push('home innings must equal away innings or one fewer');
    if (final) {
      if (away.length < REGULATION_PERIODS.innings) out.push('a final needs at least nine innings');
      if (short && score.score_home <= score.score_away) {
        out.push('home may skip its last at-bat only when it leads');
      }
    }
  } else if (scheme !== 'cricket') {
    if (away.length !== home.length) out.push('both sides need the same number of period entries');
    if (away.length !== score.game_period) {
      out.push(`game_period ${score.game_period} differs from ${away.length} period entries`);
    }
    const regulation = REGULATION_PERIODS[scheme];
    if (final && regulation > 0 && away.length < regulation) out.push('a final needs every regulation period');
  }
  if (final) {
    const shootout = scheme === 'hockey' && score.event_status_detail === 'Final/SO';
    const expected = finalDetail(scheme, scheme === 'sets' ? 0 : score.game_period, shootout);
    if (score.event_status_detail !== expected) {
      out.push(`event_status_detail "${score.event_status_detail}" should be "${expected}"`);
    }
  }
  return out;
}
