import type { Score } from '../../../domain/types.ts';
import type { GameContext, PlayerStats, Side } from './base.ts';
import { ClockGame, other } from './base.ts';
import type { Player } from '../roster.ts';
import { num, restoreClock, sideOf } from './restore.ts';

/** Who commits a defensive foul, by roster slot: bigs more than guards, starters more than the bench. */
const DEFENDING = [0.8, 0.9, 1, 1.3, 1.5, 0.5, 0.5, 0.6];

/** Possessions per team in regulation: pace decides how the expected score is reached. */
const PACE: Record<number, number> = { 5: 68, 8: 80 };
/** Points per possession of the base shot mix below (3s, 2s and free-throw trips). */
const BASE_PPP = 0.13 * 3 + 0.32 * 2 + 0.07 * 1.75;

/** Basketball by possessions, with a box per player for the props. */
export class BasketballGame extends ClockGame {
  possession: Side;
  readonly timeouts: Record<Side, number>;
  readonly fouls: Record<Side, number> = { away: 0, home: 0 };
  private readonly stats = new Map<number, PlayerStats>();
  private readonly ppp: Record<Side, number>;
  private readonly possessionSeconds: number;
  private readonly bonusAt: number;
  private inPlay = false;

  constructor(ctx: GameContext) {
    const college = ctx.sportId === 5;
    const periodSeconds = college ? 1200 : ctx.sportId === 8 ? 600 : 720;
    super(ctx, {
      scheme: college ? 'halves' : 'quarters',
      periodSeconds,
      overtimeSeconds: 300,
      breakSeconds: 130,
      halftimeSeconds: 900,
      halftime: true,
    });
    const pace = PACE[ctx.sportId] ?? 100;
    this.ppp = { away: ctx.expected.away / pace, home: ctx.expected.home / pace };
    this.possessionSeconds = (periodSeconds * this.regulation) / (2 * pace);
    this.bonusAt = college ? 7 : 5;
    this.timeouts = { away: college ? 4 : 7, home: college ? 4 : 7 };
    this.possession = ctx.rng.chance(0.5) ? 'away' : 'home';
    for (const side of ['away', 'home'] as const) {
      for (const p of ctx[side].roster) this.stats.set(p.id, { points: 0, rebounds: 0, assists: 0, threes: 0 });
    }
  }

  playerStats(): ReadonlyMap<number, PlayerStats> {
    return this.stats;
  }

  protected playStep(): number {
    const { rng } = this.ctx;
    if (this.inPlay) {
      this.inPlay = false;
      const dead = this.resolvePossession();
      if (dead > 0) {
        this.clockRunning = false;
        return dead;
      }
    }
    this.inPlay = true;
    this.clockRunning = true;
    return this.possessionSeconds * rng.between(0.45, 1.55);
  }

  protected override onPeriodStart(): void {
    // A possession cut off by the buzzer is over.
    this.inPlay = false;
    // College team fouls run per half, pro per quarter; overtime carries the last period's count.
    if (this.period <= this.regulation) {
      this.fouls.away = 0;
      this.fouls.home = 0;
    } else {
      for (const side of ['away', 'home'] as const) this.timeouts[side] = Math.max(this.timeouts[side], 2);
    }
    this.possession = other(this.possession);
  }

  /** One possession of the side with the ball; returns the dead-ball time after it. */
  private resolvePossession(): number {
    const { rng } = this.ctx;
    const off = this.possession;
    const def = other(off);
    const offense = this.ctx[off].roster;
    const f = this.ppp[off] / BASE_PPP;
    const r = rng.next();
    let dead = rng.between(0, 5);
    const p3 = 0.13 * f;
    const p2 = p3 + 0.32 * f;
    const pft = p2 + 0.07 * f;
    if (r < p2) {
      const three = r < p3;
      const shooter = rng.pickWeighted(offense, (p) => p.usage * (three ? p.threes : 1));
      const pts = three ? 3 : 2;
      this.creditProps(shooter.id, pts, three);
      const passer = rng.chance(three ? 0.75 : 0.55) ? this.assist(shooter.id) : undefined;
      this.addPoints(off, pts);
      const credits = [
        this.credit(off, shooter, 'points', pts),
        this.credit(off, shooter, 'fieldGoalsMade'),
        this.credit(off, shooter, 'fieldGoalsAttempted'),
      ];
      if (three) {
        credits.push(this.credit(off, shooter, 'threePointFieldGoalsMade'));
        credits.push(this.credit(off, shooter, 'threePointFieldGoalsAttempted'));
      }
      if (passer) credits.push(this.credit(off, passer, 'assists'));
      const what = three ? '3-pt jumper' : 'jump shot';
      this.record(
        `${shooter.name} makes ${what}${passer ? ` (${passer.name} assists)` : ''}`,
        off,
        passer ? [shooter, passer] : [shooter],
        credits,
      );
      dead = rng.between(4, 14);
    } else if (r < pft) {
      const shooter = rng.pickWeighted(offense, (p) => p.usage);
      const pts = rng.chance(0.75) ? 2 : 1;
      this.creditProps(shooter.id, pts, false);
      this.fouls[def]++;
      this.addPoints(off, pts);
      const fouler = this.someone(def, DEFENDING);
      this.record(
        `${shooter.name} makes ${pts} of 2 free throws (foul on ${fouler.name})`,
        off,
        [shooter, fouler],
        [
          this.credit(off, shooter, 'points', pts),
          this.credit(off, shooter, 'freeThrowsMade', pts),
          this.credit(off, shooter, 'freeThrowsAttempted', 2),
          this.credit(def, fouler, 'fouls'),
        ],
      );
      dead = rng.between(20, 40);
    } else if (rng.chance(0.62)) {
      const offensive = rng.chance(0.25);
      const team = offensive ? off : def;
      const roster = this.ctx[team].roster;
      const rebounder = rng.pickWeighted(roster, (p) => p.rebounding);
      const stats = this.stats.get(rebounder.id);
      if (stats) stats.rebounds++;
      const shooter = this.someone(
        off,
        offense.map((p) => p.usage),
      );
      const three = this.ctx.who.chance(0.35);
      const credits = [
        this.credit(off, shooter, 'fieldGoalsAttempted'),
        this.credit(team, rebounder, offensive ? 'offensiveRebounds' : 'defensiveRebounds'),
        this.credit(team, rebounder, 'rebounds'),
      ];
      if (three) credits.push(this.credit(off, shooter, 'threePointFieldGoalsAttempted'));
      this.record(
        `${shooter.name} misses ${three ? '3-pt jumper' : 'jump shot'}, ${offensive ? 'offensive' : 'defensive'} rebound by ${rebounder.name}`,
        off,
        [shooter, rebounder],
        credits,
      );
    } else {
      const handler = this.someone(
        off,
        offense.map((p) => p.usage),
      );
      const credits = [this.credit(off, handler, 'turnovers')];
      const players = [handler];
      let text = `${handler.name} turnover`;
      if (rng.chance(0.3)) {
        this.fouls[def]++;
        const fouler = this.someone(def, DEFENDING);
        credits.push(this.credit(def, fouler, 'fouls'));
        players.push(fouler);
        text += `, foul on ${fouler.name}`;
        dead = rng.between(8, 20);
      }
      this.record(text, off, players, credits);
    }
    if (rng.chance(0.012) && this.timeouts[def] > 0) {
      this.timeouts[def]--;
      this.record(`${this.name(def)} timeout`, def, []);
      dead += 75;
    }
    this.possession = def;
    this.bump();
    return dead;
  }

  private creditProps(playerId: number, points: number, three: boolean): void {
    const stats = this.stats.get(playerId);
    if (!stats) return;
    stats.points += points;
    if (three) stats.threes++;
  }

  private assist(shooterId: number): Player {
    const { rng } = this.ctx;
    const team = this.ctx[this.possession].roster.filter((p) => p.id !== shooterId);
    const passer = rng.pickWeighted(team, (p) => p.assisting);
    const stats = this.stats.get(passer.id);
    if (stats) stats.assists++;
    return passer;
  }

  liveState(): Record<string, unknown> {
    return {
      period: this.period,
      clock: this.score().display_clock,
      possession: this.possession,
      timeouts_away: this.timeouts.away,
      timeouts_home: this.timeouts.home,
      fouls_away: this.fouls.away,
      fouls_home: this.fouls.home,
      bonus_away: this.fouls.home >= this.bonusAt,
      bonus_home: this.fouls.away >= this.bonusAt,
      last_play: this.lastPlay,
    };
  }

  restore(score: Score, state: Record<string, unknown>): void {
    restoreClock(this, score);
    this.possession = sideOf(state.possession, this.possession);
    this.timeouts.away = num(state.timeouts_away, this.timeouts.away);
    this.timeouts.home = num(state.timeouts_home, this.timeouts.home);
    this.fouls.away = num(state.fouls_away, 0);
    this.fouls.home = num(state.fouls_home, 0);
    // The box is not part of the committed state: spread each side's points by usage instead.
    for (const side of ['away', 'home'] as const) {
      const roster = this.ctx[side].roster;
      const usage = roster.reduce((acc, p) => acc + p.usage, 0);
      const points = this.total(side);
      for (const p of roster) {
        const stats = this.stats.get(p.id);
        if (!stats) continue;
        stats.points = Math.round((points * p.usage) / usage);
        stats.rebounds = Math.round((points * 0.4 * p.rebounding) / usage);
        stats.assists = Math.round((points * 0.22 * p.assisting) / usage);
        stats.threes = Math.round((points * 0.1 * p.threes) / usage);
      }
    }
    this.lastPlay = typeof state.last_play === 'string' ? state.last_play : '';
  }
}
