import type { TeamRecord } from '../../../catalog/teams/types.ts';
import type { PeriodScheme } from '../../../domain/score.ts';
import {
  addPeriodPoints,
  displayClock,
  openPeriod,
  REGULATION_PERIODS,
  statusDetail,
  sum,
  winners,
} from '../../../domain/score.ts';
import type { Person, PlayInput, StatCredit } from '../../../domain/plays.ts';
import type { EventStatus, Score } from '../../../domain/types.ts';
import type { Expectation, Outlook, SportParams } from '../model.ts';
import { normalOutlook, poissonOutlook } from '../model.ts';
import type { Rng } from '../rng.ts';
import type { Player } from '../roster.ts';

/** The game engines' shared vocabulary and the stepping machinery they run on. */

export type Side = 'away' | 'home';
export const other = (side: Side): Side => (side === 'away' ? 'home' : 'away');

/** Parts of a game whose outcome a market can be about. */
export type Segment = 'game' | 'regulation' | 'first_half' | 'second_half' | 'set1' | 'set2';

export interface Competitor {
  team: TeamRecord;
  /** The side's players (src/feeds/simulator/roster.ts); one for tennis and MMA; empty for politics. */
  roster: Player[];
}

export interface GameContext {
  sportId: number;
  params: SportParams;
  /** The prematch expectation at the start, which the engine's scoring rates reproduce. */
  expected: Expectation;
  rng: Rng;
  /** Draws who made a play: apart from `rng`, so naming players leaves the game's course as it was. */
  who: Rng;
  away: Competitor;
  home: Competitor;
  postseason: boolean;
  /** MMA: a main event is scheduled for five rounds. */
  mainEvent: boolean;
}

/** A player's committed value of a stat (by the sport's stat name) in the game being resumed. */
export type CreditReader = (player: Player, stat: string) => number;

/** The parts of a Score an engine owns; the simulator adds ids, venue, broadcast and time. */
export type ScoreCore = Pick<
  Score,
  | 'event_status'
  | 'score_away'
  | 'score_home'
  | 'winner_away'
  | 'winner_home'
  | 'score_away_by_period'
  | 'score_home_by_period'
  | 'game_clock'
  | 'display_clock'
  | 'game_period'
  | 'event_status_detail'
>;

/** A basketball player's live box numbers, for live props. */
export interface PlayerStats {
  points: number;
  rebounds: number;
  assists: number;
  threes: number;
}

export interface Engine {
  readonly status: EventStatus;
  /** Bumps whenever something a price depends on changes (a score, a period, a status). */
  readonly version: number;
  /** Moves the game on by `seconds` of game time (wall time times the simulator speed). */
  advance(seconds: number): void;
  score(): ScoreCore;
  liveState(): Record<string, unknown>;
  /** Distribution of a segment from now on; undefined when the engine does not price it or it is decided. */
  outlook(segment: Segment): Outlook | undefined;
  /** Share of regulation play still to come (1 at the start, 0 at the end). */
  remaining(): number;
  /** Live player numbers (basketball), keyed by player id. */
  playerStats?(): ReadonlyMap<number, PlayerStats>;
  /** The plays made since the last call, oldest first, each with the score right after it. */
  takePlays(): PlayInput[];
}

/**
 * An engine as a chain of timed steps: `step()` resolves what was due and returns the game time
 * until the next step. While `clockRunning`, the time also runs off the game clock.
 */
export abstract class SteppedGame implements Engine {
  status: EventStatus = 'STATUS_IN_PROGRESS';
  version = 0;
  protected wait = 0;
  protected clockRunning = false;
  protected lastPlay = '';
  private plays: PlayInput[] = [];
  /** Players credited so far, so a play can say who its credits name. */
  private readonly credited = new Map<number, Player>();

  constructor(protected readonly ctx: GameContext) {}

  takePlays(): PlayInput[] {
    const out = this.plays;
    this.plays = [];
    return out;
  }

  /**
   * Records a play once its effect on the score is applied: the play carries the score, period and
   * clock as they now are, and becomes the live state's last play.
   */
  protected record(
    description: string,
    side: Side | null,
    players: readonly Player[],
    credits: StatCredit[] = [],
  ): void {
    const sc = this.score();
    this.lastPlay = description;
    const people = new Map<number, Person>();
    for (const p of players) people.set(p.id, { id: p.id, display_name: p.name, position: p.position });
    for (const c of credits) {
      const p = c.player_id === undefined ? undefined : this.credited.get(c.player_id);
      if (p) people.set(p.id, { id: p.id, display_name: p.name, position: p.position });
    }
    this.plays.push({
      period: sc.game_period,
      game_clock: sc.game_clock,
      display_clock: sc.display_clock,
      description,
      team_id: side === null ? null : this.ctx[side].team.team_id,
      score_away: sc.score_away,
      score_home: sc.score_home,
      players: players.map((p) => p.id),
      credits,
      people: [...people.values()],
    });
  }

  /** A credit of `n` to a stat of a side, or of one of its players. */
  protected credit(side: Side, player: Player | undefined, stat: string, n = 1): StatCredit {
    const c: StatCredit = { team_id: this.ctx[side].team.team_id, stat, n };
    if (player) {
      c.player_id = player.id;
      this.credited.set(player.id, player);
    }
    return c;
  }

  /** One of a side's players, drawn by weight from roster slots (`weights[i]` for slot i). */
  protected someone(side: Side, weights: readonly number[]): Player {
    const roster = this.ctx[side].roster;
    return roster[this.ctx.who.weighted(weights.slice(0, roster.length))]!;
  }

  advance(seconds: number): void {
    let left = seconds;
    while (this.status !== 'STATUS_FINAL') {
      if (this.wait > left) {
        this.wait -= left;
        if (this.clockRunning) this.runClock(left);
        return;
      }
      left -= this.wait;
      if (this.clockRunning) this.runClock(this.wait);
      // A step of zero length is a pure transition; the next one always takes time.
      this.wait = Math.max(0, this.step());
    }
  }

  protected runClock(_seconds: number): void {}

  protected abstract step(): number;
  abstract score(): ScoreCore;
  abstract liveState(): Record<string, unknown>;
  abstract outlook(segment: Segment): Outlook | undefined;
  abstract remaining(): number;

  protected bump(): void {
    this.version++;
  }

  protected finish(): void {
    this.status = 'STATUS_FINAL';
    this.clockRunning = false;
    this.bump();
  }

  protected name(side: Side): string {
    return this.ctx[side].team.abbreviation;
  }
}

export interface ClockRules {
  scheme: PeriodScheme;
  /** Seconds of a regulation period and of an overtime period. */
  periodSeconds: number;
  overtimeSeconds: number;
  /** Game-time seconds of the break after a period, at halftime and before an overtime. */
  breakSeconds: number;
  halftimeSeconds: number;
  /** Whether the break in the middle of regulation is a halftime (STATUS_HALFTIME). */
  halftime: boolean;
}

/**
 * Games on a countdown clock with periods (football, basketball, hockey, soccer): period
 * arrays, breaks, halftime, overtime, and Outlooks for normal and Poisson scoring.
 */
export abstract class ClockGame extends SteppedGame {
  period = 1;
  /** Seconds left in the period (soccer keeps the remaining regulation-plus-added time here). */
  clock: number;
  breakLeft = 0;
  inBreak = false;
  readonly away: number[] = [0];
  readonly home: number[] = [0];
  protected readonly regulation: number;

  constructor(
    ctx: GameContext,
    protected readonly rules: ClockRules,
  ) {
    super(ctx);
    this.regulation = REGULATION_PERIODS[rules.scheme];
    this.clock = rules.periodSeconds;
  }

  /** Resolves a play that is due and returns the time to the next one; the clock is capped by the base. */
  protected abstract playStep(): number;

  /** Length of the current period (soccer adds stoppage time). */
  protected periodLength(period: number): number {
    return period > this.regulation ? this.rules.overtimeSeconds : this.rules.periodSeconds;
  }

  protected override runClock(seconds: number): void {
    this.clock = Math.max(0, this.clock - seconds);
  }

  protected step(): number {
    if (this.inBreak) {
      if (this.breakLeft > 0) {
        const left = this.breakLeft;
        this.breakLeft = 0;
        return left;
      }
      this.inBreak = false;
      this.status = 'STATUS_IN_PROGRESS';
      this.period++;
      openPeriod(this.away, this.period);
      openPeriod(this.home, this.period);
      this.clock = this.periodLength(this.period);
      this.onPeriodStart();
      this.bump();
      return 0;
    }
    if (this.clock <= 1e-6) {
      this.clockRunning = false;
      this.endOfPeriod();
      return 0;
    }
    const next = this.playStep();
    return this.clockRunning ? Math.min(next, this.clock) : next;
  }

  protected onPeriodStart(): void {}

  /** Regulation or overtime period over: break, halftime, another overtime, or the final. */
  protected endOfPeriod(): void {
    const tied = this.total('home') === this.total('away');
    if (this.period < this.regulation) {
      const half = this.rules.halftime && this.period === this.regulation / 2;
      this.startBreak(half ? this.rules.halftimeSeconds : this.rules.breakSeconds, half);
    } else if (tied && this.overtimeAllowed()) {
      this.startBreak(this.rules.halftimeSeconds / 4, false);
    } else {
      this.finish();
    }
  }

  protected overtimeAllowed(): boolean {
    return true;
  }

  protected startBreak(seconds: number, halftime: boolean): void {
    this.inBreak = true;
    this.breakLeft = seconds;
    this.clock = 0;
    this.clockRunning = false;
    if (halftime) this.status = 'STATUS_HALFTIME';
    this.bump();
  }

  protected addPoints(side: Side, points: number): void {
    addPeriodPoints(side === 'away' ? this.away : this.home, this.period, points);
    this.bump();
  }

  total(side: Side): number {
    return sum(side === 'away' ? this.away : this.home);
  }

  /** Points of one side in periods from..to (1-based, inclusive). */
  protected periodsSum(side: Side, from: number, to: number): number {
    const arr = side === 'away' ? this.away : this.home;
    let out = 0;
    for (let p = from; p <= Math.min(to, arr.length); p++) out += arr[p - 1]!;
    return out;
  }

  /** Share of regulation time elapsed, 0..1 (1 throughout overtime). */
  protected elapsedShare(): number {
    if (this.period > this.regulation) return 1;
    const done = (this.period - 1) * this.rules.periodSeconds + (this.rules.periodSeconds - this.clock);
    return Math.min(1, done / (this.regulation * this.rules.periodSeconds));
  }

  remaining(): number {
    if (this.status === 'STATUS_FINAL') return 0;
    if (this.period > this.regulation) return this.clock / (this.regulation * this.rules.periodSeconds);
    return 1 - this.elapsedShare();
  }

  /** Game clock as served: countdown seconds, except soccer's elapsed match seconds. */
  protected servedClock(): number {
    return this.inBreak || this.status === 'STATUS_FINAL' ? 0 : Math.round(this.clock);
  }

  protected shootout(): boolean {
    return false;
  }

  score(): ScoreCore {
    const scoreAway = this.total('away');
    const scoreHome = this.total('home');
    const clock = this.servedClock();
    return {
      event_status: this.status,
      score_away: scoreAway,
      score_home: scoreHome,
      ...winners(this.status, scoreAway, scoreHome),
      score_away_by_period: this.away.slice(),
      score_home_by_period: this.home.slice(),
      game_clock: clock,
      display_clock: displayClock(this.rules.scheme, clock, this.period),
      game_period: this.period,
      event_status_detail: statusDetail({
        scheme: this.rules.scheme,
        status: this.status,
        period: this.period,
        clock,
        periodOver: this.inBreak,
        shootout: this.shootout(),
      }),
    };
  }

  /**
   * Normal or Poisson outlook of a segment: the segment's score so far plus the expected
   * scoring of the share of regulation it still has to run.
   */
  outlook(segment: Segment): Outlook | undefined {
    if (this.status === 'STATUS_FINAL') return undefined;
    const half = this.regulation / 2;
    const elapsed = this.elapsedShare();
    let from = 1;
    let to = Number.POSITIVE_INFINITY;
    let share: number;
    const secondHalf = this.period > half || this.status === 'STATUS_HALFTIME';
    if (segment === 'first_half') {
      if (secondHalf) return undefined;
      to = half;
      share = Math.max(0, 0.5 - elapsed);
    } else if (segment === 'second_half') {
      if (!secondHalf) return undefined;
      from = half + 1;
      share = this.period > this.regulation ? this.remaining() : Math.min(0.5, 1 - elapsed);
    } else if (segment === 'regulation') {
      if (this.period > this.regulation) return undefined;
      to = this.regulation;
      share = 1 - elapsed;
    } else if (segment === 'game') {
      share = this.remaining();
    } else {
      return undefined;
    }
    const home = this.periodsSum('home', from, to);
    const away = this.periodsSum('away', from, to);
    const { params, expected } = this.ctx;
    // In a tie that overtime settles, the stronger side is a little more likely to win it.
    const tieHome = segment === 'game' && this.overtimeAllowed() ? 0.5 + 0.05 * this.ctx.expected.edge : 0;
    if (params.family === 'poisson') {
      return poissonOutlook(home, away, expected.home * share, expected.away * share, tieHome);
    }
    const sd = Math.sqrt(share);
    return normalOutlook(
      home - away + (expected.home - expected.away) * share,
      params.marginSd * sd,
      home + away + (expected.home + expected.away) * share,
      params.totalSd * sd,
      tieHome || 0.5,
    );
  }
}
