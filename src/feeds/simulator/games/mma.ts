import { displayClock, statusDetail } from '../../../domain/score.ts';
import type { Score } from '../../../domain/types.ts';
import type { Outlook } from '../model.ts';
import { binaryOutlook, phi } from '../model.ts';
import type { GameContext, ScoreCore, Segment, Side } from './base.ts';
import { SteppedGame } from './base.ts';
import { num } from './restore.ts';

const ROUND = 300;
/** Chance that an exchange ends the fight; about half of three-round fights end early. */
const FINISH_PER_EXCHANGE = 0.022;
const EXCHANGE_SECONDS = 30;

/**
 * MMA by exchanges: momentum (home's edge on a probit scale) drifts with each exchange, any
 * exchange can end the fight, judges score the rounds that go the distance. Scores stay 0-0:
 * the result is in winner_away / winner_home.
 */
export class MmaGame extends SteppedGame {
  round = 1;
  clock = ROUND;
  readonly rounds: number;
  readonly strikes: Record<Side, number> = { away: 0, home: 0 };
  readonly takedowns: Record<Side, number> = { away: 0, home: 0 };
  readonly roundsWon: Record<Side, number> = { away: 0, home: 0 };
  private momentum: number;
  private winner: Side | null = null;
  private inBreak = false;

  constructor(ctx: GameContext) {
    super(ctx);
    this.rounds = ctx.mainEvent ? 5 : 3;
    this.momentum = ctx.params.strengthEffect * this.ctx.expected.edge;
  }

  protected override runClock(seconds: number): void {
    this.clock = Math.max(0, this.clock - seconds);
  }

  protected step(): number {
    const { rng } = this.ctx;
    if (this.inBreak) {
      this.inBreak = false;
      this.round++;
      this.clock = ROUND;
      this.clockRunning = true;
      this.bump();
      return Math.min(this.clock, rng.between(15, 45));
    }
    if (this.clock <= 1e-6) return this.endRound();
    this.clockRunning = true;
    if (this.clock < ROUND) this.exchange();
    if (this.status === 'STATUS_FINAL') return 0;
    return Math.min(this.clock, rng.between(0.5, 1.5) * EXCHANGE_SECONDS);
  }

  private exchange(): void {
    const { rng } = this.ctx;
    this.momentum += 0.18 * rng.normal() + 0.02 * this.ctx.params.strengthEffect * this.ctx.expected.edge;
    const side: Side = rng.chance(phi(this.momentum)) ? 'home' : 'away';
    const fighter = this.ctx[side].roster.slice(0, 1);
    if (rng.chance(FINISH_PER_EXCHANGE)) {
      this.winner = side;
      const method = rng.pick(['KO/TKO', 'KO/TKO', 'Submission']);
      const time = displayClock('rounds', ROUND - this.clock, this.round);
      this.finish();
      this.record(`${this.name(side)} wins by ${method}, R${this.round} ${time}`, side, fighter);
      return;
    }
    if (rng.chance(0.2)) {
      this.takedowns[side]++;
      this.bump();
      this.record(`${this.name(side)} takedown`, side, fighter, [this.credit(side, fighter[0], 'takedowns')]);
    } else {
      const landed = rng.int(1, 6);
      this.strikes[side] += landed;
      const strike = rng.pick(['a jab', 'a combination', 'a leg kick', 'a body shot']);
      this.bump();
      this.record(`${this.name(side)} lands ${strike}`, side, fighter, [
        this.credit(side, fighter[0], 'significantStrikes', landed),
      ]);
    }
  }

  private endRound(): number {
    const { rng } = this.ctx;
    const side: Side = rng.chance(phi(this.momentum)) ? 'home' : 'away';
    this.roundsWon[side]++;
    this.clockRunning = false;
    const fighter = this.ctx[side].roster.slice(0, 1);
    const card = this.credit(side, fighter[0], 'roundsWon');
    if (this.round >= this.rounds) {
      const h = this.roundsWon.home;
      const a = this.roundsWon.away;
      this.winner = h === a ? (this.momentum >= 0 ? 'home' : 'away') : h > a ? 'home' : 'away';
      this.finish();
      this.record(
        `Round ${this.round} to ${this.name(side)}; ${this.name(this.winner)} wins by decision`,
        side,
        fighter,
        [card],
      );
      return 0;
    }
    this.inBreak = true;
    this.bump();
    this.record(`Round ${this.round} to ${this.name(side)}`, side, fighter, [card]);
    return 60;
  }

  score(): ScoreCore {
    const final = this.status === 'STATUS_FINAL';
    const clock = final || this.inBreak ? 0 : Math.round(this.clock);
    return {
      event_status: this.status,
      score_away: 0,
      score_home: 0,
      winner_away: final && this.winner === 'away' ? 1 : 0,
      winner_home: final && this.winner === 'home' ? 1 : 0,
      score_away_by_period: [],
      score_home_by_period: [],
      game_clock: clock,
      display_clock: displayClock('rounds', clock, this.round),
      game_period: this.round,
      event_status_detail: statusDetail({
        scheme: 'rounds',
        status: this.status,
        period: this.round,
        clock,
        periodOver: this.inBreak,
      }),
    };
  }

  liveState(): Record<string, unknown> {
    return {
      round: this.round,
      clock: displayClock('rounds', this.inBreak ? 0 : this.clock, this.round),
      scheduled_rounds: this.rounds,
      significant_strikes_away: this.strikes.away,
      significant_strikes_home: this.strikes.home,
      takedowns_away: this.takedowns.away,
      takedowns_home: this.takedowns.home,
      last_play: this.lastPlay,
    };
  }

  /** Minutes fought so far. */
  private elapsedMinutes(): number {
    return ((this.round - 1) * ROUND + (this.inBreak ? ROUND : ROUND - this.clock)) / 60;
  }

  remaining(): number {
    return this.status === 'STATUS_FINAL' ? 0 : Math.max(0, 1 - this.elapsedMinutes() / (this.rounds * 5));
  }

  outlook(segment: Segment): Outlook | undefined {
    if (segment !== 'game' || this.status === 'STATUS_FINAL') return undefined;
    const left = this.remaining();
    const cards = this.roundsWon.home - this.roundsWon.away;
    const p = phi(this.momentum + 0.35 * cards * (1 - left));
    const perMinute = (FINISH_PER_EXCHANGE * 60) / EXCHANGE_SECONDS;
    const elapsed = this.elapsedMinutes();
    // Over x.5 rounds: the fight is still going at the middle of round x+1.
    return binaryOutlook(p, (line) =>
      line >= this.rounds ? 0 : Math.exp(-perMinute * Math.max(0, line * 5 - elapsed)),
    );
  }

  restore(score: Score, state: Record<string, unknown>): void {
    this.round = Math.max(1, score.game_period);
    this.clock = score.game_clock > 0 ? score.game_clock : ROUND;
    this.inBreak = score.event_status_detail.startsWith('End ');
    if (this.inBreak) {
      this.clock = 0;
      this.wait = 30;
    }
    this.strikes.away = num(state.significant_strikes_away, 0);
    this.strikes.home = num(state.significant_strikes_home, 0);
    this.takedowns.away = num(state.takedowns_away, 0);
    this.takedowns.home = num(state.takedowns_home, 0);
    this.lastPlay = typeof state.last_play === 'string' ? state.last_play : '';
  }
}
