import { soccerMinute } from '../../../domain/score.ts';
import type { Score } from '../../../domain/types.ts';
import type { GameContext, Side } from './base.ts';
import { ClockGame, other } from './base.ts';
import { copyInto, num, sideOf } from './restore.ts';

const HALF = 2700;
/** Roster slots (src/feeds/simulator/roster.ts): GK, four DF, three MF, three FW; who does what, by slot. */
const SHOOTERS = [0, 0.3, 0.3, 0.3, 0.3, 1, 1, 1, 2.5, 2.5, 2.5];
const TAKERS = [0, 0.5, 0, 0, 0.5, 2, 2, 2, 0.5, 0, 0];
const BOOKED = [0.2, 1.5, 1.5, 1.5, 1.5, 1.2, 1.2, 1.2, 0.7, 0.7, 0.7];
/** Attacking moves per team per 90 minutes; goals, shots and corners come from them. */
const MOVES_PER_TEAM = 45;

/** Soccer: two halves with stoppage time, a clock that never stops and counts up. */
export class SoccerGame extends ClockGame {
  possession: Side = 'home';
  readonly shots: Record<Side, number> = { away: 0, home: 0 };
  readonly corners: Record<Side, number> = { away: 0, home: 0 };
  /**
   * Seconds of stoppage time added to each half, indexed by period - 1: with no overtime the
   * period is only ever 1 or 2.
   */
  private readonly added: [number, number];

  constructor(ctx: GameContext) {
    super(ctx, {
      scheme: 'soccer',
      periodSeconds: HALF,
      overtimeSeconds: 0,
      breakSeconds: 900,
      halftimeSeconds: 900,
      halftime: true,
    });
    this.added = [60 * ctx.rng.int(1, 4), 60 * ctx.rng.int(2, 7)];
    this.clock = this.periodLength(1);
    this.clockRunning = true;
  }

  protected override periodLength(period: number): number {
    return HALF + this.added[period - 1]!;
  }

  protected override overtimeAllowed(): boolean {
    return false;
  }

  protected override onPeriodStart(): void {
    this.clockRunning = true;
  }

  private elapsedInPeriod(): number {
    return this.periodLength(this.period) - this.clock;
  }

  protected override elapsedShare(): number {
    return Math.min(1, (this.period - 1 + this.elapsedInPeriod() / this.periodLength(this.period)) / 2);
  }

  protected override servedClock(): number {
    return Math.round((this.period - 1) * HALF + this.elapsedInPeriod());
  }

  protected playStep(): number {
    const { rng } = this.ctx;
    this.clockRunning = true;
    if (this.elapsedInPeriod() > 0) this.resolveMove();
    return (-Math.log(1 - rng.next()) * 2 * HALF) / (2 * MOVES_PER_TEAM);
  }

  private resolveMove(): void {
    const { rng, expected } = this.ctx;
    const shareHome = 0.5 + 0.15 * Math.tanh(expected.home - expected.away);
    const side: Side = rng.chance(shareHome) ? 'home' : 'away';
    const share = side === 'home' ? shareHome : 1 - shareHome;
    // Stoppage time adds moves; the conversion keeps the expected goals per match.
    const conversion = (expected[side] / (2 * MOVES_PER_TEAM * share)) * (HALF / this.periodLength(this.period));
    this.possession = side;
    const minute = soccerMinute(this.servedClock(), this.period);
    const them = other(side);
    if (rng.chance(conversion)) {
      this.shots[side]++;
      this.addPoints(side, 1);
      const scorer = this.someone(side, SHOOTERS);
      this.record(
        `${minute} Goal ${this.name(side)}, ${scorer.name}`,
        side,
        [scorer],
        [
          this.credit(side, scorer, 'goals'),
          this.credit(side, scorer, 'shots'),
          this.credit(side, scorer, 'shotsOnTarget'),
        ],
      );
      return;
    }
    const r = rng.next();
    if (r < 0.28) {
      this.shots[side]++;
      const shot = rng.pick(['shot saved', 'shot off target', 'shot blocked']);
      const shooter = this.someone(side, SHOOTERS);
      const credits = [this.credit(side, shooter, 'shots')];
      const players = [shooter];
      if (shot === 'shot saved') {
        const keeper = this.ctx[them].roster[0]!;
        credits.push(this.credit(side, shooter, 'shotsOnTarget'), this.credit(them, keeper, 'saves'));
        players.push(keeper);
      }
      this.record(`${minute} ${this.name(side)} ${shot}, ${shooter.name}`, side, players, credits);
    } else if (r < 0.4) {
      this.corners[side]++;
      const taker = this.someone(side, TAKERS);
      this.record(
        `${minute} Corner ${this.name(side)}, ${taker.name}`,
        side,
        [taker],
        [this.credit(side, taker, 'cornerKicks')],
      );
    } else if (r < 0.44) {
      const booked = this.someone(them, BOOKED);
      this.record(
        `${minute} Yellow card ${this.name(them)}, ${booked.name}`,
        them,
        [booked],
        [this.credit(them, booked, 'yellowCards')],
      );
    } else {
      return;
    }
    this.bump();
  }

  liveState(): Record<string, unknown> {
    return {
      period: this.period,
      half: this.period === 1 ? '1H' : '2H',
      minute: soccerMinute(this.servedClock(), this.period),
      added_time: (this.elapsedInPeriod() > HALF || this.inBreak ? this.added[this.period - 1]! : 0) / 60,
      possession: this.possession,
      shots_away: this.shots.away,
      shots_home: this.shots.home,
      corners_away: this.corners.away,
      corners_home: this.corners.home,
      last_play: this.lastPlay,
    };
  }

  restore(score: Score, state: Record<string, unknown>): void {
    copyInto(this.away, score.score_away_by_period.length > 0 ? score.score_away_by_period : [0]);
    copyInto(this.home, score.score_home_by_period.length > 0 ? score.score_home_by_period : [0]);
    this.period = Math.min(2, Math.max(1, score.game_period));
    const elapsed = Math.max(0, score.game_clock - (this.period - 1) * HALF);
    this.added[this.period - 1] = Math.max(this.added[this.period - 1]!, elapsed - HALF + 60);
    this.clock = Math.max(0, this.periodLength(this.period) - elapsed);
    this.inBreak = score.event_status === 'STATUS_HALFTIME';
    this.status = this.inBreak ? 'STATUS_HALFTIME' : 'STATUS_IN_PROGRESS';
    if (this.inBreak) {
      this.clock = 0;
      this.breakLeft = 450;
    }
    this.clockRunning = !this.inBreak;
    this.possession = sideOf(state.possession, 'home');
    this.shots.away = num(state.shots_away, 0);
    this.shots.home = num(state.shots_home, 0);
    this.corners.away = num(state.corners_away, 0);
    this.corners.home = num(state.corners_home, 0);
    this.lastPlay = typeof state.last_play === 'string' ? state.last_play : '';
  }
}
