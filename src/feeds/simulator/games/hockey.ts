import { addPeriodPoints } from '../../../domain/score.ts';
import type { Score } from '../../../domain/types.ts';
import type { GameContext, Side } from './base.ts';
import { ClockGame, other } from './base.ts';
import { num, restoreClock, sideOf } from './restore.ts';

/** Roster slots (src/feeds/simulator/roster.ts): C, LW, RW, D, D, G; who shoots, by slot. */
const SKATERS = [1.3, 1.1, 1.1, 0.6, 0.6];
const GOALIE = 5;

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
      this.finish();
      this.record(
        `${this.name(winner)} win the shootout`,
        winner,
        [],
        [this.credit(winner, undefined, 'shootoutGoals')],
      );
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
      const offender = this.someone(defender, SKATERS);
      this.bump();
      this.record(
        `${offender.name} (${this.name(defender)}) penalty, 2 minutes for ${foul}`,
        defender,
        [offender],
        [this.credit(defender, offender, 'penalties'), this.credit(defender, offender, 'penaltyMinutes', 2)],
      );
      return rng.between(30, 50);
    }
    const base = expected[shooter] / (EVENTS_PER_TEAM * (2 * (expected[shooter] / (expected.away + expected.home))));
    const conversion =
      base *
      (this.powerPlay === shooter ? 1.7 : this.powerPlay === defender ? 0.35 : 1) *
      (this.pulled(defender) ? 5 : 1) *
      (this.period > this.regulation && !this.ctx.postseason ? 1.4 : 1);
    const onGoal = rng.chance(0.75);
    const player = this.someone(shooter, SKATERS);
    const goalie = this.ctx[defender].roster[GOALIE];
    if (rng.chance(conversion)) {
      // A goal is a shot on goal, whatever the draw above said.
      this.shots[shooter]++;
      const powerPlay = this.powerPlay === shooter;
      const emptyNet = this.pulled(defender);
      this.addPoints(shooter, 1);
      if (powerPlay) this.powerPlay = null;
      const credits = [this.credit(shooter, player, 'goals'), this.credit(shooter, player, 'shotsOnGoal')];
      const players = [player];
      if (powerPlay) credits.push(this.credit(shooter, player, 'powerPlayGoals'));
      if (this.ctx.who.chance(0.7)) {
        const assist = this.someone(
          shooter,
          SKATERS.map((w, i) => (this.ctx[shooter].roster[i] === player ? 0 : w)),
        );
        credits.push(this.credit(shooter, assist, 'assists'));
        players.push(assist);
      }
      if (goalie && !emptyNet) credits.push(this.credit(defender, goalie, 'goalsAgainst'));
      const overtime = this.period > this.regulation;
      if (overtime) this.finish();
      const assisted = players.length > 1 ? ` (${players[1]!.name})` : '';
      this.record(
        `${player.name} (${this.name(shooter)}) goal${assisted}${emptyNet ? ', empty net' : ''}${powerPlay ? ', power play' : ''}`,
        shooter,
        players,
        credits,
      );
      return overtime ? 0 : rng.between(35, 55);
    }
    const how = rng.pick(['shot saved', 'shot wide', 'shot blocked']);
    if (onGoal) {
      this.shots[shooter]++;
      const credits = [this.credit(shooter, player, 'shotsOnGoal')];
      const players = [player];
      if (goalie && !this.pulled(defender)) {
        credits.push(this.credit(defender, goalie, 'saves'));
        players.push(goalie);
      }
      this.record(`${player.name} (${this.name(shooter)}) shot on goal saved`, shooter, players, credits);
    } else {
      this.record(`${player.name} (${this.name(shooter)}) ${how === 'shot saved' ? 'shot wide' : how}`, shooter, [
        player,
      ]);
    }
    return rng.chance(0.35) ? rng.between(15, 35) : 0;
  }

  liveState(): Record<string, unknown> {
    const skaters = this.period > this.regulation && !this.ctx.postseason ? 3 : 5;
    const count = (side: Side) => skaters - (this.powerPlay === other(side) ? 1 : 0) + (this.pulled(side) ? 1 : 0);
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
