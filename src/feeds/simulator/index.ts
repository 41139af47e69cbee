import { setImmediate as loopTurn } from 'node:timers/promises';
import { BackgroundTurns } from './background-turns.ts';
import type { SportProfile } from '../../catalog/sports.ts';
import { SPORTS } from '../../catalog/sports.ts';
import type { LedgerSink, Update } from '../../ledger/updates.ts';
import type { FeedStateReader } from '../../board/feed-state.ts';
import type { Feed } from '../feed.ts';
import type { SimContext } from './event.ts';
import { SimEvent } from './event.ts';
import { FuturesSim } from './futures.ts';
import { FUTURES_SPORTS } from './futures-calendar.ts';
import { coveringBooks } from './pricing.ts';
import { hashUnit } from './rng.ts';
import { DAY_MS, daySchedule, leadMs } from './schedule.ts';

export interface SimulatorOptions {
  /** Same seed, same teams, strengths, schedule and event ids. */
  seed: number;
  /** Live game clocks run this many times faster than real time (1 = real time); history plays at 1. */
  speed: number;
  /** The only way the simulator writes. */
  sink: LedgerSink;
  /** Committed state, to resume after a restart. */
  state: FeedStateReader;
  /** ms clock, Date.now by default (tests inject one). */
  now?: () => number;
  /** Live tick period in ms, 1000 by default. */
  tickMs?: number;
  log?: (msg: string) => void;
  /** Sport ids to simulate; every sport id of the catalog by default. */
  sportIds?: readonly number[];
  /**
   * `past`: this simulator only fills the games a split first fill left to the background
   * (`fillPast`); it writes no futures and never runs live. `live` (the default): everything else.
   */
  part?: 'live' | 'past';
}

/**
 * Where a first history fill stands: the UTC day (days since the epoch) its window is centred on,
 * its first step's time and the time of its last whole step. Kept by the caller, in the store,
 * with the steps it describes.
 */
export interface FillPosition {
  today: number;
  from: number;
  doneTo: number;
  /** Set when the fill is split (`pastSplit`): the games that start before it are not in this fill. */
  split?: number;
}

/**
 * Where the background part of a split first fill stands: its window's day and split, and once
 * begun its first step's time and the time of its last whole step.
 */
export interface PastFillPosition {
  today: number;
  split: number;
  from?: number;
  doneTo?: number;
}

export interface BackfillOptions {
  /** Stops the fill between two steps. */
  signal?: AbortSignal;
  /** A first fill that was stopped: it goes on from there. */
  resume?: FillPosition;
  /**
   * Games that start before this time are left out: a first fill then leaves them to `fillPast`,
   * and a later start (`resume`, or a restart while that part runs) must pass the same split.
   */
  split?: number;
  /** Told once a first fill has planned its window, before its first step. */
  onStart?: (position: FillPosition) => Promise<void>;
  /** Told after each whole step of a first fill. */
  onStep?: (position: FillPosition) => Promise<void>;
}

/** The window of UTC days that holds events: three days back to seven days ahead. */
const DAYS_BACK = 3;
const DAYS_AHEAD = 7;
/** History starts half a day before the first day of the window, so its games have prematch prices. */
const HISTORY_LEAD_MS = 12 * 3_600_000;
/** Step of the history fill. */
const BACKFILL_STEP_MS = 60_000;
/**
 * A split first fill leaves to the background the games that started this long before it at
 * least: the longest game simulated lasts under 4 hours, so each of them has ended by then and
 * the two parts never play the same game.
 */
const PAST_MS = 6 * 3_600_000;

/**
 * Where a first fill at `now` splits (`BackfillOptions.split`): today's games (UTC) and every
 * later one are filled before the server serves, the games that started before today, and at
 * least `PAST_MS` before now, in the background after (`Simulator.fillPast`).
 */
export function pastSplit(now: number): number {
  return Math.min(Math.floor(now / DAY_MS) * DAY_MS, now - PAST_MS);
}
/** Longest run of the history fill without giving the event loop a turn. */
const FILL_SLICE_MS = 50;
/** Largest batch handed to the ledger in one call. */
const MAX_BATCH = 2_000;
/**
 * Largest batch of a live step. A batch is planned, committed, applied and fanned out to the streams
 * in one go, every request that arrives meanwhile waiting: with 24 stream clients, REST requests
 * waited up to 58-226 ms behind batches of 2,000 and 32-84 ms behind batches of 500
 * (bench/stream-burst.ts --batch). The history fill, which nobody waits on, keeps the larger batches.
 */
const LIVE_BATCH = 500;
/**
 * Longest run of a live step without giving the event loop a turn. A step ticks every active event
 * (thousands): done in one go it held the loop for 100-200 ms under load, and every request that
 * arrived meanwhile waited that long (docs/benchmarks.md, "What held the loop under the filters load").
 */
const LIVE_SLICE_MS = 4;

/**
 * The built-in live data feed: a schedule of games for every sport id, books that price them,
 * and game engines that play them, written to the ledger as update batches.
 */
export class Simulator implements Feed {
  private readonly ctx: SimContext;
  private readonly now: () => number;
  private readonly tickMs: number;
  private readonly log: (msg: string) => void;
  private readonly sports: readonly SportProfile[];
  /** Absent in the past part, which writes no futures. */
  private readonly futures: FuturesSim | undefined;
  private readonly part: 'live' | 'past';
  /** Games that start before it belong to the past part (`BackfillOptions.split`); unset, all are live. */
  private split: number | undefined;
  private events: SimEvent[] = [];
  private readonly known = new Set<string>();
  private pending: Update[] = [];
  /** Last UTC day whose events exist. */
  private lastDay = Number.NEGATIVE_INFINITY;
  private lastStep = 0;
  private timer?: NodeJS.Timeout;
  private running: Promise<void> | undefined;

  constructor(private readonly opts: SimulatorOptions) {
    this.now = opts.now ?? Date.now;
    this.tickMs = opts.tickMs ?? 1000;
    this.log = opts.log ?? (() => {});
    this.part = opts.part ?? 'live';
    const wanted = opts.sportIds ? new Set(opts.sportIds) : undefined;
    this.sports = SPORTS.filter((s) => !wanted || wanted.has(s.sport_id));
    this.ctx = {
      seed: opts.seed,
      speed: opts.speed,
      state: opts.state,
      emit: (u) => {
        this.pending.push(u);
      },
      backfilling: false,
      speedFrom: Number.POSITIVE_INFINITY,
      onResult: (result) => this.futures?.onResult(result),
    };
    this.futures =
      this.part === 'past'
        ? undefined
        : new FuturesSim(
            opts.seed,
            opts.state,
            this.ctx.emit,
            FUTURES_SPORTS.filter((s) => !wanted || wanted.has(s.sport_id)),
          );
  }

  /**
   * Fills history up to now. On an empty store: creates the events of the window and plays the
   * past forward in chronological steps, with past batch times. On a store that holds events: only
   * picks them up (games continue from their committed state) and creates the missing days. With
   * `resume` (a first fill that was stopped), goes on with that fill where it stopped: the same
   * window, the same events planned the same way, the same step times. With a split (`opts.split`,
   * or the one `resume` was made with), the games that start before it are left out. Resolves false
   * when `signal` stopped it (between two steps, so what is committed is whole steps).
   */
  async backfill(onProgress?: (done: number, total: number) => void, opts: BackfillOptions = {}): Promise<boolean> {
    if (this.part === 'past') throw new Error('the past part of a fill is filled by fillPast');
    const now = this.now();
    const committed = new Set(this.opts.state.eventIds());
    const { resume } = opts;
    this.split = opts.split ?? resume?.split;
    const { split } = this;
    const fresh = committed.size === 0 || resume !== undefined;
    const today = resume?.today ?? Math.floor(now / DAY_MS);
    const historyStart = (today - DAYS_BACK) * DAY_MS - HISTORY_LEAD_MS;
    // Committed events of a stopped fill go on from its last whole step, not from now.
    const pickUpAt = resume ? resume.doneTo : now;
    this.ctx.backfilling = true;
    for (let day = today - DAYS_BACK; day <= today + DAYS_AHEAD; day++) {
      for (const ev of this.dayEvents(day)) {
        const info = committed.has(ev.spec.id) ? this.opts.state.event(ev.spec.id) : undefined;
        if (info) {
          if (!ev.resume(info, pickUpAt)) continue;
        } else {
          ev.plan(this.createTime(ev, fresh ? historyStart : now));
        }
        this.events.push(ev);
      }
    }
    this.lastDay = today + DAYS_AHEAD;
    const from = resume?.from ?? this.events.reduce((min, ev) => Math.min(min, ev.activeFrom), now);
    const first = resume ? resume.doneTo + BACKFILL_STEP_MS : from;
    if (fresh && !resume) await opts.onStart?.({ today, from, doneTo: from - BACKFILL_STEP_MS, split });
    const total = Math.max(1, Math.ceil((now - from) / BACKFILL_STEP_MS));
    let done = Math.round((first - from) / BACKFILL_STEP_MS);
    let sliceEnd = performance.now() + FILL_SLICE_MS;
    for (let t = first; t < now; t += BACKFILL_STEP_MS) {
      // The store's commits are synchronous: without a turn of the loop now and then, the starting
      // listener's probes and a signal would wait for the whole fill.
      if (performance.now() >= sliceEnd) {
        await loopTurn();
        sliceEnd = performance.now() + FILL_SLICE_MS;
      }
      if (opts.signal?.aborted) return false;
      await this.advance(t);
      if (fresh) await opts.onStep?.({ today, from, doneTo: t, split });
      done++;
      if (onProgress && done % 60 === 0) onProgress(done, total);
    }
    this.ctx.backfilling = false;
    // History plays at real time; live clocks run at the chosen speed from here on: from the end of
    // the fill, not its start, or a slow fill's own duration would play sped up in the first step.
    this.ctx.speedFrom = Math.max(now, this.now());
    await this.advance(now);
    this.lastStep = now;
    onProgress?.(total, total);
    this.log(`simulator: ${this.events.length} events active, ${fresh ? 'history filled' : 'resumed'}`);
    return true;
  }

  /**
   * Fills the games a split first fill left out (a simulator of the `past` part only): from
   * history's start to `PAST_MS` after the split, by which time each of them has ended, in the
   * steps of `backfill`. The server serves meanwhile, so this fill gives the loop a turn every few
   * ms and commits in a live step's batches; its rows take ids after those already handed out,
   * like any other commit. With `position.from` (a part begun before a restart), goes on from its
   * last whole step, the games committed so far picking up from there. Resolves false when `signal`
   * stopped it (between two steps).
   */
  async fillPast(
    position: PastFillPosition,
    onProgress?: (done: number, total: number) => void,
    opts: { signal?: AbortSignal; onStep?: (position: PastFillPosition) => Promise<void> } = {},
  ): Promise<boolean> {
    if (this.part !== 'past') throw new Error('fillPast needs a simulator of the past part');
    const { today, split } = position;
    this.split = split;
    const end = split + PAST_MS;
    const historyStart = (today - DAYS_BACK) * DAY_MS - HISTORY_LEAD_MS;
    const committed = new Set(this.opts.state.eventIds());
    this.ctx.backfilling = true;
    for (let day = today - DAYS_BACK; day <= today; day++) {
      for (const ev of this.dayEvents(day)) {
        const info = committed.has(ev.spec.id) ? this.opts.state.event(ev.spec.id) : undefined;
        if (info) {
          if (!ev.resume(info, position.doneTo ?? historyStart)) continue;
        } else {
          ev.plan(this.createTime(ev, historyStart));
        }
        this.events.push(ev);
      }
    }
    this.lastDay = today;
    const from = position.from ?? this.events.reduce((min, ev) => Math.min(min, ev.activeFrom), end);
    const first = position.doneTo === undefined ? from : position.doneTo + BACKFILL_STEP_MS;
    const total = Math.max(1, Math.ceil((end - from) / BACKFILL_STEP_MS));
    let done = Math.round((first - from) / BACKFILL_STEP_MS);
    let sliceEnd = performance.now() + LIVE_SLICE_MS;
    // Every turn of this fill, in its steps too, leaves a busy loop most of its time.
    const turns = new BackgroundTurns();
    for (let t = first; t < end; t += BACKFILL_STEP_MS) {
      // Steps of a few games take well under a slice: the turn is given across steps too.
      if (performance.now() >= sliceEnd) {
        await turns.turn();
        sliceEnd = performance.now() + LIVE_SLICE_MS;
      }
      if (opts.signal?.aborted) return false;
      await this.advance(t, LIVE_SLICE_MS, turns.turn);
      await opts.onStep?.({ today, split, from, doneTo: t });
      done++;
      if (onProgress && done % 60 === 0) onProgress(done, total);
    }
    this.events = [];
    onProgress?.(total, total);
    return true;
  }

  /** One live step to time `nowMs`; resolves once its batches are committed. */
  async step(nowMs: number): Promise<void> {
    if (this.part === 'past') throw new Error('the past part of a fill never runs live');
    if (nowMs < this.lastStep) return;
    this.lastStep = nowMs;
    if (!Number.isFinite(this.ctx.speedFrom)) this.ctx.speedFrom = nowMs;
    const today = Math.floor(nowMs / DAY_MS);
    // Without a back-fill the whole window appears now, its past games played in one step.
    const firstDay = Number.isFinite(this.lastDay) ? this.lastDay + 1 : today - DAYS_BACK;
    for (let day = firstDay; day <= today + DAYS_AHEAD; day++) {
      for (const ev of this.dayEvents(day)) {
        ev.plan(this.createTime(ev, nowMs));
        this.events.push(ev);
      }
    }
    this.lastDay = Math.max(this.lastDay, today + DAYS_AHEAD);
    await this.advance(nowMs, LIVE_SLICE_MS);
  }

  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => {
      // A step still committing (a slow store) is let finish: steps never overlap, the next tick catches up.
      if (this.running) return;
      this.running = this.step(this.now())
        .catch((err: unknown) => this.log(`simulator: step failed: ${(err as Error).message}`))
        .finally(() => {
          this.running = undefined;
        });
    }, this.tickMs);
    this.timer.unref();
  }

  /** Stops the clock; resolves once a step in flight has committed. */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.running;
  }

  /** Events of one day not seen before, for every simulated sport. */
  private dayEvents(day: number): SimEvent[] {
    const out: SimEvent[] = [];
    const { seed } = this.opts;
    for (const sport of this.sports) {
      const sources = (eventId: string, affiliateId: number) =>
        coveringBooks(seed, eventId, sport.discipline).some((b) => b.affiliate_id === affiliateId);
      for (const spec of daySchedule(seed, sport, day, sources)) {
        if (this.known.has(spec.id) || !this.plays(spec.startMs)) continue;
        this.known.add(spec.id);
        out.push(new SimEvent(this.ctx, spec));
      }
    }
    return out;
  }

  /** Whether a game that starts at `startMs` is this simulator's (the split's side of its part). */
  private plays(startMs: number): boolean {
    if (this.split === undefined) return this.part === 'live';
    return startMs < this.split === (this.part === 'past');
  }

  /**
   * When an event appears: as its day enters the window (or its sport's lead time before that
   * day), not before `from`, spread over two hours so that a new day does not land in one step.
   */
  private createTime(ev: SimEvent, from: number): number {
    const jitter = hashUnit(this.opts.seed, 'created', ev.spec.id) * 2 * 3_600_000;
    const { spec } = ev;
    return Math.max(from, (spec.day - DAYS_AHEAD) * DAY_MS, spec.startMs - leadMs(spec.sport)) + jitter;
  }

  /**
   * Ticks every active event to `t`, then commits what they emitted. With `sliceMs` (live steps),
   * the loop gets a turn whenever that long has passed: ticks only emit into `pending`, which
   * nothing reads before the flush, so readers never see a half-made step. The back-fill runs
   * before the server listens and goes straight through.
   */
  private async advance(t: number, sliceMs?: number, turn: () => Promise<void> = loopTurn): Promise<void> {
    let sliceEnd = sliceMs === undefined ? 0 : performance.now() + sliceMs;
    for (const ev of this.events) {
      ev.tick(t);
      // Only live steps read the clock: a back-fill ticks millions of times.
      if (sliceMs !== undefined && performance.now() >= sliceEnd) {
        await turn();
        sliceEnd = performance.now() + sliceMs;
      }
    }
    // After the games: a result of this step moves the boards before they are written.
    this.futures?.tick(t);
    await this.flush(t, sliceMs !== undefined, turn);
    if (this.events.some((ev) => ev.phase === 'done')) this.events = this.events.filter((ev) => ev.phase !== 'done');
  }

  /** Commits what the ticks emitted; `yieldBetween` gives the loop a `turn` between two batches. */
  private async flush(t: number, yieldBetween: boolean, turn: () => Promise<void>): Promise<void> {
    if (this.pending.length === 0) return;
    const at = new Date(t).toISOString();
    const updates = this.pending;
    this.pending = [];
    // One batch at a time: the next is planned from the state the previous one committed.
    const size = yieldBetween ? LIVE_BATCH : MAX_BATCH;
    for (let i = 0; i < updates.length; i += size) {
      if (yieldBetween && i > 0) await turn();
      await this.opts.sink.apply({ at, updates: updates.slice(i, i + size) });
    }
  }
}
