import { addPeriodPoints } from '../../../domain/score.ts';
import type { Score } from '../../../domain/types.ts';
import type { GameContext, Side } from './base.ts';
import { ClockGame, other } from './base.ts';
import { num, restoreClock, sideOf } from './restore.ts';

/** Attempts (shots, blocked shots, misses) per team per 60 minutes; goals come from them. */
const EVENTS_PER_TEAM = 41;

/**
 * Hockey as a stream of attempts: power plays and a pulled goalie change who shoots and how often
 * it goes in. Regular-season overtime is five minutes then a shootout; playoff overtime is
 * sudden death in full periods.
 */
export class HockeyGame extends ClockGame {
  possession: Side = 'home';
  readonly shots: Record<Side, number> = { away: 0, home: 0 };
  powerPlay: Side | null = null;
  private powerPlayLeft = 0;
  private inPlay = false;
  private shootoutWon = false;

  constructor(ctx: GameContext) {
    super(ctx, {
      scheme: 'hockey',
      periodSeconds: 1200,
      overtimeSeconds: ctx.postseason ? 1200 : 300,
      breakSeconds: 900,
      halftimeSeconds: 900,
      halftime: false,
    });
  }

  protected override runClock(seconds: number): void {
    super.runClock(seconds);
    if (this.powerPlay === null) return;
    this.powerPlayLeft -= seconds;
    if (this.powerPlayLeft <= 0) this.powerPlay = null;
  }

  protected override onPeriodStart(): void {
    // An attempt cut off by the end of the period is over.
    this.inPlay = false;
  }

  protected override shootout(): boolean {
    return this.shootoutWon;
  }

  private pulled(side: Side): boolean {
    const behind = this.total(other(side)) - this.total(side);
    return this.period === this.regulation && this.clock < 120 && behind >= 1 && behind <= 2;
  }

  protected override endOfPeriod(): void {
    const tied = this.total('home') === this.total('away');
    if (this.period > this.regulation && tied && !this.ctx.postseason) {
      const { rng } = this.ctx;
      const winner: Side = rng.chance(0.5 + 0.04 * this.ctx.expected.edge) ? 'home' : 'away';
      this.period++;
      addPeriodPoints(this.away, this.period, 0);
      addPeriodPoints(this.home, this.period, 0);
      this.shootoutWon = true;
      this.addPoints(winner, 1);
      this.lastPlay = `${this.name(winner)} win the shootout`;
      this.finish();
      return;
    }
    this.powerPlay = null;
    super.endOfPeriod();
  }

  protected playStep(): number {
    const { rng } = this.ctx;
    if (this.inPlay) {
      this.inPlay = false;
      const dead = this.resolveAttempt();
      if (this.status === 'STATUS_FINAL') return 0;
      if (dead > 0) {
        this.clockRunning = false;
        return dead;
      }
    }
    this.inPlay = true;
    this.clockRunning = true;
    return (-Math.log(1 - rng.next()) * 3600) / (2 * EVENTS_PER_TEAM);
  }

  /** One attempt: shot, goal, or penalty; returns the stoppage after it. */
  private resolveAttempt(): number {
    const { rng, expected } = this.ctx;
    const weight = (side: Side) =>
      (expected[side] / (expected.away + expected.home)) *
      (this.powerPlay === side ? 1.6 : this.powerPlay === other(side) ? 0.55 : 1) *
      (this.pulled(side) ? 1.6 : 1);
    const shooter: Side = rng.chance(weight('home') / (weight('home') + weight('away'))) ? 'home' : 'away';
    const defender = other(shooter);
    this.possession = shooter;
    if (this.powerPlay === null && rng.chance(0.085)) {
      this.powerPlay = shooter;
      this.powerPlayLeft = 120;
      const foul = rng.pick(['tripping', 'hooking', 'holding']);
      this.lastPlay = `${this.name(defender)} penalty, 2 minutes for ${foul}`;
      this.bump();
      return rng.between(30, 50);
    }
    const base =
      expected[shooter] / (EVENTS_PER_TEAM * (2 * (expected[shooter] / (expected.away + expected.home))));
    const conversion =
      base *
      (this.powerPlay === shooter ? 1.7 : this.powerPlay === defender ? 0.35 : 1) *
      (this.pulled(defender) ? 5 : 1) *
      (this.period > this.regulation && !this.ctx.postseason ? 1.4 : 1);
    if (rng.chance(0.75)) this.shots[shooter]++;
    if (rng.chance(conversion)) {
      this.addPoints(shooter, 1);
      if (this.powerPlay === shooter) this.powerPlay = null;
      this.lastPlay = `${this.name(shooter)} goal${this.pulled(defender) ? ', empty net' : ''}`;
      if (this.period > this.regulation) {
        this.finish();
        return 0;
      }
      return rng.between(35, 55);
    }
    this.lastPlay = `${this.name(shooter)} ${rng.pick(['shot saved', 'shot wide', 'shot blocked'])}`;
    return rng.chance(0.35) ? rng.between(15, 35) : 0;
  }

  liveState(): Record<string, unknown> {
    const skaters = this.period > this.regulation && !this.ctx.postseason ? 3 : 5;
    const count = (side: Side) =>
      skaters - (this.powerPlay === other(side) ? 1 : 0) + (this.pulled(side) ? 1 : 0);
    return {
      period: this.period,
      clock: this.score().display_clock,
      possession: this.possession,
      strength: `${count('away')}v${count('home')}`,
      power_play: this.powerPlay,
      shots_away: this.shots.away,
      shots_home: this.shots.home,
      goalie_pulled_away: this.pulled('away'),
      goalie_pulled_home: this.pulled('home'),
      last_play: this.lastPlay,
    };
  }

  restore(score: Score, state: Record<string, unknown>): void {
    restoreClock(this, score);
    this.possession = sideOf(state.possession, 'home');
    this.shots.away = num(state.shots_away, 0);
    this.shots.home = num(state.shots_home, 0);
    this.lastPlay = typeof state.last_play === 'string' ? state.last_play : '';
  }
}
