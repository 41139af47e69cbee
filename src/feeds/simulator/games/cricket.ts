import { addPeriodPoints, displayClock, openPeriod, statusDetail, sum, winners } from '../../../domain/score.ts';
import type { Score } from '../../../domain/types.ts';
import type { Outlook } from '../model.ts';
import { normalOutlook } from '../model.ts';
import type { GameContext, ScoreCore, Segment, Side } from './base.ts';
import { other, SteppedGame } from './base.ts';
import { copyInto, num } from './restore.ts';

const BALLS = 120;
/** Runs per legal ball of the base outcome mix below. */
const BASE_RATE = 1.235;
/** Ball outcomes: runs scored, or -1 for a wicket; boundary weights scale with the batting side. */
const OUTCOMES: [number, number][] = [
  [-1, 0.045],
  [0, 0.36],
  [1, 0.36],
  [2, 0.075],
  [3, 0.005],
  [4, 0.11],
  [6, 0.045],
];
const INNINGS_SD = 22;
/** Roster slots (src/feeds/simulator/roster.ts) that bowl, an over each in turn. */
const BOWLERS = [6, 7, 8, 9, 10];

/**
 * T20 cricket ball by ball. The away side bats first; the home side chases. One period entry per
 * innings holds its runs; the home array stays empty until the chase begins.
 */
export class CricketGame extends SteppedGame {
  innings = 1;
  balls = 0;
  readonly wickets: Record<Side, number> = { away: 0, home: 0 };
  readonly away: number[] = [0];
  readonly home: number[] = [];
  private inBreak = false;
  private readonly weights: Record<Side, number[]>;

  constructor(ctx: GameContext) {
    super(ctx);
    const weightsFor = (side: Side) => {
      const f = ctx.expected[side] / (BASE_RATE * BALLS);
      return OUTCOMES.map(([runs, p]) => (runs >= 2 ? p * f * f : p));
    };
    this.weights = { away: weightsFor('away'), home: weightsFor('home') };
  }

  private get batting(): Side {
    return this.innings === 1 ? 'away' : 'home';
  }

  protected step(): number {
    const { rng } = this.ctx;
    if (this.inBreak) {
      this.inBreak = false;
      this.innings = 2;
      this.balls = 0;
      openPeriod(this.home, 1);
      this.bump();
      return rng.between(60, 120);
    }
    const bat = this.batting;
    const field = other(bat);
    const bowler = this.ctx[field].roster[BOWLERS[Math.floor(this.balls / 6) % BOWLERS.length]!];
    if (rng.chance(0.03)) {
      addPeriodPoints(bat === 'away' ? this.away : this.home, 1, 1);
      this.bump();
      const end = this.checkEnd();
      this.record('Wide', bat, bowler ? [bowler] : [], [
        this.credit(bat, undefined, 'runs'),
        this.credit(bat, undefined, 'extras'),
        this.credit(field, bowler, 'runsConceded'),
      ]);
      return end ?? rng.between(25, 40);
    }
    // The weights hold one entry per outcome, so the drawn index is an outcome's.
    const runs = OUTCOMES[rng.weighted(this.weights[bat])]![0];
    this.balls++;
    const striker = this.ctx[bat].roster[Math.min(10, this.wickets[bat])];
    const players = [striker, bowler].filter((p) => p !== undefined);
    const credits = [this.credit(bat, striker, 'ballsFaced'), this.credit(field, bowler, 'ballsBowled')];
    let text: string;
    if (runs < 0) {
      this.wickets[bat]++;
      credits.push(this.credit(bat, undefined, 'wicketsLost'), this.credit(field, bowler, 'wicketsTaken'));
      text = `Wicket! ${striker?.name ?? this.name(bat)} out, ${this.name(bat)} ${this.wickets[bat]} down`;
    } else {
      addPeriodPoints(bat === 'away' ? this.away : this.home, 1, runs);
      if (runs > 0)
        credits.push(this.credit(bat, striker, 'runs', runs), this.credit(field, bowler, 'runsConceded', runs));
      if (runs === 4) credits.push(this.credit(bat, striker, 'fours'));
      if (runs === 6) credits.push(this.credit(bat, striker, 'sixes'));
      const who = striker ? `${striker.name}: ` : '';
      text =
        runs === 0
          ? `${who}dot ball`
          : runs === 4
            ? `${who}FOUR`
            : runs === 6
              ? `${who}SIX`
              : `${who}${runs} run${runs > 1 ? 's' : ''}`;
    }
    this.bump();
    const end = this.checkEnd();
    this.record(text, bat, players, credits);
    return end ?? (this.balls % 6 === 0 ? rng.between(60, 90) : rng.between(30, 45));
  }

  /** Ends an innings or the match when due; returns the pause that follows, if any. */
  private checkEnd(): number | undefined {
    const allOut = this.wickets[this.batting] >= 10;
    if (this.innings === 2 && sum(this.home) > sum(this.away)) {
      this.finish();
      return 0;
    }
    if (this.balls < BALLS && !allOut) return undefined;
    if (this.innings === 2) {
      this.finish();
      return 0;
    }
    this.inBreak = true;
    this.bump();
    return 600;
  }

  score(): ScoreCore {
    const scoreAway = sum(this.away);
    const scoreHome = sum(this.home);
    return {
      event_status: this.status,
      score_away: scoreAway,
      score_home: scoreHome,
      ...winners(this.status, scoreAway, scoreHome),
      score_away_by_period: this.away.slice(),
      score_home_by_period: this.home.slice(),
      game_clock: 0,
      display_clock: displayClock('cricket', 0, this.innings),
      game_period: this.innings,
      event_status_detail: statusDetail({
        scheme: 'cricket',
        status: this.status,
        period: this.innings,
        clock: 0,
        periodOver: this.inBreak,
      }),
    };
  }

  liveState(): Record<string, unknown> {
    const runs = sum(this.batting === 'away' ? this.away : this.home);
    const overs = this.balls / 6;
    const target = this.innings === 2 ? sum(this.away) + 1 : null;
    return {
      innings: this.innings,
      batting: this.batting,
      runs,
      wickets: this.wickets[this.batting],
      overs: `${Math.floor(this.balls / 6)}.${this.balls % 6}`,
      target,
      run_rate: overs > 0 ? Math.round((runs / overs) * 100) / 100 : 0,
      required_run_rate:
        target === null ? null : Math.round(((target - runs) / Math.max(1, BALLS - this.balls)) * 600) / 100,
      last_play: this.lastPlay,
    };
  }

  remaining(): number {
    if (this.status === 'STATUS_FINAL') return 0;
    return (this.innings === 1 ? 2 * BALLS - this.balls : BALLS - this.balls) / (2 * BALLS);
  }

  outlook(segment: Segment): Outlook | undefined {
    if (segment !== 'game' || this.status === 'STATUS_FINAL') return undefined;
    const { expected } = this.ctx;
    const left = (side: Side) => {
      if (side !== this.batting) return side === 'home' ? 1 : 0;
      const resources = 0.55 + (0.45 * (10 - this.wickets[side])) / 10;
      return this.inBreak ? 0 : ((BALLS - this.balls) / BALLS) * resources;
    };
    const home = sum(this.home) + expected.home * left('home');
    const away = sum(this.away) + expected.away * left('away');
    const sd = INNINGS_SD * Math.sqrt(left('home') + left('away'));
    return normalOutlook(home - away, sd, home + away, sd, 0.5);
  }

  restore(score: Score, state: Record<string, unknown>): void {
    copyInto(this.away, score.score_away_by_period.length > 0 ? score.score_away_by_period : [0]);
    copyInto(this.home, score.score_home_by_period);
    this.innings = Math.min(2, Math.max(1, score.game_period));
    const [overs, balls] = String(state.overs ?? '0.0')
      .split('.')
      .map(Number);
    this.balls = Math.min(BALLS, num(overs, 0) * 6 + num(balls, 0));
    this.wickets[this.batting] = num(state.wickets, 0);
    this.inBreak = score.event_status_detail === 'Innings Break';
    if (this.inBreak) this.wait = 300;
    this.lastPlay = typeof state.last_play === 'string' ? state.last_play : '';
  }
}
