import { displayClock, statusDetail } from '../../../domain/score.ts';
import type { Score } from '../../../domain/types.ts';
import type { Outlook } from '../model.ts';
import { discreteOutlook, normalOutlook } from '../model.ts';
import type { GameContext, ScoreCore, Segment, Side } from './base.ts';
import { other, SteppedGame } from './base.ts';
import type { StatCredit } from '../../../domain/plays.ts';
import { copyInto, num, sideOf } from './restore.ts';

const SETS_TO_WIN = 2;
const POINT_NAMES = ['0', '15', '30', '40'];

/** Probability that the server wins a game from a points score, with deuce in closed form. */
export function holdProbability(p: number, server: number, receiver: number): number {
  if (server >= 4 && server - receiver >= 2) return 1;
  if (receiver >= 4 && receiver - server >= 2) return 0;
  if (server >= 3 && receiver >= 3) {
    const deuce = (p * p) / (p * p + (1 - p) * (1 - p));
    if (server === receiver) return deuce;
    return server > receiver ? p + (1 - p) * deuce : p * deuce;
  }
  return p * holdProbability(p, server + 1, receiver) + (1 - p) * holdProbability(p, server, receiver + 1);
}

/** Probability of winning a 7-point tiebreak from a score, at a constant point-win probability q. */
export function tiebreakProbability(q: number, a: number, b: number): number {
  const deuce = (q * q) / (q * q + (1 - q) * (1 - q));
  const memo = new Map<number, number>();
  const from = (x: number, y: number): number => {
    if (x >= 7 && x - y >= 2) return 1;
    if (y >= 7 && y - x >= 2) return 0;
    if (x >= 6 && y >= 6) return x === y ? deuce : x > y ? q + (1 - q) * deuce : q * deuce;
    const key = x * 16 + y;
    let p = memo.get(key);
    if (p === undefined) {
      p = q * from(x + 1, y) + (1 - q) * from(x, y + 1);
      memo.set(key, p);
    }
    return p;
  };
  return from(a, b);
}

/** Final set scores as a map "home:away" -> probability. */
type SetDistribution = Map<string, number>;

/**
 * Tennis point by point, best of three sets with a tiebreak at 6-6. The score counts sets won;
 * the period entries are the games of each set.
 */
export class TennisGame extends SteppedGame {
  // Games per set begun: both arrays start with one entry and grow together, so they always hold
  // the same number of entries, at least one, and index set - 1 is the set being played.
  readonly away: number[] = [0];
  readonly home: number[] = [0];
  readonly points: Record<Side, number> = { away: 0, home: 0 };
  server: Side;
  private setServer: Side;
  private readonly serve: Record<Side, number>;
  private pause = 0;

  constructor(ctx: GameContext) {
    super(ctx);
    const base = ctx.sportId === 39 ? 0.57 : 0.64;
    const edge = ctx.params.strengthEffect * this.ctx.expected.edge;
    const clamp = (x: number) => Math.min(0.8, Math.max(0.45, x));
    this.serve = { home: clamp(base + edge), away: clamp(base - edge) };
    this.server = ctx.rng.chance(0.5) ? 'away' : 'home';
    this.setServer = this.server;
  }

  get set(): number {
    return this.away.length;
  }

  private get tiebreak(): boolean {
    return this.away[this.set - 1] === 6 && this.home[this.set - 1] === 6;
  }

  private setsWon(side: Side): number {
    const mine = side === 'away' ? this.away : this.home;
    const theirs = side === 'away' ? this.home : this.away;
    let won = 0;
    for (let i = 0; i < mine.length; i++) {
      const m = mine[i]!;
      const t = theirs[i]!;
      if (setOver(m, t) && m > t) won++;
    }
    return won;
  }

  protected step(): number {
    const { rng } = this.ctx;
    if (this.pause > 0) {
      const pause = this.pause;
      this.pause = 0;
      return pause;
    }
    const server = this.server;
    const winner: Side = rng.chance(this.serve[server]) ? server : other(server);
    const loser = other(winner);
    this.points[winner]++;
    const me = this.ctx[winner].roster[0];
    const credits: StatCredit[] = [this.credit(winner, me, 'pointsWon')];
    let text = `Point ${this.name(winner)}`;
    if (winner === server) {
      credits.push(this.credit(winner, me, 'servicePointsWon'));
      if (this.ctx.who.chance(0.09)) {
        credits.push(this.credit(winner, me, 'aces'));
        text = `Ace ${this.name(winner)}`;
      }
    } else if (this.ctx.who.chance(0.06)) {
      credits.push(this.credit(server, this.ctx[server].roster[0], 'doubleFaults'));
      text = `Double fault ${this.name(server)}`;
    }
    const a = this.points[winner];
    const b = this.points[loser];
    const target = this.tiebreak ? 7 : 4;
    if (a >= target && a - b >= 2) text = this.gameWon(winner, server, credits);
    else if (this.tiebreak && (a + b) % 2 === 1) this.server = other(this.server);
    this.bump();
    this.record(text, winner, this.ctx[winner].roster.slice(0, 1), credits);
    return rng.between(25, 50);
  }

  /** Ends a game won by `winner`; returns the play's text and adds what the game decided to `credits`. */
  private gameWon(winner: Side, server: Side, credits: StatCredit[]): string {
    const i = this.set - 1;
    const wasTiebreak = this.tiebreak;
    const me = this.ctx[winner].roster[0];
    (winner === 'away' ? this.away : this.home)[i]!++;
    this.points.away = 0;
    this.points.home = 0;
    credits.push(this.credit(winner, me, 'gamesWon'));
    if (!wasTiebreak && winner !== server) credits.push(this.credit(winner, me, 'breaksOfServe'));
    let text = wasTiebreak ? `${this.name(winner)} win the tiebreak` : `Game ${this.name(winner)}`;
    const ga = this.away[i]!;
    const gh = this.home[i]!;
    const games = ga + gh;
    if (!setOver(ga, gh)) {
      this.server = wasTiebreak ? other(this.setServer) : other(this.server);
      this.pause = games % 2 === 1 ? 90 : 20;
      return text;
    }
    credits.push(this.credit(winner, me, 'setsWon'));
    text = `${this.name(winner)} win set ${this.set} ${gh}-${ga}`;
    if (this.setsWon(winner) >= SETS_TO_WIN) {
      this.finish();
      return text;
    }
    this.away.push(0);
    this.home.push(0);
    // The player who received first in the last set serves first in the next.
    this.setServer = other(this.setServer);
    this.server = this.setServer;
    this.pause = 120;
    return text;
  }

  score(): ScoreCore {
    const away = this.setsWon('away');
    const home = this.setsWon('home');
    const final = this.status === 'STATUS_FINAL';
    return {
      event_status: this.status,
      score_away: away,
      score_home: home,
      winner_away: final && away > home ? 1 : 0,
      winner_home: final && home > away ? 1 : 0,
      score_away_by_period: this.away.slice(),
      score_home_by_period: this.home.slice(),
      game_clock: 0,
      display_clock: displayClock('sets', 0, this.set),
      game_period: this.set,
      event_status_detail: statusDetail({ scheme: 'sets', status: this.status, period: this.set, clock: 0 }),
    };
  }

  private pointText(side: Side): string {
    const mine = this.points[side];
    if (this.tiebreak) return String(mine);
    const theirs = this.points[other(side)];
    if (mine >= 3 && theirs >= 3) return mine > theirs ? 'AD' : '40';
    // Points are never negative, so the index is 0..3.
    return POINT_NAMES[Math.min(3, mine)]!;
  }

  liveState(): Record<string, unknown> {
    return {
      set: this.set,
      sets_away: this.setsWon('away'),
      sets_home: this.setsWon('home'),
      games_away: this.away[this.set - 1],
      games_home: this.home[this.set - 1],
      points_away: this.pointText('away'),
      points_home: this.pointText('home'),
      server: this.server,
      tiebreak: this.tiebreak,
      last_play: this.lastPlay,
    };
  }

  /** Probability that home wins the game being played. */
  private currentGameHome(): number {
    if (this.tiebreak) {
      const q = (this.serve.home + 1 - this.serve.away) / 2;
      return tiebreakProbability(q, this.points.home, this.points.away);
    }
    const s = this.server;
    const hold = holdProbability(this.serve[s], this.points[s], this.points[other(s)]);
    return s === 'home' ? hold : 1 - hold;
  }

  /** Distribution of the final score of a set from games (h, a), `server` serving the next game. */
  private setDistribution(h: number, a: number, server: Side): SetDistribution {
    const out: SetDistribution = new Map();
    const holdHome = holdProbability(this.serve.home, 0, 0);
    const breakAway = 1 - holdProbability(this.serve.away, 0, 0);
    const tiebreak = tiebreakProbability((this.serve.home + 1 - this.serve.away) / 2, 0, 0);
    // A set is over by seven games a side, and only scores of unfinished sets step on, so rows
    // and columns 0..7 hold every score reached from (h, a) of an unfinished set.
    const prob: number[][] = Array.from({ length: 8 }, () => new Array<number>(8).fill(0));
    prob[h]![a] = 1;
    for (let games = h + a; games <= 13; games++) {
      for (let gh = 0; gh <= Math.min(7, games); gh++) {
        const ga = games - gh;
        if (ga > 7) continue;
        const row = prob[gh]!;
        const p = row[ga]!;
        if (p === 0) continue;
        if (setOver(gh, ga)) {
          out.set(`${gh}:${ga}`, p);
          continue;
        }
        const srv = (games - h - a) % 2 === 0 ? server : other(server);
        const home = gh === 6 && ga === 6 ? tiebreak : srv === 'home' ? holdHome : breakAway;
        prob[gh + 1]![ga]! += p * home;
        row[ga + 1]! += p * (1 - home);
      }
    }
    return out;
  }

  remaining(): number {
    if (this.status === 'STATUS_FINAL') return 0;
    return Math.max(0.05, 1 - (this.away.reduce((x, y) => x + y, 0) + this.home.reduce((x, y) => x + y, 0)) / 24);
  }

  outlook(segment: Segment): Outlook | undefined {
    if (this.status === 'STATUS_FINAL') return undefined;
    if (segment === 'set1' || segment === 'set2') {
      const index = segment === 'set1' ? 1 : 2;
      if (this.set > index) return undefined;
      const dist = this.set === index ? this.currentSet() : this.setDistribution(0, 0, other(this.setServer));
      return setOutlook(dist);
    }
    if (segment !== 'game') return undefined;
    return this.matchOutlook();
  }

  private currentSet(): SetDistribution {
    const i = this.set - 1;
    const after = other(this.server);
    const gh = this.home[i]!;
    const ga = this.away[i]!;
    const pGame = this.currentGameHome();
    const out: SetDistribution = new Map();
    for (const [homeWins, p] of [
      [true, pGame],
      [false, 1 - pGame],
    ] as const) {
      const h = gh + (homeWins ? 1 : 0);
      const a = ga + (homeWins ? 0 : 1);
      const rest = setOver(h, a) ? new Map([[`${h}:${a}`, 1]]) : this.setDistribution(h, a, after);
      for (const [k, v] of rest) out.set(k, (out.get(k) ?? 0) + p * v);
    }
    return out;
  }

  private matchOutlook(): Outlook {
    const current = setOutlook(this.currentSet());
    const fresh = setOutlook(this.setDistribution(0, 0, 'home'));
    const pSet = current.win();
    const q = fresh.win();
    const sh = this.setsWon('home');
    const sa = this.setsWon('away');
    // Match winner and the number of sets still to come after the current one.
    const matchFrom = (h: number, a: number): number => {
      if (h >= SETS_TO_WIN) return 1;
      if (a >= SETS_TO_WIN) return 0;
      return q * matchFrom(h + 1, a) + (1 - q) * matchFrom(h, a + 1);
    };
    const setsFrom = (h: number, a: number): number => {
      if (h >= SETS_TO_WIN || a >= SETS_TO_WIN) return 0;
      return 1 + q * setsFrom(h + 1, a) + (1 - q) * setsFrom(h, a + 1);
    };
    const pMatch = pSet * matchFrom(sh + 1, sa) + (1 - pSet) * matchFrom(sh, sa + 1);
    const moreSets = pSet * setsFrom(sh + 1, sa) + (1 - pSet) * setsFrom(sh, sa + 1);
    const played = (arr: number[]) => arr.slice(0, -1).reduce((x, y) => x + y, 0);
    const total = played(this.home) + played(this.away) + current.total + moreSets * fresh.total;
    const margin = played(this.home) - played(this.away) + current.margin + moreSets * fresh.margin;
    const sd = 2.5 + 3 * moreSets;
    const games = normalOutlook(margin, sd + 1.5, total, sd, 0.5);
    return { ...games, win: () => pMatch, threeWay: () => [1 - pMatch, 0, pMatch] };
  }

  restore(score: Score, state: Record<string, unknown>): void {
    copyInto(this.away, score.score_away_by_period.length > 0 ? score.score_away_by_period : [0]);
    copyInto(this.home, score.score_home_by_period.length > 0 ? score.score_home_by_period : [0]);
    this.server = sideOf(state.server, this.server);
    this.setServer = this.server;
    const parse = (v: unknown) => {
      if (typeof v !== 'string') return 0;
      if (v === 'AD') return 4;
      const i = POINT_NAMES.indexOf(v);
      return i >= 0 ? i : num(Number(v), 0);
    };
    this.points.away = parse(state.points_away);
    this.points.home = parse(state.points_home);
    if (this.points.away === 4 || this.points.home === 4) {
      this.points.away = Math.max(3, this.points.away);
      this.points.home = Math.max(3, this.points.home);
    }
    this.lastPlay = typeof state.last_play === 'string' ? state.last_play : '';
  }
}

function setOver(a: number, b: number): boolean {
  return (Math.max(a, b) >= 6 && Math.abs(a - b) >= 2) || Math.max(a, b) === 7;
}

/** Set winner, game margin (home minus away) and total games from a set-score distribution. */
function setOutlook(dist: SetDistribution): Outlook {
  // Keys are "h:a" of finished sets (0..7 games a side): margins -7..7, totals 0..13.
  const margins = new Array<number>(15).fill(0);
  const totals = new Array<number>(14).fill(0);
  for (const [key, p] of dist) {
    const [h, a] = key.split(':').map(Number) as [number, number];
    margins[h - a + 7]! += p;
    totals[h + a]! += p;
  }
  return discreteOutlook(margins, -7, totals, 0.5);
}
