import { AFFILIATES } from '../../catalog/affiliates.ts';
import type { SportProfile } from '../../catalog/sports.ts';
import type { FuturesParticipant } from '../../domain/futures.ts';
import type { EventInfo } from '../../domain/types.ts';
import type { Update } from '../../ledger/updates.ts';
import type { FeedStateReader } from '../../board/feed-state.ts';
import { type BoardPlan, boardsAround, FUTURES_SPORTS, seasonBoardSport } from './futures-calendar.ts';
import {
  afterResult,
  bookOdds,
  drawWinner,
  outrightOverround,
  RESULT_STEP,
  winProbabilities,
} from './futures-model.ts';
import { teamRatings } from './model.ts';
import { hashNormal, hashUnit } from './rng.ts';
import { DAY_MS } from './schedule.ts';

/** A finished game as the futures boards see it. */
export interface GameResult {
  sportId: number;
  startMs: number;
  awayId: number;
  homeId: number;
  winner: 'away' | 'home' | 'draw';
}

/** The result of a committed final event, or undefined for an event not final. */
export function resultOf(info: EventInfo): GameResult | undefined {
  const s = info.score;
  if (s?.event_status !== 'STATUS_FINAL' || info.teams.length < 2) return undefined;
  return {
    sportId: info.sport_id,
    startMs: Date.parse(info.event_date),
    awayId: info.teams[0]!.team_id,
    homeId: info.teams[1]!.team_id,
    winner: s.winner_away === 1 ? 'away' : s.winner_home === 1 ? 'home' : 'draw',
  };
}

interface BookQuote {
  affiliate_id: number;
  overround: number;
  opinion: number[];
  /** The odds last emitted per participant (empty before the first emission). */
  last: number[];
}

interface Running {
  plan: BoardPlan;
  field: FuturesParticipant[];
  index: Map<number, number>;
  strengths: number[];
  stepsDone: number;
  books: BookQuote[];
}

/** Golf rounds and qualifying move strengths by about this much. */
const STEP_SHOCK = 0.6;
/** A race win adds this many results' worth of strength to the drivers' championship. */
const RACE_WIN_RESULTS = 3;
const FUTURES_BOOKS = AFFILIATES.filter((a) => a.kind === 'sportsbook');

/**
 * The simulated futures boards: opened as their block begins (or, in a back-fill, as history
 * begins), repriced only when something happens (a game of the sport ends, a golf round or
 * qualifying is done), and settled when decided. Prices are a pure function of the board's
 * strengths, so only what a result moves is written, and a restart rebuilds the strengths from
 * the committed finals and the seed.
 */
export class FuturesSim {
  private readonly running = new Map<string, Running>();
  /** Boards decided, or ended before this simulator's time began. */
  private readonly done = new Set<string>();
  private firstMs: number | undefined;
  /** Committed finals by the sport of the board they move, read once at the first tick. */
  private finals: Map<number, GameResult[]> | undefined;
  /** Each sport's boards of the day last ticked (plansAround). */
  private readonly plans = new Map<number, { day: number; plans: BoardPlan[] }>();

  constructor(
    private readonly seed: number,
    private readonly state: FeedStateReader,
    private readonly emit: (u: Update) => void,
    private readonly sports = FUTURES_SPORTS,
  ) {}

  /** Standing before a block: a team's rating, or an athlete's skill (golfers, drivers). */
  private strengthOf(sport: SportProfile): (id: number) => number {
    return sport.futures_only
      ? (id) => hashNormal(this.seed, 'futures-skill', id)
      : (id) => teamRatings(this.seed, id).strength;
  }

  /**
   * The sport's boards around the day of `t`, made once a day: they depend on the day alone, and
   * making them for every sport (fields, ratings, names) took 2-3 ms of every live step.
   */
  private plansAround(sport: SportProfile, t: number): BoardPlan[] {
    const day = Math.floor(t / DAY_MS);
    const kept = this.plans.get(sport.sport_id);
    if (kept?.day === day) return kept.plans;
    const plans = boardsAround(this.seed, sport, t, this.strengthOf(sport));
    this.plans.set(sport.sport_id, { day, plans });
    return plans;
  }

  /** Opens boards whose time has come, plays their rounds, settles those decided. */
  tick(t: number): void {
    this.firstMs ??= t;
    this.finals ??= this.committedFinals();
    for (const sport of this.sports) {
      for (const plan of this.plansAround(sport, t)) {
        const id = plan.header.event_id;
        if (this.done.has(id) || this.running.has(id) || plan.opensMs > t) continue;
        const committed = this.state.futuresState(id);
        if (
          (committed !== undefined && committed !== 'open') ||
          (committed === undefined && plan.endsMs <= this.firstMs)
        ) {
          this.done.add(id);
          continue;
        }
        this.open(plan, t);
      }
    }
    for (const [id, r] of this.running) {
      let moved = false;
      while (r.stepsDone < r.plan.stepsMs.length && r.plan.stepsMs[r.stepsDone]! <= t) {
        this.step(r);
        moved = true;
      }
      if (moved) this.quote(r);
      if (r.plan.endsMs <= t) this.settle(id, r);
    }
  }

  /** A game ended: its teams' season boards move (only boards whose block holds the game). */
  onResult(result: GameResult): void {
    const sportId = seasonBoardSport(result.sportId);
    if (sportId === undefined) return;
    for (const r of this.running.values()) {
      if (r.plan.kind !== 'season' || r.plan.sport.sport_id !== sportId) continue;
      if (this.apply(r, result)) this.quote(r);
    }
  }

  private apply(r: Running, g: GameResult): boolean {
    if (g.startMs < r.plan.opensMs || g.startMs >= r.plan.endsMs) return false;
    const away = r.index.get(g.awayId);
    const home = r.index.get(g.homeId);
    if (away === undefined || home === undefined || g.winner === 'draw') return false;
    r.strengths[away] = afterResult(r.strengths[away]!, g.winner === 'away' ? 'win' : 'loss');
    r.strengths[home] = afterResult(r.strengths[home]!, g.winner === 'home' ? 'win' : 'loss');
    return true;
  }

  private open(plan: BoardPlan, t: number): void {
    const field = plan.header.markets[0]!.participants;
    const id = plan.header.event_id;
    const r: Running = {
      plan,
      field,
      index: new Map(field.map((p, i) => [p.id, i])),
      strengths: [...plan.base],
      stepsDone: 0,
      books: FUTURES_BOOKS.filter((b) => hashUnit(this.seed, 'futures-book', id, b.affiliate_id) < 0.8).map((b) => ({
        affiliate_id: b.affiliate_id,
        overround: outrightOverround(b.margin, field.length),
        opinion: field.map((p) =>
          Math.exp(b.noise * 12 * hashNormal(this.seed, 'futures-opinion', id, b.affiliate_id, p.id)),
        ),
        last: [],
      })),
    };
    // What happened before this start (a restart, a board opened late) counts, written once.
    for (const g of this.finals?.get(plan.sport.sport_id) ?? []) if (plan.kind === 'season') this.apply(r, g);
    if (plan.kind === 'drivers') for (const w of this.raceWinsBefore(plan, t)) this.addRaceWin(r, w);
    while (r.stepsDone < plan.stepsMs.length && plan.stepsMs[r.stepsDone]! <= t) this.step(r);
    this.running.set(id, r);
    this.emit({ kind: 'futures_board', board: plan.header });
    this.quote(r);
  }

  /** A golf round or qualifying: every participant's strength moves by its own draw. */
  private step(r: Running): void {
    const id = r.plan.header.event_id;
    r.strengths = r.strengths.map(
      (s, i) => s + STEP_SHOCK * hashNormal(this.seed, 'futures-step', id, r.stepsDone, r.field[i]!.id),
    );
    r.stepsDone++;
  }

  /** Emits every book's prices that differ from what it last emitted. */
  private quote(r: Running): void {
    const fair = winProbabilities(r.strengths);
    const marketId = r.plan.header.markets[0]!.market_id;
    for (const book of r.books) {
      const odds = bookOdds(fair, book.overround, book.opinion);
      odds.forEach((price, i) => {
        if (book.last[i] === price) return;
        this.emit({
          kind: 'futures_price',
          event_id: r.plan.header.event_id,
          market_id: marketId,
          participant_id: r.field[i]!.id,
          affiliate_id: book.affiliate_id,
          price,
        });
      });
      book.last = odds;
    }
  }

  private settle(id: string, r: Running): void {
    this.running.delete(id);
    this.done.add(id);
    const winner = this.winnerOf(r);
    this.emit(
      winner === undefined
        ? { kind: 'futures_settlement', event_id: id, state: 'void', winner_participant_id: null }
        : { kind: 'futures_settlement', event_id: id, state: 'settled', winner_participant_id: winner },
    );
    if (r.plan.kind === 'race' && winner !== undefined) {
      for (const d of this.running.values()) {
        if (d.plan.kind !== 'drivers' || !this.holds(d.plan, r.plan)) continue;
        this.addRaceWin(d, winner);
        this.quote(d);
      }
    }
  }

  /** The winner drawn from the final chances, or undefined when the competition is called off. */
  private winnerOf(r: Running): number | undefined {
    const id = r.plan.header.event_id;
    if (hashUnit(this.seed, 'futures-void', id) < r.plan.voidChance) return undefined;
    return r.field[drawWinner(winProbabilities(r.strengths), hashUnit(this.seed, 'futures-winner', id))]!.id;
  }

  private holds(drivers: BoardPlan, race: BoardPlan): boolean {
    return race.endsMs > drivers.opensMs && race.endsMs <= drivers.endsMs;
  }

  private addRaceWin(r: Running, winnerId: number): void {
    const i = r.index.get(winnerId);
    if (i !== undefined) r.strengths[i] = r.strengths[i]! + RACE_WIN_RESULTS * RESULT_STEP;
  }

  /** Winners of the races of a drivers' championship decided before `t`: a pure function of the seed. */
  private raceWinsBefore(drivers: BoardPlan, t: number): number[] {
    const races = new Map<string, BoardPlan>();
    for (let ms = drivers.opensMs; ms < Math.min(t, drivers.endsMs) + 7 * 86_400_000; ms += 7 * 86_400_000) {
      for (const race of boardsAround(this.seed, drivers.sport, ms, this.strengthOf(drivers.sport))) {
        if (race.kind === 'race' && race.endsMs <= t && this.holds(drivers, race))
          races.set(race.header.event_id, race);
      }
    }
    const wins: number[] = [];
    for (const race of races.values()) {
      const w = this.winnerOf(this.replay(race));
      if (w !== undefined) wins.push(w);
    }
    return wins;
  }

  /** A race board with its qualifying played, not emitted. */
  private replay(plan: BoardPlan): Running {
    const field = plan.header.markets[0]!.participants;
    const r: Running = { plan, field, index: new Map(), strengths: [...plan.base], stepsDone: 0, books: [] };
    while (r.stepsDone < plan.stepsMs.length) this.step(r);
    return r;
  }

  /** Every committed final, grouped by the board sport it moves. */
  private committedFinals(): Map<number, GameResult[]> {
    const out = new Map<number, GameResult[]>();
    for (const eventId of this.state.eventIds()) {
      const info = this.state.event(eventId);
      const g = info && resultOf(info);
      const sportId = g && seasonBoardSport(g.sportId);
      if (!g || sportId === undefined) continue;
      const list = out.get(sportId) ?? [];
      list.push(g);
      out.set(sportId, list);
    }
    return out;
  }
}
