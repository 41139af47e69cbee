import { addPeriodPoints, displayClock, openPeriod, statusDetail, sum, winners } from '../../../domain/score.ts';
import type { Score } from '../../../domain/types.ts';
import type { Outlook } from '../model.ts';
import { poissonOutlook } from '../model.ts';
import type { Player } from '../roster.ts';
import type { CreditReader, GameContext, ScoreCore, Segment, Side } from './base.ts';
import { SteppedGame } from './base.ts';
import { copyInto, num } from './restore.ts';

type PaOutcome = 'K' | 'BB' | 'HBP' | '1B' | '2B' | '3B' | 'HR' | 'OUT';

/** League-average plate-appearance outcomes; the hitting ones scale with a side's offense. */
const OUTCOMES: [PaOutcome, number][] = [
  ['K', 0.225],
  ['BB', 0.085],
  ['HBP', 0.01],
  ['1B', 0.14],
  ['2B', 0.045],
  ['3B', 0.004],
  ['HR', 0.032],
];
/** Runs per side that the base outcome mix produces. */
const BASE_RUNS = 4.15;

/** Baseball pitch by pitch: each plate appearance's result is drawn first, its pitches follow. */
export class BaseballGame extends SteppedGame {
  inning = 1;
  half: 'top' | 'bottom' = 'top';
  outs = 0;
  balls = 0;
  strikes = 0;
  readonly runners: [boolean, boolean, boolean] = [false, false, false];
  readonly away: number[] = [0];
  readonly home: number[] = [];
  private readonly batterIndex: Record<Side, number> = { away: 0, home: 0 };
  private pitches: ('B' | 'S' | 'X')[] = [];
  private outcome: PaOutcome = 'OUT';
  private inBreak = false;
  private readonly weights: Record<Side, number[]>;
  /** Pitches of the plate appearance being played. */
  private pitchCount = 0;
  /** Position players who have pitched (their flag is credited once). */
  private readonly positionPitchers = new Set<number>();

  constructor(ctx: GameContext) {
    super(ctx);
    const away = ctx.away.roster[9];
    const home = ctx.home.roster[9];
    if (away && home) {
      this.record(
        `Starting pitchers: ${away.name} (${ctx.away.team.abbreviation}), ${home.name} (${ctx.home.team.abbreviation})`,
        null,
        [away, home],
        [this.credit('away', away, 'startingPitcher'), this.credit('home', home, 'startingPitcher')],
      );
    }
    const weightsFor = (side: Side) => {
      const m = (ctx.expected[side] / BASE_RUNS) ** 0.7;
      const hits = OUTCOMES.map(([o, p]) => (o === 'K' ? p : p * m));
      return [...hits, Math.max(0.2, 1 - hits.reduce((a, b) => a + b, 0))];
    };
    this.weights = { away: weightsFor('away'), home: weightsFor('home') };
  }

  private get batting(): Side {
    return this.half === 'top' ? 'away' : 'home';
  }

  private get fielding(): Side {
    return this.half === 'top' ? 'home' : 'away';
  }

  // A baseball lineup always fills its eleven slots (roster.ts throws otherwise).
  private batter(): Player {
    const roster = this.ctx[this.batting].roster;
    return roster[this.batterIndex[this.batting] % 9]!;
  }

  /** The starter through six, then the reliever; in a late blowout the losing side's second baseman. */
  private pitcher(): Player {
    const roster = this.ctx[this.fielding].roster;
    const behind =
      sum(this.fielding === 'away' ? this.home : this.away) - sum(this.fielding === 'away' ? this.away : this.home);
    if (this.inning >= 8 && behind >= 8) return roster[8]!;
    return roster[this.inning <= 6 ? 9 : 10]!;
  }

  protected step(): number {
    const { rng } = this.ctx;
    if (this.inBreak) {
      this.inBreak = false;
      this.startHalf();
      return rng.between(20, 40);
    }
    if (this.pitches.length === 0) {
      this.newPlateAppearance();
      return rng.between(12, 22);
    }
    const pitch = this.pitches.shift();
    this.pitchCount++;
    if (pitch === 'B') this.balls++;
    else if (pitch === 'S') this.strikes = Math.min(2, this.strikes + 1);
    if (this.pitches.length > 0) {
      this.bump();
      return rng.between(14, 26);
    }
    this.resolve();
    if (this.status === 'STATUS_FINAL') return 0;
    if (this.outs >= 3) return this.endHalf();
    return rng.between(8, 16);
  }

  private newPlateAppearance(): void {
    const { rng } = this.ctx;
    const i = rng.weighted(this.weights[this.batting]);
    this.outcome = OUTCOMES[i]?.[0] ?? 'OUT';
    this.balls = 0;
    this.strikes = 0;
    this.pitchCount = 0;
    const seq: ('B' | 'S' | 'X')[] = [];
    if (this.outcome === 'K') {
      // Strikes beyond the second before the last pitch stand for fouls.
      const balls = rng.int(0, 3);
      const strikes = 2 + rng.int(0, 3);
      for (let k = 0; k < balls; k++) seq.push('B');
      for (let k = 0; k < strikes; k++) seq.push('S');
      this.pitches = rng.shuffle(seq).concat(['S']);
    } else if (this.outcome === 'BB') {
      const strikes = rng.int(0, 2);
      for (let k = 0; k < strikes; k++) seq.push('S');
      for (let k = 0; k < 3; k++) seq.push('B');
      this.pitches = rng.shuffle(seq).concat(['B']);
    } else {
      const balls = rng.int(0, 3);
      const strikes = rng.int(0, 2);
      for (let k = 0; k < balls; k++) seq.push('B');
      for (let k = 0; k < strikes; k++) seq.push('S');
      this.pitches = rng.shuffle(seq).concat(['X']);
    }
    this.bump();
  }

  private score1(runs: number): void {
    if (runs <= 0) return;
    addPeriodPoints(this.batting === 'away' ? this.away : this.home, this.inning, runs);
  }

  /** Ends the plate appearance: outs, base runners and runs. */
  private resolve(): void {
    const { rng } = this.ctx;
    const batter = this.batter();
    const outsBefore = this.outs;
    const [first, second, third] = this.runners;
    let runs = 0;
    let text = '';
    switch (this.outcome) {
      case 'K':
        this.outs++;
        text = `${batter.name} strikes out`;
        break;
      case 'BB':
      case 'HBP': {
        const forced2 = first;
        const forced3 = first && second;
        if (forced3 && third) runs++;
        this.runners[2] = third || forced3;
        this.runners[1] = second || forced2;
        this.runners[0] = true;
        text = `${batter.name} ${this.outcome === 'BB' ? 'walks' : 'hit by pitch'}`;
        break;
      }
      case '1B': {
        const fromSecondScores = second && rng.chance(0.6);
        runs += (third ? 1 : 0) + (fromSecondScores ? 1 : 0);
        this.runners[2] = second && !fromSecondScores;
        this.runners[1] = first;
        this.runners[0] = true;
        text = `${batter.name} singles`;
        break;
      }
      case '2B': {
        const fromFirstScores = first && rng.chance(0.4);
        runs += (third ? 1 : 0) + (second ? 1 : 0) + (fromFirstScores ? 1 : 0);
        this.runners[2] = first && !fromFirstScores;
        this.runners[1] = true;
        this.runners[0] = false;
        text = `${batter.name} doubles`;
        break;
      }
      case '3B':
        runs += (first ? 1 : 0) + (second ? 1 : 0) + (third ? 1 : 0);
        this.runners[0] = false;
        this.runners[1] = false;
        this.runners[2] = true;
        text = `${batter.name} triples`;
        break;
      case 'HR':
        runs += 1 + (first ? 1 : 0) + (second ? 1 : 0) + (third ? 1 : 0);
        this.runners[0] = false;
        this.runners[1] = false;
        this.runners[2] = false;
        text = `${batter.name} homers`;
        break;
      default: {
        const doublePlay = first && this.outs < 2 && rng.chance(0.12);
        this.outs += doublePlay ? 2 : 1;
        if (doublePlay) this.runners[0] = false;
        if (this.outs < 3 && third && rng.chance(0.3)) {
          runs++;
          this.runners[2] = false;
          text = `${batter.name} sacrifice fly`;
        } else {
          text = doublePlay
            ? `${batter.name} grounds into a double play`
            : `${batter.name} ${rng.pick(['grounds out', 'flies out', 'lines out', 'pops out'])}`;
        }
      }
    }
    if (this.outs >= 3) runs = 0;
    this.score1(runs);
    this.recordPlateAppearance(batter, runs, outsBefore, text);
    this.batterIndex[this.batting]++;
    this.balls = 0;
    this.strikes = 0;
    this.bump();
    if (this.half === 'bottom' && this.inning >= 9 && sum(this.home) > sum(this.away)) this.finish();
  }

  /** The plate appearance as a play: the batter's line, the pitcher's, and the runs on the team. */
  private recordPlateAppearance(batter: Player, runs: number, outsBefore: number, text: string): void {
    const bat = this.batting;
    const field = this.fielding;
    const pitcher = this.pitcher();
    const o = this.outcome;
    const sacrifice = o === 'OUT' && text.endsWith('sacrifice fly');
    const hit = o === '1B' || o === '2B' || o === '3B' || o === 'HR';
    const credits = [
      this.credit(field, pitcher, 'battersFaced'),
      this.credit(field, pitcher, 'pitchesThrown', this.pitchCount),
    ];
    if (o !== 'BB' && o !== 'HBP' && !sacrifice) credits.push(this.credit(bat, batter, 'atBats'));
    if (hit) credits.push(this.credit(bat, batter, 'hits'));
    if (o === '2B') credits.push(this.credit(bat, batter, 'doubles'));
    if (o === '3B') credits.push(this.credit(bat, batter, 'triples'));
    if (o === 'HR') credits.push(this.credit(bat, batter, 'homeRuns'));
    if (o === 'BB') credits.push(this.credit(bat, batter, 'walks'));
    if (o === 'HBP') credits.push(this.credit(bat, batter, 'hitByPitch'));
    if (o === 'K') {
      credits.push(this.credit(bat, batter, 'strikeouts'), this.credit(field, pitcher, 'strikeoutsPitched'));
    }
    const outs = Math.min(3, this.outs) - outsBefore;
    if (outs > 0) credits.push(this.credit(field, pitcher, 'outsRecorded', outs));
    if (runs > 0) {
      credits.push(
        this.credit(bat, batter, 'runsBattedIn', runs),
        this.credit(bat, undefined, 'runs', runs),
        this.credit(field, pitcher, 'runsAllowed', runs),
      );
    }
    if (pitcher.position !== 'SP' && pitcher.position !== 'RP' && !this.positionPitchers.has(pitcher.id)) {
      this.positionPitchers.add(pitcher.id);
      credits.push(this.credit(field, pitcher, 'positionPlayerPitching'));
    }
    this.record(runs > 0 ? `${text}, ${runs} run${runs > 1 ? 's' : ''} score` : text, bat, [batter, pitcher], credits);
  }

  private endHalf(): number {
    const away = sum(this.away);
    const home = sum(this.home);
    const lastInning = this.inning >= 9;
    if (lastInning && ((this.half === 'top' && home > away) || (this.half === 'bottom' && home !== away))) {
      this.finish();
      return 0;
    }
    this.inBreak = true;
    this.bump();
    return this.ctx.rng.between(110, 150);
  }

  private startHalf(): void {
    if (this.half === 'top') {
      this.half = 'bottom';
      openPeriod(this.home, this.inning);
    } else {
      this.half = 'top';
      this.inning++;
      openPeriod(this.away, this.inning);
    }
    this.outs = 0;
    this.balls = 0;
    this.strikes = 0;
    // Extra innings start with a runner on second.
    const extra = this.inning >= 10;
    this.runners[0] = false;
    this.runners[1] = extra;
    this.runners[2] = false;
    this.pitches = [];
    this.bump();
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
      display_clock: displayClock('innings', 0, this.inning),
      game_period: this.inning,
      event_status_detail: statusDetail({
        scheme: 'innings',
        status: this.status,
        period: this.inning,
        clock: 0,
        periodOver: this.inBreak,
        half: this.half,
      }),
    };
  }

  liveState(): Record<string, unknown> {
    const batter = this.batter();
    const pitcher = this.pitcher();
    return {
      inning: this.inning,
      half: this.half,
      balls: this.balls,
      strikes: this.strikes,
      outs: this.outs,
      runners: { first: this.runners[0], second: this.runners[1], third: this.runners[2] },
      batter: { player_id: batter.id, name: batter.name },
      pitcher: { player_id: pitcher.id, name: pitcher.name },
      last_play: this.lastPlay,
    };
  }

  /** Share of each side's 27 regulation outs still to come (an extra inning counts as 1/9). */
  private outsLeft(side: Side): number {
    const own = side === this.batting;
    const innings = side === 'away' ? this.away.length : this.home.length;
    const done = (innings - (own ? 1 : 0)) * 3 + (own ? this.outs : 0);
    const left = Math.max(0, 27 - done);
    return left > 0 ? left / 27 : this.inning >= 9 ? (own ? (3 - this.outs) / 27 : 3 / 27) : 0;
  }

  remaining(): number {
    return this.status === 'STATUS_FINAL' ? 0 : (this.outsLeft('away') + this.outsLeft('home')) / 2;
  }

  outlook(segment: Segment): Outlook | undefined {
    if (segment !== 'game' || this.status === 'STATUS_FINAL') return undefined;
    const { expected } = this.ctx;
    const onBase = this.runners.filter(Boolean).length;
    const pressure = this.inBreak ? 0 : (0.4 * onBase * (3 - this.outs)) / 3;
    const lambda = (side: Side) => expected[side] * this.outsLeft(side) + (side === this.batting ? pressure : 0);
    return poissonOutlook(sum(this.home), sum(this.away), lambda('home'), lambda('away'), 0.52);
  }

  restore(score: Score, state: Record<string, unknown>, credited: CreditReader): void {
    // A position player who pitched before the restart keeps his one flag.
    for (const side of ['away', 'home'] as const) {
      for (const p of this.ctx[side].roster)
        if (credited(p, 'positionPlayerPitching') > 0) this.positionPitchers.add(p.id);
    }
    copyInto(this.away, score.score_away_by_period.length > 0 ? score.score_away_by_period : [0]);
    copyInto(this.home, score.score_home_by_period);
    this.inning = Math.max(1, num(state.inning, score.game_period));
    this.half = state.half === 'bottom' ? 'bottom' : 'top';
    this.outs = Math.min(2, num(state.outs, 0));
    const runners = (state.runners ?? {}) as Record<string, unknown>;
    this.runners[0] = runners.first === true;
    this.runners[1] = runners.second === true;
    this.runners[2] = runners.third === true;
    const batterId = num((state.batter as Record<string, unknown> | undefined)?.player_id, 0);
    const index = this.ctx[this.batting].roster.findIndex((p) => p.id === batterId);
    if (index >= 0) this.batterIndex[this.batting] = index;
    this.lastPlay = typeof state.last_play === 'string' ? state.last_play : '';
    this.inBreak = score.event_status_detail.startsWith('Mid') || score.event_status_detail.startsWith('End');
    if (this.inBreak) this.wait = 60;
  }
}
