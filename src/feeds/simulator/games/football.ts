import type { Score } from '../../../domain/types.ts';
import type { GameContext, Side } from './base.ts';
import { ClockGame, other } from './base.ts';
import type { Player } from '../roster.ts';
import type { StatCredit } from '../../../domain/plays.ts';
import { num, restoreClock, sideOf } from './restore.ts';

/** Roster slots (src/feeds/simulator/roster.ts): QB, RB, WR, WR, TE, K, P. */
const QB = 0;
const RB = 1;
const K = 5;
const P = 6;
/** Who catches a pass and who carries the ball, by roster slot. */
const TARGETS = [0, 0.6, 1.4, 1.1, 0.9];
const RUNNERS = [0.15, 1];

interface Scrimmage {
  pass: boolean;
  /** The play without its result: "A pass complete to B", "C rush". */
  text: string;
  players: Player[];
  credits: StatCredit[];
}

type DriveOutcome = 'td' | 'fg' | 'punt' | 'turnover';

interface Drive {
  outcome: DriveOutcome;
  /** Yards to goal where a field-goal or punt drive stalls. */
  stallAt: number;
  /** Plays left before a turnover drive gives the ball away. */
  playsToTurnover: number;
}

/**
 * Football by drives: each drive's outcome is drawn at its start from the offense's expected
 * points, then plays move the ball in a way that agrees with it, so that scores stay calibrated
 * while down, distance and field position look like a real drive.
 */
export class FootballGame extends ClockGame {
  possession: Side;
  yardsToGoal = 75;
  down = 1;
  toGo = 10;
  readonly timeouts: Record<Side, number> = { away: 3, home: 3 };
  private drive: Drive;
  private receivedFirst: Side;
  private readonly college: boolean;
  private readonly drivesPerTeam: number;
  private inPlay = false;

  constructor(ctx: GameContext) {
    super(ctx, {
      scheme: 'quarters',
      periodSeconds: 900,
      overtimeSeconds: ctx.postseason || ctx.sportId === 1 ? 900 : 600,
      breakSeconds: 120,
      halftimeSeconds: 780,
      halftime: true,
    });
    this.college = ctx.sportId === 1;
    // Drives a side actually gets under this clock model (more plays per drive in college).
    this.drivesPerTeam = this.college ? 10.3 : 10.5;
    this.receivedFirst = ctx.rng.chance(0.5) ? 'away' : 'home';
    this.possession = this.receivedFirst;
    this.drive = this.newDrive();
  }

  protected override overtimeAllowed(): boolean {
    // NFL regular-season and preseason games end tied after one overtime.
    return this.period === this.regulation || this.college || this.ctx.postseason;
  }

  protected override onPeriodStart(): void {
    if (this.period === 3) {
      this.timeouts.away = 3;
      this.timeouts.home = 3;
      this.kickoff(other(this.receivedFirst));
    } else if (this.period > this.regulation) {
      this.timeouts.away = 2;
      this.timeouts.home = 2;
      this.kickoff(this.ctx.rng.chance(0.5) ? 'away' : 'home');
    }
  }

  protected playStep(): number {
    const { rng } = this.ctx;
    if (this.inPlay) {
      this.inPlay = false;
      const dead = this.resolvePlay();
      if (this.status === 'STATUS_FINAL') return 0;
      if (dead > 0) {
        this.clockRunning = false;
        return dead;
      }
    }
    this.inPlay = true;
    this.clockRunning = true;
    return rng.between(4, 8) + (rng.chance(0.62) ? rng.between(22, 34) : 0);
  }

  private kickoff(receiver: Side): void {
    this.possession = receiver;
    this.yardsToGoal = 75;
    this.firstDown();
    this.drive = this.newDrive();
  }

  private firstDown(): void {
    this.down = 1;
    this.toGo = Math.min(10, this.yardsToGoal);
  }

  private newDrive(): Drive {
    const { rng, expected } = this.ctx;
    const perDrive = expected[this.possession] / this.drivesPerTeam;
    const td = perDrive / 8.35;
    const fg = td * 0.45;
    const r = rng.next();
    const outcome: DriveOutcome = r < td ? 'td' : r < td + fg ? 'fg' : r < td + fg + 0.12 ? 'turnover' : 'punt';
    const stallAt = outcome === 'fg' ? rng.int(3, 32) : rng.int(38, 72);
    return { outcome, stallAt: Math.min(stallAt, this.yardsToGoal), playsToTurnover: rng.int(1, 7) };
  }

  /** One scrimmage play, kick or turnover; returns the dead-ball time after it. */
  private resolvePlay(): number {
    const { rng } = this.ctx;
    const off = this.possession;
    const def = other(off);
    const drive = this.drive;
    this.bump();
    if (rng.chance(0.012) && this.timeouts[def] > 0) {
      this.timeouts[def]--;
      this.record(`Timeout ${this.name(def)}`, def, []);
      return rng.between(60, 90);
    }
    if (drive.outcome === 'turnover' && --drive.playsToTurnover <= 0) {
      const spot = Math.min(99, Math.max(1, 100 - this.yardsToGoal + rng.int(-5, 20)));
      const roster = this.ctx[off].roster;
      if (rng.chance(0.55)) {
        const qb = roster[QB]!;
        this.record(
          `${qb.name} pass intercepted by ${this.name(def)}`,
          off,
          [qb],
          [
            this.credit(off, qb, 'passingAttempts'),
            this.credit(off, qb, 'interceptionsThrown'),
            this.credit(off, undefined, 'turnovers'),
          ],
        );
      } else {
        const rb = roster[RB]!;
        this.record(
          `${rb.name} fumble lost to ${this.name(def)}`,
          off,
          [rb],
          [
            this.credit(off, rb, 'rushingAttempts'),
            this.credit(off, rb, 'fumblesLost'),
            this.credit(off, undefined, 'turnovers'),
          ],
        );
      }
      this.possession = def;
      this.yardsToGoal = spot;
      this.firstDown();
      this.drive = this.newDrive();
      return rng.between(20, 40);
    }
    if (this.down === 4 && drive.outcome !== 'td') return this.kick();
    const stalling = drive.outcome !== 'td' && this.yardsToGoal <= drive.stallAt + 2;
    let gain: number;
    if (stalling) {
      gain = Math.min(rng.int(-2, 4), this.toGo - 1);
    } else {
      gain = Math.round(5.5 + 6.5 * rng.normal());
      if (rng.chance(0.05)) gain += rng.int(15, 45);
      gain = Math.max(-6, gain);
      if (drive.outcome === 'td' && this.down >= 3 && gain < this.toGo) gain = this.toGo + rng.int(0, 4);
      if (drive.outcome !== 'td') gain = Math.min(gain, this.yardsToGoal - drive.stallAt);
      gain = Math.min(gain, this.yardsToGoal);
    }
    this.yardsToGoal = Math.min(99, this.yardsToGoal - gain);
    const pass = rng.chance(0.55);
    const play = this.scrimmage(pass, gain);
    if (this.yardsToGoal <= 0) return this.touchdown(play);
    const firstDown = gain >= this.toGo;
    if (firstDown) play.credits.push(this.credit(off, undefined, 'firstDowns'));
    this.record(`${play.text} for ${gain} yard${Math.abs(gain) === 1 ? '' : 's'}`, off, play.players, play.credits);
    if (firstDown) {
      this.firstDown();
    } else {
      this.down++;
      this.toGo -= gain;
    }
    return pass || rng.chance(0.7) ? 0 : rng.between(20, 32);
  }

  /** Who ran or caught the ball and what the gain adds to their lines and the team's yards. */
  private scrimmage(pass: boolean, gain: number): Scrimmage {
    const off = this.possession;
    const roster = this.ctx[off].roster;
    const total = this.credit(off, undefined, 'totalYards', gain);
    if (pass) {
      const qb = roster[QB]!;
      const target = this.someone(off, TARGETS);
      return {
        pass,
        text: `${qb.name} pass complete to ${target.name}`,
        players: [qb, target],
        credits: [
          this.credit(off, qb, 'passingAttempts'),
          this.credit(off, qb, 'completions'),
          this.credit(off, qb, 'passingYards', gain),
          this.credit(off, target, 'receptions'),
          this.credit(off, target, 'receivingYards', gain),
          total,
        ],
      };
    }
    const runner = this.someone(off, RUNNERS);
    return {
      pass,
      text: `${runner.name} rush`,
      players: [runner],
      credits: [this.credit(off, runner, 'rushingAttempts'), this.credit(off, runner, 'rushingYards', gain), total],
    };
  }

  private touchdown(play: Scrimmage): number {
    const { rng } = this.ctx;
    const off = this.possession;
    const extra = rng.chance(0.94) ? 1 : rng.chance(0.4) ? 2 : 0;
    this.addPoints(off, 6 + extra);
    const [thrower, scorer] = play.players;
    const credits = [...play.credits, this.credit(off, undefined, 'points', 6 + extra)];
    if (play.pass) {
      credits.push(this.credit(off, thrower, 'passingTouchdowns'), this.credit(off, scorer, 'receivingTouchdowns'));
    } else credits.push(this.credit(off, thrower, 'rushingTouchdowns'));
    const players = [...play.players];
    let after = extra === 2 ? ', two-point conversion good' : extra === 0 ? ', extra point no good' : '';
    if (extra === 1) {
      const kicker = this.ctx[off].roster[K]!;
      credits.push(this.credit(off, kicker, 'extraPointsMade'));
      players.push(kicker);
      after = `, ${kicker.name} extra point good`;
    }
    this.record(`${play.text} for a touchdown${after}`, off, players, credits);
    return this.afterScore(off);
  }

  private kick(): number {
    const { rng } = this.ctx;
    const off = this.possession;
    const distance = this.yardsToGoal + 17;
    const roster = this.ctx[off].roster;
    // A stalled drive deep in the other half kicks a field goal whatever its plan was.
    if ((this.drive.outcome === 'fg' && distance <= 58) || distance <= 45) {
      this.addPoints(off, 3);
      const kicker = roster[K]!;
      this.record(
        `${kicker.name} ${distance} yard field goal is good`,
        off,
        [kicker],
        [this.credit(off, kicker, 'fieldGoalsMade'), this.credit(off, undefined, 'points', 3)],
      );
      return this.afterScore(off);
    }
    const landing = this.yardsToGoal - (42 + rng.int(-8, 8));
    const punter = roster[P]!;
    this.record(`${punter.name} punts`, off, [punter], [this.credit(off, punter, 'punts')]);
    this.possession = other(off);
    this.yardsToGoal = landing <= 0 ? 80 : Math.min(95, Math.max(5, 100 - landing - rng.int(0, 10)));
    this.firstDown();
    this.drive = this.newDrive();
    return this.ctx.rng.between(25, 40);
  }

  /** Sudden death in overtime; otherwise a kickoff to the other side. */
  private afterScore(scorer: Side): number {
    if (this.period > this.regulation) {
      this.finish();
      return 0;
    }
    this.kickoff(other(scorer));
    return this.ctx.rng.between(50, 80);
  }

  private ballOn(): string {
    if (this.yardsToGoal === 50) return '50';
    const side = this.yardsToGoal > 50 ? this.possession : other(this.possession);
    return `${this.name(side)} ${this.yardsToGoal > 50 ? 100 - this.yardsToGoal : this.yardsToGoal}`;
  }

  liveState(): Record<string, unknown> {
    return {
      period: this.period,
      clock: this.score().display_clock,
      possession: this.possession,
      down: this.down,
      distance: this.toGo,
      yard_line: this.ballOn(),
      yards_to_goal: this.yardsToGoal,
      red_zone: this.yardsToGoal <= 20,
      timeouts_away: this.timeouts.away,
      timeouts_home: this.timeouts.home,
      last_play: this.lastPlay,
    };
  }

  restore(score: Score, state: Record<string, unknown>): void {
    restoreClock(this, score);
    this.possession = sideOf(state.possession, this.possession);
    this.receivedFirst = this.possession;
    this.down = Math.min(4, Math.max(1, num(state.down, 1)));
    this.yardsToGoal = Math.min(99, Math.max(1, num(state.yards_to_goal, 75)));
    this.toGo = Math.min(this.yardsToGoal, Math.max(1, num(state.distance, 10)));
    this.timeouts.away = num(state.timeouts_away, 3);
    this.timeouts.home = num(state.timeouts_home, 3);
    this.drive = this.newDrive();
    this.lastPlay = typeof state.last_play === 'string' ? state.last_play : '';
  }
}
