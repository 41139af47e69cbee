import type { Discipline } from '../../catalog/sports.ts';
import { sportProfile } from '../../catalog/sports.ts';
import { hashNormal } from './rng.ts';

/**
 * The pricing model: team ratings -> expected scores -> an Outlook, the distribution of a game
 * (or of one segment of it) from which every fair probability is read. Engines build live
 * Outlooks from the score and the time that is left; prematch Outlooks come from ratings alone.
 */

export interface TeamRatings {
  /** Overall quality, standard normal across a league. */
  strength: number;
  /** Scoring tendency (pace, attack), standard normal. */
  offense: number;
}

export function teamRatings(seed: number, teamId: number): TeamRatings {
  return { strength: hashNormal(seed, 'strength', teamId), offense: hashNormal(seed, 'offense', teamId) };
}

/** How the model treats a sport. */
export interface SportParams {
  discipline: Discipline;
  /** normal: points sports; poisson: goals and runs; binary: a winner only (tennis, MMA, politics). */
  family: 'normal' | 'poisson' | 'binary';
  /** Expected score of an average side. */
  perTeam: number;
  /** normal: points of margin per unit of strength difference; poisson: log-rate; binary: probit slope. */
  strengthEffect: number;
  /** normal: points; poisson: log-rate. */
  homeEdge: number;
  /** Relative change of a side's expected score per unit of offense rating. */
  offenseEffect: number;
  /** Standard deviations of the final margin and total (normal family, whole game). */
  marginSd: number;
  totalSd: number;
  /** Spacing of spread and total lines; 1 means half-lines only (x.5), 0.5 allows whole numbers. */
  lineStep: 0.5 | 1;
  /** A spread that never moves from +/-this (hockey puck line, baseball run line). */
  fixedSpread?: number;
}

const base = (discipline: Discipline, rest: Omit<SportParams, 'discipline'>): SportParams => ({
  discipline,
  ...rest,
});

const NFL = base('football', {
  family: 'normal',
  perTeam: 22.5,
  strengthEffect: 4.2,
  homeEdge: 1.8,
  offenseEffect: 0.08,
  marginSd: 13.5,
  totalSd: 13,
  lineStep: 0.5,
});
const NBA = base('basketball', {
  family: 'normal',
  perTeam: 114,
  strengthEffect: 4.5,
  homeEdge: 2.5,
  offenseEffect: 0.03,
  marginSd: 12.5,
  totalSd: 17,
  lineStep: 0.5,
});
const TENNIS = base('tennis', {
  family: 'binary',
  perTeam: 0,
  strengthEffect: 0.02,
  homeEdge: 0,
  offenseEffect: 0,
  marginSd: 0,
  totalSd: 0,
  lineStep: 1,
});

const MLB = base('baseball', {
  family: 'poisson',
  perTeam: 4.4,
  strengthEffect: 0.12,
  homeEdge: 0.04,
  offenseEffect: 0.06,
  marginSd: 0,
  totalSd: 0,
  lineStep: 1,
  fixedSpread: 1.5,
});
const NHL = base('hockey', {
  family: 'poisson',
  perTeam: 3.05,
  strengthEffect: 0.15,
  homeEdge: 0.06,
  offenseEffect: 0.05,
  marginSd: 0,
  totalSd: 0,
  lineStep: 1,
  fixedSpread: 1.5,
});
const SOCCER = base('soccer', {
  family: 'poisson',
  perTeam: 1.35,
  strengthEffect: 0.3,
  homeEdge: 0.25,
  offenseEffect: 0.08,
  marginSd: 0,
  totalSd: 0,
  lineStep: 1,
});
const CRICKET = base('cricket', {
  family: 'normal',
  perTeam: 165,
  strengthEffect: 9,
  homeEdge: 4,
  offenseEffect: 0.04,
  marginSd: 32,
  totalSd: 38,
  lineStep: 1,
});
const POLITICS = base('politics', {
  family: 'binary',
  perTeam: 0,
  strengthEffect: 0.6,
  homeEdge: 0,
  offenseEffect: 0,
  marginSd: 0,
  totalSd: 0,
  lineStep: 1,
});

const PARAMS: Record<number, SportParams> = {
  1: { ...NFL, perTeam: 28, strengthEffect: 9, homeEdge: 2.5, marginSd: 16, totalSd: 15 },
  2: NFL,
  3: MLB,
  4: NBA,
  5: { ...NBA, perTeam: 72, strengthEffect: 6, homeEdge: 3.5, marginSd: 10.5, totalSd: 13 },
  6: NHL,
  7: base('mma', {
    family: 'binary',
    perTeam: 0,
    strengthEffect: 0.55,
    homeEdge: 0,
    offenseEffect: 0,
    marginSd: 0,
    totalSd: 0,
    lineStep: 1,
  }),
  8: { ...NBA, perTeam: 82, strengthEffect: 4, homeEdge: 2, marginSd: 11, totalSd: 14 },
  10: SOCCER,
  20: CRICKET,
  22: POLITICS,
  38: TENNIS,
  // Serve-dominated women's tennis turns the same rating gap into a bigger edge, so it counts less.
  39: { ...TENNIS, strengthEffect: 0.014 },
};

/** Model parameters of a sport id (variants share their discipline's parameters). */
export function sportParams(sportId: number): SportParams {
  const direct = PARAMS[sportId];
  if (direct) return direct;
  const discipline = sportProfile(sportId)?.discipline;
  switch (discipline) {
    case 'football':
      return NFL;
    case 'basketball':
      return NBA;
    case 'baseball':
      return MLB;
    case 'hockey':
      return NHL;
    case 'soccer':
      return SOCCER;
    case 'cricket':
      return CRICKET;
    case 'tennis':
      return TENNIS;
    default:
      return POLITICS;
  }
}

export interface Expectation {
  /** Expected scores (normal and poisson families). */
  home: number;
  away: number;
  /** Home's strength advantage including news, in units of strength. */
  edge: number;
}

/**
 * Expected outcome from ratings. `shift` is the news drift, in units of strength difference;
 * neutral venues drop the home edge.
 */
export function expectation(
  p: SportParams,
  home: TeamRatings,
  away: TeamRatings,
  neutral: boolean,
  shift = 0,
): Expectation {
  const d = home.strength - away.strength + shift;
  const edge = neutral ? 0 : p.homeEdge;
  if (p.family === 'normal') {
    const margin = edge + p.strengthEffect * d;
    const total = 2 * p.perTeam * (1 + (p.offenseEffect * (home.offense + away.offense)) / 2);
    return { home: (total + margin) / 2, away: (total - margin) / 2, edge: d };
  }
  if (p.family === 'poisson') {
    const h = p.perTeam * Math.exp(edge / 2 + (p.strengthEffect * d) / 2 + p.offenseEffect * home.offense);
    const a = p.perTeam * Math.exp(-edge / 2 - (p.strengthEffect * d) / 2 + p.offenseEffect * away.offense);
    return { home: h, away: a, edge: d };
  }
  return { home: 0, away: 0, edge: d };
}

/** Standard normal CDF (Abramowitz-Stegun 7.1.26, error < 1.5e-7). */
export function phi(x: number): number {
  const z = Math.abs(x) / Math.SQRT2;
  const t = 1 / (1 + 0.3275911 * z);
  const y =
    1 -
    ((((1.061405429 * t - 1.453152027) * t + 1.421413741) * t - 0.284496736) * t + 0.254829592) * t * Math.exp(-z * z);
  return x >= 0 ? 0.5 * (1 + y) : 0.5 * (1 - y);
}

/**
 * The distribution of a game or segment, from which fair probabilities are read. `cover` and
 * `over` exclude pushes (the probability given that the bet is not refunded).
 */
export interface Outlook {
  /** Probability that home wins, ties settled as the sport settles them. */
  win(): number;
  /** [away, draw, home] of the segment itself, for three-way markets. */
  threeWay(): [number, number, number];
  /** Probability that home's margin plus `homeLine` is positive (home -3.5 covers by winning by 4+). */
  cover(homeLine: number): number;
  over(line: number): number;
  /** Expected final home-minus-away margin and total of the segment. */
  readonly margin: number;
  readonly total: number;
}

/** Normal approximation, for points sports. `tieHome` splits the mass near a tie for `win`. */
export function normalOutlook(
  margin: number,
  marginSd: number,
  total: number,
  totalSd: number,
  tieHome = 0.5,
): Outlook {
  const ms = Math.max(0.35, marginSd);
  const ts = Math.max(0.35, totalSd);
  return {
    margin,
    total,
    win: () => {
      const lose = phi((-0.5 - margin) / ms);
      const winOut = 1 - phi((0.5 - margin) / ms);
      return winOut + (1 - lose - winOut) * tieHome;
    },
    threeWay: () => {
      const lose = phi((-0.5 - margin) / ms);
      const winOut = 1 - phi((0.5 - margin) / ms);
      return [lose, 1 - lose - winOut, winOut];
    },
    cover: (line) => 1 - phi((-line - margin) / ms),
    over: (line) => 1 - phi((line - total) / ts),
  };
}

/** Exact outlook from a margin distribution (index i = margin minOffset+i) and a total distribution. */
export function discreteOutlook(
  marginProbs: readonly number[],
  marginOffset: number,
  totalProbs: readonly number[],
  tieHome: number,
): Outlook {
  let margin = 0;
  let lose = 0;
  let draw = 0;
  let winOut = 0;
  marginProbs.forEach((p, i) => {
    const m = i + marginOffset;
    margin += p * m;
    if (m < 0) lose += p;
    else if (m === 0) draw += p;
    else winOut += p;
  });
  let total = 0;
  totalProbs.forEach((p, t) => {
    total += p * t;
  });
  const ratio = (above: number, below: number) => (above + below > 0 ? above / (above + below) : 0.5);
  return {
    margin,
    total,
    win: () => winOut + draw * tieHome,
    threeWay: () => [lose, draw, winOut],
    cover: (line) => {
      let above = 0;
      let below = 0;
      marginProbs.forEach((p, i) => {
        const v = i + marginOffset + line;
        if (v > 0) above += p;
        else if (v < 0) below += p;
      });
      return ratio(above, below);
    },
    over: (line) => {
      let above = 0;
      let below = 0;
      totalProbs.forEach((p, t) => {
        if (t > line) above += p;
        else if (t < line) below += p;
      });
      return ratio(above, below);
    },
  };
}

function poissonPmf(lambda: number, max: number): number[] {
  const out = new Array<number>(max + 1);
  let p = Math.exp(-lambda);
  for (let k = 0; k <= max; k++) {
    out[k] = p;
    p = (p * lambda) / (k + 1);
  }
  return out;
}

/**
 * Goals or runs still to come as independent Poisson counts, added to the current score.
 * `tieHome` is home's chance to win a tied game after regulation (overtime, extra innings).
 */
export function poissonOutlook(
  home: number,
  away: number,
  lambdaHome: number,
  lambdaAway: number,
  tieHome: number,
): Outlook {
  const max = Math.ceil(Math.max(lambdaHome, lambdaAway) + 6 * Math.sqrt(Math.max(lambdaHome, lambdaAway)) + 3);
  const ph = poissonPmf(lambdaHome, max);
  const pa = poissonPmf(lambdaAway, max);
  const offset = home - away - max;
  const margins = new Array<number>(2 * max + 1).fill(0);
  const totals = new Array<number>(home + away + 2 * max + 1).fill(0);
  // Both pmfs hold entries 0..max, and the arrays are sized for every margin and total they give.
  for (let i = 0; i <= max; i++) {
    for (let j = 0; j <= max; j++) {
      const p = ph[i]! * pa[j]!;
      margins[i - j + max]! += p;
      totals[home + away + i + j]! += p;
    }
  }
  return discreteOutlook(margins, offset, totals, tieHome);
}

/** A winner-only outlook (tennis, MMA, politics); `over` reads a sport's own total (rounds, games). */
export function binaryOutlook(pHome: number, over: (line: number) => number = () => 0.5): Outlook {
  return {
    margin: pHome - 0.5,
    total: 0,
    win: () => pHome,
    threeWay: () => [1 - pHome, 0, pHome],
    cover: () => pHome,
    over,
  };
}

/**
 * The line on a grid whose probability is closest to an even split; `prob` is monotonic in the
 * line (a home spread's cover, or an over), and the search walks from `guess`.
 */
export function balancedLine(prob: (line: number) => number, guess: number, step: 0.5 | 1): number {
  const gap = (line: number) => Math.abs(prob(line) - 0.5);
  let best = snapLine(guess, step);
  let bestGap = gap(best);
  const direction = gap(best + step) < bestGap ? step : -step;
  for (let k = 0; k < 40; k++) {
    const next = best + direction;
    const nextGap = gap(next);
    if (nextGap >= bestGap) break;
    best = next;
    bestGap = nextGap;
  }
  return best;
}

/** The nearest line on the grid: x.5 values for a step of 1, halves and whole numbers for 0.5. */
export function snapLine(x: number, step: 0.5 | 1): number {
  return step === 1 ? Math.floor(x) + 0.5 : Math.round(x * 2) / 2;
}
