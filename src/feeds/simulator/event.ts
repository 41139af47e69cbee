import { statByName } from '../../catalog/stats.ts';
import { PRESEASON_SPORT_IDS } from '../../domain/score.ts';
import type { EventInfo, Score } from '../../domain/types.ts';
import type { Update } from '../../ledger/updates.ts';
import type { FeedStateReader } from '../../board/feed-state.ts';
import type { Engine, GameContext, ScoreCore } from './game.ts';
import { resumeGame, startGame } from './game.ts';
import { numericId } from './ids.ts';
import type { Expectation, Outlook, SportParams } from './model.ts';
import { expectation, snapLine, sportParams, teamRatings } from './model.ts';
import type { Offer } from './offers.ts';
import { liveOffers, prematchOffers } from './offers.ts';
import type { Book, Extras, ParticipantRef } from './pricing.ts';
import { DRAW, eventBooks, formatLine, OVER, PriceBook, quoteOffer, UNDER } from './pricing.ts';
import type { PropPlayer } from './props.ts';
import { PROP_MARKETS, propPlayers, quoteProps } from './props.ts';
import { hashUnit, Rng } from './rng.ts';
import type { GameResult } from './futures.ts';
import { lineup, roster } from './roster.ts';
import type { EventSpec } from './schedule.ts';
import { broadcastFor, DAY_MS, displayName } from './schedule.ts';

/** What every event of one simulator shares. */
export interface SimContext {
  seed: number;
  speed: number;
  state: FeedStateReader;
  emit: (u: Update) => void;
  /** True while history is filled: coarser repricing keeps the history within budget. */
  backfilling: boolean;
  /** Wall time (ms) from which live game clocks run `speed` times faster; history plays at real time. */
  speedFrom: number;
  /** Told of every game that ends: futures boards move on results. */
  onResult: (result: GameResult) => void;
}

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
/** Events further out than this carry the core markets from a few books only. */
const NEAR_MS = 2 * DAY_MS;

/**
 * Cadence in wall ms. Live games reprice at most every `min` and at least every `max`, props every
 * `props`, a live main line moves at most every `line` (divided by the speed), and the score (clock)
 * is resent every `score`. Prematch books look at an event every `drift` (a range). History is
 * coarser, so that the history fill stays within its budget.
 */
interface Cadence {
  min: number;
  max: number;
  props: number;
  line: number;
  score: number;
  drift: readonly [number, number];
}
const LIVE_CADENCE: Cadence = {
  min: 2_000,
  max: 15_000,
  props: 30_000,
  line: 150_000,
  score: 10_000,
  drift: [40 * MINUTE, 120 * MINUTE],
};
const BACKFILL_CADENCE: Cadence = {
  min: 15 * MINUTE,
  max: 40 * MINUTE,
  props: 40 * MINUTE,
  line: 20 * MINUTE,
  score: 0,
  drift: [240 * MINUTE, 480 * MINUTE],
};

/**
 * Between the drifts, prematch books keep nudging their prices: one market of one of an event's
 * books moves a little every `NUDGE_MS` of wall time on average (live only; history keeps the
 * coarse drift), so that a board of some 700 prematch events changes 10-20 prices every second. At
 * one nudge in `REBALANCE` the book also re-centres that main line on even money.
 */
const NUDGE_MS = 75_000;
const REBALANCE = 8;

/** Liquidity on the contract exchange: order-book depth in USD by kind of market. */
const DEPTH = { core: 24_000, other: 6_000 };

type Phase = 'scheduled' | 'live' | 'done';

/**
 * One event through its life: created with prematch prices, drifting until the start, played by
 * its engine with live prices, closed at the final (or postponed / canceled before the start).
 */
export class SimEvent {
  phase: Phase = 'scheduled';
  /** The event does nothing before this time (creation time, or where a restart picks it up). */
  activeFrom = 0;
  private created = false;
  private far = true;
  /** The event just came within two days: every book prices the full set of markets. */
  private expand = false;
  private shift = 0;
  private nextDrift = 0;
  /** 0 until the simulator goes live: the nudge clocks start then, not all at once. */
  private nextNudge = 0;
  private fateAt = 0;
  private engine?: Engine;
  private prematch?: Engine;
  private prematchShift = 0;
  private lastAdvance = 0;
  private lastReprice = 0;
  private lastProps = 0;
  private lastScore = 0;
  private lastVersion = -1;
  private adoptPending = false;
  private readonly books: Book[];
  private readonly prices: PriceBook;
  private readonly params: SportParams;
  private readonly rng: Rng;
  private readonly away: ParticipantRef;
  private readonly home: ParticipantRef;
  private readonly players: PropPlayer[] = [];
  private readonly sourceIds = new Map<string, string>();

  constructor(
    private readonly ctx: SimContext,
    readonly spec: EventSpec,
  ) {
    this.books = eventBooks(ctx.seed, spec.id, spec.sport.discipline);
    this.prices = new PriceBook(spec.id, ctx.state, ctx.emit);
    this.params = sportParams(spec.sport.sport_id);
    this.rng = Rng.of(ctx.seed, 'event', spec.id);
    this.away = { id: spec.away.team_id, type: 'TYPE_TEAM', name: displayName(spec.away) };
    this.home = { id: spec.home.team_id, type: 'TYPE_TEAM', name: displayName(spec.home) };
    if (spec.sport.discipline === 'basketball') {
      const expected = this.expected();
      this.players.push(
        ...propPlayers(roster(ctx.seed, spec.away, 'basketball'), expected.away),
        ...propPlayers(roster(ctx.seed, spec.home, 'basketball'), expected.home),
      );
    }
  }

  /** A new event: created at `createAt`, with postponement and drift times drawn. */
  plan(createAt: number): void {
    const start = this.spec.startMs;
    this.activeFrom = Math.min(createAt, start - 30 * MINUTE);
    this.fateAt = Math.max(this.activeFrom + 10 * MINUTE, start - this.rng.between(1, 20) * HOUR);
  }

  /**
   * Picks up a committed event after a restart. Returns false when there is nothing left to do
   * (final, postponed or canceled).
   */
  resume(info: EventInfo, nowMs: number): boolean {
    const score = info.score;
    this.created = true;
    this.adoptPending = true;
    if (!score || score.event_status === 'STATUS_SCHEDULED') {
      // The same first draw as in plan(): a postponement keeps its time across restarts.
      this.fateAt = this.spec.startMs - this.rng.between(1, 20) * HOUR;
      this.activeFrom = Math.min(nowMs, this.spec.startMs);
      this.far = this.spec.startMs - this.activeFrom > NEAR_MS;
      this.expand = true;
      this.nextDrift = this.activeFrom + this.rng.between(5, 60) * MINUTE;
      return true;
    }
    if (score.event_status !== 'STATUS_IN_PROGRESS' && score.event_status !== 'STATUS_HALFTIME') return false;
    this.phase = 'live';
    const sportId = this.spec.sport.sport_id;
    this.engine = resumeGame(
      this.spec.sport.discipline,
      this.gameContext('game'),
      score,
      info.live_game_state,
      (player, stat) => {
        const id = statByName(sportId, stat)?.id;
        return id === undefined ? 0 : this.ctx.state.playerStat(info.event_id, player.id, id);
      },
    );
    const at = Date.parse(score.updated_at);
    this.activeFrom = Number.isFinite(at) ? Math.min(at, nowMs) : nowMs;
    this.lastAdvance = this.activeFrom;
    this.lastVersion = this.engine.version;
    return true;
  }

  private expected(): Expectation {
    const { spec, ctx } = this;
    return expectation(
      this.params,
      teamRatings(ctx.seed, spec.home.team_id),
      teamRatings(ctx.seed, spec.away.team_id),
      spec.neutral,
      this.shift,
    );
  }

  private gameContext(salt: string): GameContext {
    const { spec, ctx } = this;
    const kind = spec.sport.discipline;
    const players = (team: EventSpec['away']) => lineup(ctx.seed, team, kind);
    return {
      sportId: spec.sport.sport_id,
      params: this.params,
      expected: this.expected(),
      rng: Rng.of(ctx.seed, salt, spec.id),
      who: Rng.of(ctx.seed, salt, 'who', spec.id),
      away: { team: spec.away, roster: players(spec.away) },
      home: { team: spec.home, roster: players(spec.home) },
      postseason: spec.sport.season_type === 'Postseason',
      mainEvent: spec.mainEvent,
    };
  }

  /** Moves the event to time `t` (ms), emitting what changed. */
  tick(t: number): void {
    if (t < this.activeFrom || this.phase === 'done') return;
    if (!this.created) this.create(t);
    if (this.phase === 'scheduled') this.tickScheduled(t);
    if (this.phase === 'live') this.tickLive(t);
  }

  private create(t: number): void {
    this.created = true;
    this.ctx.emit({ kind: 'event', event: this.spec.header });
    this.far = this.spec.startMs - t > NEAR_MS;
    this.nextDrift = t;
  }

  private tickScheduled(t: number): void {
    const { spec } = this;
    if (spec.fate !== 'play' && t >= this.fateAt) {
      this.adopt();
      this.prices.close(() => true);
      this.sendScore(t, this.emptyScore(spec.fate === 'postponed' ? 'STATUS_POSTPONED' : 'STATUS_CANCELED'), null);
      this.phase = 'done';
      return;
    }
    if (t >= spec.startMs) {
      this.startPlay(t);
      return;
    }
    const near = spec.startMs - t <= NEAR_MS;
    if (this.far && near) {
      this.far = false;
      this.expand = true;
      this.nextDrift = t;
    }
    if (t >= this.nextDrift) this.drift(t);
    if (!this.ctx.backfilling && t >= this.nextNudge) this.nudge(t);
  }

  /**
   * One book moves one market a little. Its opinion is mean-reverting, so that it wanders around
   * the book's view instead of running away.
   */
  private nudge(t: number): void {
    const { rng } = this;
    const first = this.nextNudge === 0;
    this.nextNudge = t - Math.log(1 - rng.next()) * NUDGE_MS;
    if (first) return;
    const book = rng.pick(this.far ? this.books.filter((b) => b.far) : this.books);
    const offers = prematchOffers(this.spec.sport, this.far).filter((o) => book.groups.has(o.group));
    const offer = rng.pick(offers);
    // x -> 0.8 x + 0.36 s e keeps the spread of x at 0.6 s, as a drift draws it.
    const step = 0.36 * book.profile.noise * rng.normal();
    if (offer.kind === 'total') book.totalNoise = 0.8 * book.totalNoise + step;
    else book.sideNoise = 0.8 * book.sideNoise + step;
    this.prematch ??= this.prematchEngine();
    const outlook = this.prematch.outlook(offer.segment);
    this.adopt();
    if (outlook) this.quote(book, offer, outlook, false, t, rng.chance(1 / REBALANCE));
  }

  /**
   * Between creation and the start: news moves the fair line now and then, and at each look one
   * or two books revise their opinion (books move at different times, not in lockstep). Also
   * starts and ends off-board episodes.
   */
  private drift(t: number): void {
    const { rng } = this;
    const cadence = this.cadence();
    let books: Book[];
    if (!this.prematch || this.expand) {
      this.expand = false;
      books = this.books;
    } else {
      if (rng.chance(0.35)) this.shift += rng.normal() * (this.far ? 0.05 : 0.1);
      books = [rng.pick(this.books)];
      if (rng.chance(0.4)) books.push(rng.pick(this.books));
      for (const book of books) {
        book.sideNoise = rng.normal() * book.profile.noise * 0.6;
        book.totalNoise = rng.normal() * book.profile.noise * 0.6;
      }
    }
    if (!this.prematch || this.prematchShift !== this.shift) this.prematch = this.prematchEngine();
    const [lo, hi] = cadence.drift;
    let next = t + rng.between(lo, hi) * (this.far ? 4 : 1);
    for (const book of this.books) {
      for (const [marketId, until] of book.offUntil) {
        if (until > t) next = Math.min(next, until);
        else {
          book.offUntil.delete(marketId);
          if (!books.includes(book)) books.push(book);
        }
      }
    }
    if (!this.far && rng.chance(0.12)) {
      const book = rng.pick(this.books);
      const offers = prematchOffers(this.spec.sport, false).filter((o) => book.groups.has(o.group));
      if (offers.length > 0) {
        const until = t + rng.between(20, 90) * MINUTE;
        book.offUntil.set(rng.pick(offers).marketId, until);
        next = Math.min(next, until);
        if (!books.includes(book)) books.push(book);
      }
    }
    this.nextDrift = Math.min(next, this.spec.startMs);
    this.repricePrematch(t, books);
  }

  /** A game at its start, whose outlooks are the prematch fair prices. */
  private prematchEngine(): Engine {
    this.prematchShift = this.shift;
    return startGame(this.spec.sport.discipline, { ...this.gameContext('prematch'), rng: new Rng(1) });
  }

  private cadence(): Cadence {
    return this.ctx.backfilling ? BACKFILL_CADENCE : LIVE_CADENCE;
  }

  private repricePrematch(t: number, books: readonly Book[]): void {
    const engine = this.prematch;
    if (!engine) return;
    this.adopt();
    const offers = prematchOffers(this.spec.sport, this.far);
    for (const offer of offers) {
      const outlook = engine.outlook(offer.segment);
      if (!outlook) continue;
      for (const book of books) {
        if ((this.far && !book.far) || !book.groups.has(offer.group)) continue;
        this.quote(book, offer, outlook, false, t);
      }
    }
    if (this.far) return;
    for (const book of books) {
      if (book.props)
        quoteProps({ book, prices: this.prices, players: this.players, remaining: 1, live: false, nowMs: t });
    }
  }

  private quote(book: Book, offer: Offer, outlook: Outlook, live: boolean, t: number, rebalance = false): void {
    quoteOffer({
      book,
      offer,
      outlook,
      params: this.params,
      away: this.away,
      home: this.home,
      prices: this.prices,
      live,
      rebalance,
      nowMs: t,
      // In game time, so that sped-up live lines move as fast as the score does.
      liveLineGapMs: this.cadence().line / (this.ctx.backfilling ? 1 : this.ctx.speed),
      extras: this.extras,
    });
  }

  /** Liquidity on the contract exchange (25) and the prediction market's price ids (26). */
  private readonly extras: Extras = (book, offer, participant, line, implied) => {
    const id = book.profile.affiliate_id;
    if (id === 25) {
      const depth = offer.group === 'core' ? DEPTH.core : DEPTH.other;
      const roll = hashUnit(this.ctx.seed, 'depth', this.spec.id, offer.marketId, line, Math.round(implied * 100));
      return { liquidity: Math.round(depth * (0.3 + implied) * (0.5 + roll)) };
    }
    if (id !== 26) return {};
    const key = `${offer.marketId}:${offer.periodId}:${participant.type}:${participant.id}:${line}`;
    let source = this.sourceIds.get(key);
    if (!source) {
      const { seed } = this.ctx;
      const question = Math.abs(Number(line) || 0);
      const token = numericId(20, seed, 'token', this.spec.id, key);
      const market = numericId(7, seed, 'market', this.spec.id, offer.marketId, offer.periodId, question);
      source = `${token}:${market}:${this.spec.slug}`;
      this.sourceIds.set(key, source);
    }
    return { source };
  };

  private startPlay(t: number): void {
    this.adopt();
    // First-half markets keep their ids in play, at the books that price the game live.
    const live = new Set(liveOffers(this.spec.sport).map((o) => o.marketId));
    const liveBooks = new Set(this.books.filter((b) => b.live).map((b) => b.profile.affiliate_id));
    this.prices.close((marketId, affiliateId) => !live.has(marketId) || !liveBooks.has(affiliateId));
    this.engine = startGame(this.spec.sport.discipline, this.gameContext('game'));
    this.phase = 'live';
    this.lastAdvance = this.spec.startMs;
    this.sendPlays(this.engine);
    this.sendScore(t, this.engine.score(), this.engine.liveState());
    this.lastVersion = this.engine.version;
  }

  private tickLive(t: number): void {
    const engine = this.engine;
    if (!engine) return;
    // Game time: real time in history, `speed` times the wall time once the simulator is live.
    const { speed, speedFrom } = this.ctx;
    const fast = Math.max(0, t - Math.max(this.lastAdvance, speedFrom));
    engine.advance((t - this.lastAdvance + fast * (speed - 1)) / 1000);
    this.lastAdvance = t;
    this.adopt();
    // Plays go before the score in the batch: the score and live state they lead to follow them.
    this.sendPlays(engine);
    if (engine.status === 'STATUS_FINAL') {
      this.finish(t, engine);
      return;
    }
    const cadence = this.cadence();
    const changed = engine.version !== this.lastVersion;
    if (changed || (cadence.score > 0 && t - this.lastScore >= cadence.score)) {
      this.sendScore(t, engine.score(), engine.liveState());
    }
    if ((changed && t - this.lastReprice >= cadence.min) || t - this.lastReprice >= cadence.max) {
      this.lastVersion = engine.version;
      this.repriceLive(t, engine, t - this.lastProps >= cadence.props);
    }
  }

  private repriceLive(t: number, engine: Engine, props: boolean): void {
    const { rng } = this;
    this.lastReprice = t;
    const liveBooks = this.books.filter((b) => b.live);
    for (const book of liveBooks) {
      if (rng.chance(0.15)) book.sideNoise = rng.normal() * book.profile.noise * 0.5;
      // Books suspend a market for a moment now and then (a goal, a review).
      if (rng.chance(0.004)) book.offUntil.set(41, t + rng.between(30, 120) * 1000);
    }
    for (const offer of liveOffers(this.spec.sport)) {
      const outlook = engine.outlook(offer.segment);
      if (!outlook) {
        this.prices.close((id) => id === offer.marketId);
        continue;
      }
      for (const book of liveBooks) if (book.groups.has(offer.group)) this.quote(book, offer, outlook, true, t);
    }
    if (props && this.players.length > 0 && engine.playerStats) {
      this.lastProps = t;
      const stats = engine.playerStats();
      const remaining = engine.remaining();
      for (const book of liveBooks) {
        if (book.props)
          quoteProps({
            book,
            prices: this.prices,
            players: this.players,
            stats,
            remaining,
            live: true,
            nowMs: t,
          });
      }
    }
  }

  private finish(t: number, engine: Engine): void {
    const core = engine.score();
    // Some preseason finals come without period scores (spec: score rule 5).
    if (PRESEASON_SPORT_IDS.has(this.spec.sport.sport_id) && hashUnit(this.ctx.seed, 'pre', this.spec.id) < 0.3) {
      core.score_away_by_period = [];
      core.score_home_by_period = [];
    }
    this.sendScore(t, core, null);
    this.prices.close(() => true);
    this.phase = 'done';
    const { spec } = this;
    this.ctx.onResult({
      sportId: spec.sport.sport_id,
      startMs: spec.startMs,
      awayId: spec.away.team_id,
      homeId: spec.home.team_id,
      winner: core.score_away > core.score_home ? 'away' : core.score_home > core.score_away ? 'home' : 'draw',
    });
  }

  private sendPlays(engine: Engine): void {
    for (const play of engine.takePlays()) this.ctx.emit({ kind: 'play', event_id: this.spec.id, play });
  }

  private emptyScore(status: Score['event_status']): ScoreCore {
    return {
      event_status: status,
      score_away: 0,
      score_home: 0,
      winner_away: 0,
      winner_home: 0,
      score_away_by_period: [],
      score_home_by_period: [],
      game_clock: 0,
      display_clock: '0:00',
      game_period: 0,
      event_status_detail: status === 'STATUS_POSTPONED' ? 'Postponed' : 'Canceled',
    };
  }

  private sendScore(t: number, core: ScoreCore, live: Record<string, unknown> | null): void {
    const { spec } = this;
    const venue = spec.neutral && spec.sport.discipline !== 'soccer' ? undefined : spec.home;
    const score: Score = {
      event_id: spec.id,
      event_status: core.event_status,
      score_away: core.score_away,
      score_home: core.score_home,
      winner_away: core.winner_away,
      winner_home: core.winner_home,
      score_away_by_period: core.score_away_by_period,
      score_home_by_period: core.score_home_by_period,
      venue_name: venue?.venue_name ?? '',
      venue_location: venue?.venue_location ?? '',
      game_clock: core.game_clock,
      display_clock: core.display_clock,
      game_period: core.game_period,
      broadcast: broadcastFor(this.ctx.seed, spec),
      event_status_detail: core.event_status_detail,
      updated_at: new Date(t).toISOString(),
    };
    this.ctx.emit({ kind: 'score', event_id: spec.id, score, live_game_state: live });
    this.lastScore = t;
  }

  /**
   * After a restart, takes the committed open lines of this event into the price cache (and the
   * books' main lines from them), so that they are moved or closed instead of left behind.
   */
  private adopt(): void {
    if (!this.adoptPending) return;
    this.adoptPending = false;
    const live = this.phase === 'live';
    const engine = (live ? this.engine : undefined) ?? this.prematchEngine();
    const step = this.params.lineStep;
    for (const offer of live ? liveOffers(this.spec.sport) : prematchOffers(this.spec.sport, false)) {
      const outlook = engine.outlook(offer.segment);
      if (!outlook) continue;
      const spread = offer.kind === 'spread';
      const centre = snapLine(spread ? -outlook.margin : outlook.total, step);
      const reach = live ? 20 : 8;
      const values = Array.from({ length: 2 * reach + 1 }, (_, k) => centre + (k - reach) * step);
      const positive = values.filter((v) => v > 0).map(formatLine);
      const home = spread ? values.map(formatLine) : positive;
      const away = spread ? values.map((v) => formatLine(-v)) : positive;
      for (const book of this.books) {
        if (!book.groups.has(offer.group)) continue;
        const take = (p: ParticipantRef, lines: readonly string[]) =>
          this.prices.adopt(offer.marketId, offer.periodId, p, book.profile.affiliate_id, lines);
        if (offer.kind === 'ml' || offer.kind === 'ml3') {
          for (const p of offer.kind === 'ml3' ? [this.away, DRAW, this.home] : [this.away, this.home]) {
            take(p, ['']);
          }
          continue;
        }
        const main = take(spread ? this.home : OVER, home);
        take(spread ? this.away : UNDER, away);
        if (main !== undefined) book.mains.set(`${offer.marketId}:${offer.periodId}`, Number(main));
      }
    }
    this.adoptProps(live);
  }

  private adoptProps(live: boolean): void {
    const books = this.books.filter((b) => b.props);
    if (books.length === 0) return;
    for (const pp of this.players) {
      // A player's candidate lines are the same for every book and market: made once per player.
      const centre = Math.round(pp.mean.points + pp.mean.rebounds + pp.mean.assists);
      const values = Array.from({ length: centre + 15 }, (_, k) => k + 0.5);
      const lines = values.flatMap((v) => [`Over ${v}`, `Under ${v}`]);
      for (const book of books) {
        for (const market of PROP_MARKETS) {
          const marketId = live ? market.live : market.prematch;
          const main = this.prices.adopt(marketId, 0, pp.ref, book.profile.affiliate_id, lines);
          if (main !== undefined) book.mains.set(`${marketId}:${pp.player.id}`, Number(main.slice(5)));
        }
      }
    }
  }
}
