import { createHash } from 'node:crypto';
import { type Applied, type ApplyObserver, applyChange, applyPlannedPrice, type PlannedPrice } from '../board/apply.ts';
import type { Board } from '../board/board.ts';
import { type LoadedLog, loadCommitted } from '../board/load.ts';
import {
  type EventState,
  type LineState,
  type MarketState,
  marketKey,
  type ParticipantState,
  type PriceState,
  participantKey,
} from '../board/event-state.ts';
import { priceState } from '../perf/price-state.ts';
import type { Bus } from '../bus/bus.ts';
import {
  type Change,
  type ChangeRecord,
  changesEvent,
  decodeChange,
  type LogPosition,
  type StatValue,
} from '../changelog/change.ts';
import { withHeader, withScore } from '../domain/event-header.ts';
import { priceDelta } from '../domain/odds.ts';
import type { Play } from '../domain/plays.ts';
import type { ChangeType, EventInfo } from '../domain/types.ts';
import { LogFloor } from '../board/log-floor.ts';
import { forgetArchivedHeaders, planLeaving } from '../board/leaving.ts';
import { SmallMap } from '../board/small-map.ts';
import type { CompactResult, CompactStep } from '../store/retention.ts';
import type { Commit, EventRecord, MarketRecord, Store } from '../store/store.ts';
import { FuturesPlan, FuturesUpdateError, type PlannedFutures } from './futures-plan.ts';
import { newRowWriter } from '../perf/delta-row-text.ts';
import { type GameCell, statRowsOf } from './stat-rows.ts';
import type {
  BatchOutcome,
  EventUpsert,
  LedgerSink,
  PlayUpdate,
  PriceUpdate,
  RecordedSink,
  ScoreUpdate,
  UpdateBatch,
} from './updates.ts';

/** Line id: 32 hex characters, a pure function of what identifies the line, so it never changes. */
export function lineId(eventId: string, marketId: number, periodId: number, pKey: string, value: string): string {
  return createHash('md5').update(`${eventId}|${marketId}|${periodId}|${pKey}|${value}`).digest('hex');
}

export class LedgerError extends Error {}

/** The ledger's queue is full: the feed should wait for its earlier batches before sending more. */
export class LedgerBusyError extends LedgerError {}

export interface LedgerOptions {
  now?: () => number;
  /** Batches that may wait for their commit at once; past it `apply` refuses (back-pressure). */
  maxQueuedBatches?: number;
  /** Told of every change applied to the board, with what it replaced (delayed views). */
  observe?: ApplyObserver;
  /**
   * Changes committed at or after this time (epoch ms) are applied again at start, through
   * `observe`, so that the delayed views know what they replaced across a restart.
   */
  replaySinceMs?: number;
  /**
   * Told of every store commit: the rows it wrote and the seconds it took, or that it failed (then
   * nothing was written). A batch the ledger itself refuses never reaches the store and is not told.
   */
  onCommit?: (rows: number, seconds: number, failed: boolean) => void;
  /** What the log keeps whole, raised around each compaction step for the readers. */
  floor?: LogFloor;
  /**
   * New ids continue above this when it is past the log's last row: a restored log's gap
   * (`EpochGap.to`), so the head the readers hand out is already the new epoch's.
   */
  idsAbove?: number;
}

/** Statuses of an event that is over: such events leave the board once they have been quiet long enough. */
const FINISHED: ReadonlySet<string> = new Set(['STATUS_FINAL', 'STATUS_CANCELED']);

/**
 * How long the headers of archived events are kept after their scheduled start: longer than any
 * feed looks back (the simulator's window starts three days back), so a resuming feed sees them over.
 */
export const ARCHIVED_HEADERS_MS = 10 * 24 * 3_600_000;

/**
 * The single writer. For each batch it plans the change rows from the committed state (ids in
 * commit order, change_type, previous_price, price_delta, closed_at, the main-line flag kept on
 * exactly one line per book and participant) without touching the board, commits them to the
 * store, and only then applies them to the board and publishes them. Batches go through one queue,
 * so ids stay in commit order with an asynchronous store; a refused commit leaves nothing visible.
 */
export class Ledger implements LedgerSink, RecordedSink {
  private nextMarketId = 1;
  private nextPriceId = 1;
  private lastCommitMs = 0;
  private epoch = '';
  /** The market the last price update went to, and its event. */
  private lastMarket: MarketState | undefined;
  private lastMarketEvent: EventState | undefined;
  private readonly rows = newRowWriter();
  private tail: Promise<void> = Promise.resolve();
  private queued = 0;
  private readonly now: () => number;
  private readonly maxQueued: number;
  private readonly observe: ApplyObserver | undefined;
  private readonly onCommit: NonNullable<LedgerOptions['onCommit']>;
  private readonly floor: LogFloor;

  private constructor(
    private readonly store: Store,
    private readonly board: Board,
    private readonly bus: Bus,
    opts: LedgerOptions,
  ) {
    this.now = opts.now ?? Date.now;
    this.maxQueued = opts.maxQueuedBatches ?? 64;
    this.observe = opts.observe;
    this.onCommit = opts.onCommit ?? (() => {});
    this.floor = opts.floor ?? new LogFloor();
  }

  /** Loads the committed state into `board` (board/load.ts) and returns the writer of that store. */
  static async open(store: Store, board: Board, bus: Bus, opts: LedgerOptions = {}): Promise<Ledger> {
    const loaded = await loadCommitted(store, board, {
      ...(opts.replaySinceMs === undefined ? {} : { replaySinceMs: opts.replaySinceMs }),
      ...(opts.observe ? { observe: opts.observe } : {}),
      archivedSinceMs: (opts.now ?? Date.now)() - ARCHIVED_HEADERS_MS,
      idsAbove: opts.idsAbove,
    });
    return Ledger.continuing(store, board, bus, opts, loaded);
  }

  /**
   * The writer of a store whose committed state `board` already holds up to the store's head (a
   * standby that followed the writer it takes over from), going on from `log`. The caller reads
   * `log` once no one else can write (it holds the store's writer lock), so no id is handed out twice.
   */
  static continuing(store: Store, board: Board, bus: Bus, opts: LedgerOptions, log: LoadedLog): Ledger {
    const ledger = new Ledger(store, board, bus, opts);
    ledger.epoch = log.epoch;
    ledger.lastCommitMs = log.headCommittedMs;
    ledger.nextMarketId = log.maxMarketId + 1;
    ledger.nextPriceId = log.maxPriceId + 1;
    return ledger;
  }

  get headId(): number {
    return this.board.head;
  }

  /** The newest committed position of the log. */
  get position(): LogPosition {
    return { id: this.board.head, epoch: this.epoch };
  }

  /** Batches handed in and not yet committed. */
  get backlog(): number {
    return this.queued;
  }

  /** Runs `fn` after every batch and step handed in before it, as the one writer does everything. */
  private serial<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.tail.then(fn);
    this.tail = run.then(
      () => undefined,
      () => undefined,
    );
    return run;
  }

  /** One step of retention's compaction of the store (store/retention.ts), between two batches. */
  compact(step: CompactStep): Promise<CompactResult> {
    return this.serial(async () => {
      // Delta readers stop at the boundary before any row below it can go.
      this.floor.raiseId((await this.store.firstIdCommittedSince(step.cutoffMs)) ?? this.board.head + 1);
      const result = await this.store.compact(step);
      if (result.dropped > 0) this.floor.raiseSince(step.cutoffMs);
      return result;
    });
  }

  /**
   * Archives the events that are over (final or canceled) and whose last change was committed
   * before `finishedBeforeMs`: the store marks them and keeps their season totals in the same
   * transaction, then they leave the board (their reads go to the store). The headers of archived
   * events scheduled before `headersBeforeMs` are forgotten. Returns how many left the board.
   */
  archiveFinished(finishedBeforeMs: number, headersBeforeMs: number): Promise<number> {
    return this.serial(async () => {
      forgetArchivedHeaders(this.board, headersBeforeMs);
      // Commit times rise with the ids: an event whose last change id lies below the first id
      // committed since the cutoff changed last before it. One lookup, not one per finished event.
      const since = (await this.store.firstIdCommittedSince(finishedBeforeMs)) ?? Number.POSITIVE_INFINITY;
      const leaving: EventState[] = [];
      for (const ev of this.board.events.values()) {
        if (ev.version < since && FINISHED.has(ev.info.score?.event_status ?? '')) leaving.push(ev);
      }
      if (leaving.length === 0) return 0;
      const plan = planLeaving(this.board, leaving);
      await this.store.archive({
        eventIds: leaving.map((ev) => ev.info.event_id),
        archivedMs: this.now(),
        seasonTotals: plan.seasonTotals,
      });
      plan.apply();
      return leaving.length;
    });
  }

  /** Resolves once every batch handed in so far has been committed or refused. */
  settled(): Promise<void> {
    return this.tail;
  }

  /**
   * Commits a batch after those handed in before it. Resolves once the batch is committed, on the
   * board and published; rejects, with nothing written, when the batch is invalid or the store
   * refuses it, and at once with LedgerBusyError when `maxQueuedBatches` are already waiting.
   */
  async apply(batch: UpdateBatch): Promise<void> {
    await this.applyNamed(batch);
  }

  /**
   * As `apply`, and says whether the batch was committed now or, named by a `batch_id` the store
   * already keeps, had been before: then nothing is written and the head it left is given.
   */
  applyNamed(batch: UpdateBatch): Promise<BatchOutcome> {
    if (this.queued >= this.maxQueued) {
      return Promise.reject(
        new LedgerBusyError(`the ledger has ${this.queued} batches waiting; wait for them before sending more`),
      );
    }
    this.queued++;
    return this.serial(() => this.commit(batch)).finally(() => {
      this.queued--;
    });
  }

  /**
   * Commits rows of a recorded change log as they were recorded (a replay), after everything handed
   * in before: ids, times, payloads and details are kept, so every read of them gives the bytes the
   * recorded log gave. The rows must continue this log: ids above its head, commit times not before
   * its last, events known or made by the rows. The event records and market instances the store
   * keeps beside the rows are derived from them as a batch's plan derives them; then the rows are
   * applied to the board by the function a restart uses, observed and published. Back-pressure as
   * `apply`.
   */
  applyRecorded(rows: readonly ChangeRecord[]): Promise<void> {
    if (this.queued >= this.maxQueued) {
      return Promise.reject(
        new LedgerBusyError(`the ledger has ${this.queued} batches waiting; wait for them before sending more`),
      );
    }
    this.queued++;
    return this.serial(() => this.commitRecorded(rows)).finally(() => {
      this.queued--;
    });
  }

  private async commitRecorded(rows: readonly ChangeRecord[]): Promise<void> {
    if (rows.length === 0) return;
    const changes: Change[] = [];
    const infos = new Map<string, EventInfo>();
    /** Events touched, with the last id that touched each. */
    const touched = new Map<string, number>();
    const markets: MarketRecord[] = [];
    const made = new Set<string>();
    let head = this.board.head;
    let lastMs = this.lastCommitMs;
    let nextMarket = this.nextMarketId;
    let nextPrice = this.nextPriceId;
    for (const row of rows) {
      if (row.id <= head) throw new LedgerError(`recorded change ${row.id} is not above the log's head ${head}`);
      if (row.committed_ms < lastMs) {
        throw new LedgerError(`recorded change ${row.id} was committed before the change it follows`);
      }
      head = row.id;
      lastMs = row.committed_ms;
      let change: Change;
      try {
        change = decodeChange(row);
      } catch (err) {
        throw new LedgerError(`recorded change ${row.id} cannot be read: ${(err as Error).message}`);
      }
      changes.push(change);
      if (!changesEvent(row.kind)) continue;
      const info = infos.get(row.event_id) ?? this.board.events.get(row.event_id)?.info;
      if (change.kind === 'event') infos.set(row.event_id, withHeader(info, change.header));
      else if (!info) throw new LedgerError(`recorded change ${row.id} names an unknown event: ${row.event_id}`);
      else infos.set(row.event_id, change.kind === 'score' ? withScore(info, change) : info);
      touched.set(row.event_id, row.id);
      if (change.kind !== 'price') continue;
      const f = change.fact;
      const key = marketKey(f.market_id, f.period_id);
      if (!this.board.events.get(f.event_id)?.markets.has(key) && !made.has(`${f.event_id}|${key}`)) {
        made.add(`${f.event_id}|${key}`);
        markets.push({
          id: f.market_instance_id,
          event_id: f.event_id,
          market_id: f.market_id,
          period_id: f.period_id,
        });
        nextMarket = Math.max(nextMarket, f.market_instance_id + 1);
      }
      nextPrice = Math.max(nextPrice, f.price_id + 1);
    }
    const events: EventRecord[] = [];
    for (const [eventId, version] of touched) {
      const info = infos.get(eventId)!;
      events.push({
        event_id: eventId,
        sport_id: info.sport_id,
        event_date: info.event_date,
        info: JSON.stringify(info),
        change_id: version,
      });
    }
    const started = performance.now();
    try {
      await this.store.commit({ changes: [...rows], events, markets });
    } catch (err) {
      this.onCommit(0, 0, true);
      throw err;
    }
    this.onCommit(rows.length, (performance.now() - started) / 1000, false);
    this.lastCommitMs = lastMs;
    this.nextMarketId = nextMarket;
    this.nextPriceId = nextPrice;
    this.lastMarket = undefined;
    this.lastMarketEvent = undefined;
    const fromId = this.board.head;
    for (let i = 0; i < rows.length; i++) {
      const applied = applyChange(this.board, changes[i]!);
      if (applied && this.observe) this.observe(rows[i]!, applied);
      this.board.head = rows[i]!.id;
    }
    this.bus.publish({ epoch: this.epoch, fromId, headId: head, changes: [...rows], eventIds: [...touched.keys()] });
  }

  private async commit(batch: UpdateBatch): Promise<BatchOutcome> {
    const named = batch.batch_id;
    if (named !== undefined) {
      // The one writer checks and commits in turn: no other commit of the name can come between.
      const before = await this.store.batchHead(named);
      if (before !== undefined) return { applied: false, headId: before };
    }
    this.validate(batch);
    // One spelling of time in every row (24-character UTC ISO), so stored times compare as strings.
    const at = new Date(batch.at).toISOString();
    // Commit times never go backwards along the ids, even if the wall clock does.
    const committedMs = Math.max(this.lastCommitMs, this.now());
    const ids = { market: this.nextMarketId, price: this.nextPriceId };
    const plan = new BatchPlan(this.board, this.board.head, committedMs);
    try {
      const futures = new FuturesPlan(this.board.futures);
      const planFutures = (made: PlannedFutures | undefined) => {
        if (made) plan.add(made.record, { kind: 'info', change: made.change });
      };
      for (const u of batch.updates) {
        switch (u.kind) {
          case 'event':
            this.planEvent(plan, u, at);
            break;
          case 'score':
            this.planScore(plan, u, at);
            break;
          case 'price':
            this.planPrice(plan, u, at);
            break;
          case 'play':
            this.planPlay(plan, u, at);
            break;
          case 'futures_board':
            planFutures(futures.board(u, plan.nextId(), at, committedMs));
            break;
          case 'futures_price':
            planFutures(futures.price(u, plan.nextId(), at, committedMs));
            break;
          case 'futures_settlement':
            planFutures(futures.settle(u, plan.nextId(), at, committedMs));
            break;
          default:
            return assertNeverUpdate(u);
        }
      }
      if (plan.records.length === 0 && plan.markets.length === 0 && named === undefined) {
        return { applied: true, headId: this.board.head };
      }
      const commit: Commit = { changes: plan.records, markets: plan.markets, events: plan.eventRecords() };
      // A named batch that changes nothing is kept all the same: sent again later it must still apply nothing.
      if (named !== undefined) commit.batch = { id: named, headId: plan.head, committedMs };
      const started = performance.now();
      try {
        await this.store.commit(commit);
      } catch (err) {
        this.onCommit(0, 0, true);
        throw err;
      }
      this.onCommit(plan.records.length, (performance.now() - started) / 1000, false);
    } catch (err) {
      // Nothing reached the board; ids handed out by the plan are handed out again.
      this.nextMarketId = ids.market;
      this.nextPriceId = ids.price;
      this.lastMarket = undefined;
      this.lastMarketEvent = undefined;
      // A refused futures update is an invalid batch, as a refused event update is.
      throw err instanceof FuturesUpdateError ? new LedgerError(err.message) : err;
    }
    this.lastCommitMs = committedMs;
    const fromId = this.board.head;
    const observe = this.observe;
    for (let i = 0; i < plan.steps.length; i++) {
      const step = plan.steps[i]!;
      const applied: Applied | undefined =
        step.kind === 'price' ? applyPlannedPrice(step) : applyChange(this.board, step.change, step.fresh);
      if (applied && observe) observe(plan.records[i]!, applied);
    }
    this.board.head = plan.head;
    // A named batch that changed nothing has nothing to tell the readers.
    if (plan.records.length > 0 || named === undefined) {
      this.bus.publish({
        epoch: this.epoch,
        fromId,
        headId: plan.head,
        changes: plan.records,
        eventIds: [...plan.touched.keys()],
      });
    }
    return { applied: true, headId: plan.head };
  }

  /** Rejects a batch that names an unknown event before anything is planned. */
  private validate(batch: UpdateBatch): void {
    if (Number.isNaN(Date.parse(batch.at))) throw new LedgerError(`batch time is not ISO 8601: ${batch.at}`);
    const created = new Set<string>();
    // Feeds send an event's updates together: an id just checked needs no second look.
    let known = '';
    for (const u of batch.updates) {
      // Futures updates name boards, which the futures plan checks as it goes.
      if (u.kind === 'futures_board' || u.kind === 'futures_price' || u.kind === 'futures_settlement') continue;
      if (u.kind === 'event') {
        if (this.board.archivedHeaders.has(u.event.event_id)) {
          throw new LedgerError(`event ${u.event.event_id} is over and archived: it takes no more updates`);
        }
        created.add(u.event.event_id);
      } else if (u.event_id !== known) {
        if (!created.has(u.event_id) && !this.board.events.has(u.event_id)) {
          throw new LedgerError(`update names an unknown event: ${u.event_id}`);
        }
        known = u.event_id;
      }
      if (u.kind === 'price' && !Number.isFinite(u.price)) {
        throw new LedgerError(`price is not a finite number for event ${u.event_id}`);
      }
    }
  }

  private planEvent(plan: BatchPlan, u: EventUpsert, at: string): void {
    const header = u.event;
    const current = plan.info(header.event_id);
    if (current) {
      const { score: _s, live_game_state: _l, ...rest } = current;
      if (JSON.stringify(rest) === JSON.stringify(header)) return;
    }
    const id = plan.nextId();
    const info = withHeader(current, header);
    const fresh = current ? undefined : plan.freshEvent(header, id);
    plan.setInfo(header.event_id, info);
    plan.add(
      {
        id,
        kind: 'event',
        event_id: header.event_id,
        sport_id: header.sport_id,
        at,
        committed_ms: plan.committedMs,
        price_id: null,
        affiliate_id: null,
        market_id: null,
        payload: JSON.stringify(header),
        detail: null,
      },
      { kind: 'info', change: { kind: 'event', id, header }, fresh },
    );
  }

  private planScore(plan: BatchPlan, u: ScoreUpdate, at: string): void {
    const info = withScore(plan.info(u.event_id)!, u);
    const id = plan.nextId();
    plan.setInfo(u.event_id, info);
    const change: Change = { kind: 'score', id, event_id: u.event_id, score: u.score };
    if (u.live_game_state !== undefined) change.live_game_state = u.live_game_state;
    plan.add(
      {
        id,
        kind: 'score',
        event_id: u.event_id,
        sport_id: info.sport_id,
        at,
        committed_ms: plan.committedMs,
        price_id: null,
        affiliate_id: null,
        market_id: null,
        payload: JSON.stringify({ score: u.score, live_game_state: u.live_game_state }),
        detail: null,
      },
      { kind: 'info', change },
    );
  }

  /** A play row numbered after the event's last play, then a stat row per box-score value it changes. */
  private planPlay(plan: BatchPlan, u: PlayUpdate, at: string): void {
    const info = plan.info(u.event_id)!;
    const ev = plan.event(u.event_id)!;
    const cells = statRowsOf(
      info,
      u.play,
      (cell) => plan.statValue(ev, cell),
      (id) => plan.knowsPlayer(ev, id),
      (message) => {
        throw new LedgerError(message);
      },
    );
    const sequence = plan.nextSequence(ev);
    const id = plan.nextId();
    const p = u.play;
    // The served shape, in the field order of the served JSON.
    const play: Play = {
      event_id: u.event_id,
      sequence,
      period: p.period,
      game_clock: p.game_clock,
      display_clock: p.display_clock,
      description: p.description,
      team_id: p.team_id,
      score_away: p.score_away,
      score_home: p.score_home,
      players: p.players,
      created_at: at,
    };
    const base = { event_id: u.event_id, sport_id: info.sport_id, at, committed_ms: plan.committedMs };
    const none = { price_id: null, affiliate_id: null, market_id: null, detail: null };
    plan.add(
      { id, kind: 'play', ...base, ...none, payload: JSON.stringify(play) },
      { kind: 'info', change: { kind: 'play', id, event_id: u.event_id, sequence } },
    );
    for (const stat of cells) {
      const statId = plan.nextId();
      plan.setStatValue(ev, stat);
      plan.add(
        { id: statId, kind: 'stat', ...base, ...none, payload: JSON.stringify(stat) },
        { kind: 'info', change: { kind: 'stat', id: statId, event_id: u.event_id, stat } },
      );
    }
  }

  private planPrice(plan: BatchPlan, u: PriceUpdate, at: string): void {
    const ev = plan.event(u.event_id)!;
    const [market, freshMarket] = this.market(plan, ev, u.market_id, u.period_id);
    const [participant, freshParticipant] = plan.participant(market, u);
    let line = plan.line(participant, u.line);
    let freshLine = false;
    if (!line) {
      const pKey = participantKey(u.participant_type, u.participant_id);
      line = {
        id: lineId(u.event_id, u.market_id, u.period_id, pKey, u.line),
        value: u.line,
        prices: new SmallMap(),
      };
      plan.addLine(participant, line);
      freshLine = true;
    }
    const prev = plan.price(line, u.affiliate_id);
    const wantMain = u.is_main_line ?? prev?.is_main_line ?? false;
    const closedAt = u.closed ? prev?.closed_at || at : '';
    if (
      prev &&
      prev.price === u.price &&
      prev.closed_at === closedAt &&
      prev.is_main_line === wantMain &&
      prev.liquidity_usd === u.liquidity_usd &&
      prev.source_id === u.source_id
    ) {
      return;
    }
    let movedFrom: PriceState | undefined;
    let movedFromLine: string | undefined;
    if (wantMain) {
      const oldValue = plan.mainLine(participant, u.affiliate_id);
      if (oldValue !== undefined && oldValue !== u.line) {
        const oldLine = plan.line(participant, oldValue);
        const old = oldLine && plan.price(oldLine, u.affiliate_id);
        if (oldLine && old?.is_main_line) {
          movedFrom = old;
          movedFromLine = oldValue;
          const step = plannedStep(ev, market, participant, oldLine, freshMarket, freshParticipant, false);
          this.writePrice(
            plan,
            step,
            old,
            old.price,
            false,
            old.closed_at,
            old.liquidity_usd,
            old.source_id,
            at,
            u.affiliate_id,
          );
        }
      }
      plan.setMainLine(participant, u.affiliate_id, u.line);
    } else if (prev?.is_main_line && plan.mainLine(participant, u.affiliate_id) === u.line) {
      plan.setMainLine(participant, u.affiliate_id, undefined);
    }
    const step = plannedStep(ev, market, participant, line, freshMarket, freshParticipant, freshLine);
    this.writePrice(
      plan,
      step,
      prev,
      u.price,
      wantMain,
      closedAt,
      u.liquidity_usd,
      u.source_id,
      at,
      u.affiliate_id,
      movedFrom,
      movedFromLine,
    );
  }

  /**
   * Plans one price row onto `step` (its path on the board, `state` still to be made). `movedFrom`
   * is the book's previous main line when this write moves the main line here, `movedFromLine` that
   * line's value. Positional arguments: this runs once per update, and objects made only to carry
   * arguments were a measurable share of the ledger's garbage.
   */
  private writePrice(
    plan: BatchPlan,
    step: PlannedPrice,
    prev: PriceState | undefined,
    price: number,
    isMainLine: boolean,
    closedAt: string,
    liquidityUsd: number | undefined,
    sourceId: string | undefined,
    at: string,
    affiliateId: number,
    movedFrom?: PriceState,
    movedFromLine?: string,
  ): void {
    const { ev, market, participant, line } = step;
    // A main-line move is a line_change on both lines, even when the new line is priced for the
    // first time; its previous price is then the one the side had on the old main line.
    const previous = prev ?? movedFrom;
    const changeType: ChangeType =
      movedFrom || (prev && prev.is_main_line !== isMainLine) ? 'line_change' : prev ? 'price_change' : 'new';
    const previousPrice = previous?.price;
    const id = plan.nextId();
    // A planned state is never changed once made: the board takes it over (a new price) or copies it.
    const state = priceState(
      prev?.id ?? this.nextPriceId++,
      affiliateId,
      price,
      isMainLine,
      at,
      closedAt,
      priceDelta(previousPrice, price),
      id,
      liquidityUsd,
      sourceId,
      movedFromLine,
    );
    step.state = state;
    plan.setPrice(line, state, prev);
    const info = ev.info;
    // Streams send no message for a row that only moved liquidity or the source id.
    const quoteUnchanged =
      prev !== undefined &&
      !movedFrom &&
      prev.price === price &&
      prev.closed_at === closedAt &&
      prev.is_main_line === isMainLine;
    plan.add(
      {
        id,
        kind: 'price',
        event_id: info.event_id,
        sport_id: info.sport_id,
        at,
        price_id: state.id,
        affiliate_id: affiliateId,
        market_id: market.market_id,
        committed_ms: plan.committedMs,
        payload: this.rows.write(
          id,
          info,
          affiliateId,
          market,
          participant,
          line,
          price,
          previousPrice,
          changeType,
          isMainLine,
          closedAt,
          at,
        ),
        detail: this.rows.detail(
          state.id,
          market,
          line,
          state.price_delta,
          liquidityUsd,
          sourceId,
          movedFromLine,
          quoteUnchanged,
        ),
      },
      step,
    );
  }

  private market(plan: BatchPlan, ev: EventState, marketId: number, periodId: number): [MarketState, boolean] {
    // Feeds send a market's prices together: the last market found saves building and hashing its key.
    const last = this.lastMarket;
    if (last && last.market_id === marketId && last.period_id === periodId && this.lastMarketEvent === ev) {
      return [last, plan.isFreshMarket(last)];
    }
    const key = marketKey(marketId, periodId);
    let market = plan.market(ev, key);
    let fresh = false;
    if (market) fresh = plan.isFreshMarket(market);
    else {
      market = { id: this.nextMarketId++, market_id: marketId, period_id: periodId, participants: new Map() };
      plan.addMarket(ev, key, market);
      fresh = true;
    }
    this.lastMarket = market;
    this.lastMarketEvent = ev;
    return [market, fresh];
  }
}

/** A price step whose state `writePrice` fills in; one object per planned row. */
function plannedStep(
  ev: EventState,
  market: MarketState,
  participant: ParticipantState,
  line: LineState,
  freshMarket: boolean,
  freshParticipant: boolean,
  freshLine: boolean,
): PlannedPrice {
  return { kind: 'price', ev, market, participant, line, freshMarket, freshParticipant, freshLine, state: NO_STATE };
}

/** Stands in for a step's state until `writePrice` makes it, so every step has one shape. */
const NO_STATE = Object.freeze({}) as PriceState;

function assertNeverUpdate(u: never): never {
  throw new LedgerError(`unknown update kind: ${JSON.stringify(u)}`);
}

/** Markets with at most this many participants are searched by comparison, larger ones by key. */
const SCAN_PARTICIPANTS = 8;

type Step = PlannedPrice | { kind: 'info'; change: Change; fresh?: EventState };

/**
 * One batch's rows and the state they lead to, planned over the committed board without changing
 * it: what the batch creates or changes is kept here, beside the objects it hangs from, until the
 * commit succeeds and the steps are applied.
 */
class BatchPlan {
  readonly records: ChangeRecord[] = [];
  readonly steps: Step[] = [];
  readonly markets: MarketRecord[] = [];
  /** Events touched, with the last id that touched each (their new version). */
  readonly touched = new Map<string, number>();
  private readonly freshEvents = new Map<string, EventState>();
  private readonly infos = new Map<string, EventInfo>();
  private readonly childMarkets = new Map<EventState, Map<string, MarketState>>();
  private readonly freshMarkets = new Set<MarketState>();
  private readonly childParticipants = new Map<MarketState, ParticipantState[]>();
  private readonly childLines = new Map<ParticipantState, Map<string, LineState>>();
  /** Planned prices that replace a committed one, by price id; prices new to a line by line. */
  private readonly replaced = new Map<number, PriceState>();
  private readonly added = new Map<LineState, Map<number, PriceState>>();
  private readonly mainLines = new Map<ParticipantState, Map<number, string | undefined>>();

  constructor(
    private readonly board: Board,
    public head: number,
    readonly committedMs: number,
  ) {}

  nextId(): number {
    this.head += 1;
    return this.head;
  }

  /** Play numbers and box-score values given out in this batch, beside the board's. */
  private readonly sequences = new Map<EventState, number>();
  private readonly statValues = new Map<EventState, Map<string, number>>();

  nextSequence(ev: EventState): number {
    const next = (this.sequences.get(ev) ?? ev.game?.plays ?? 0) + 1;
    this.sequences.set(ev, next);
    return next;
  }

  statValue(ev: EventState, cell: GameCell): number | undefined {
    const planned = this.statValues.get(ev)?.get(cellKey(cell));
    if (planned !== undefined) return planned;
    const game = ev.game;
    if (!game) return undefined;
    const stats = cell.player_id === undefined ? game.teams.get(cell.team_id) : game.players.get(cell.player_id)?.stats;
    return stats?.get(cell.stat_id);
  }

  setStatValue(ev: EventState, stat: StatValue): void {
    inner(this.statValues, ev).set(cellKey(stat), Number(stat.value));
    if (stat.display_name !== undefined && stat.player_id !== undefined) {
      let named = this.namedPlayers.get(ev);
      if (!named) {
        named = new Set();
        this.namedPlayers.set(ev, named);
      }
      named.add(stat.player_id);
    }
  }

  /** Whether a player of the event has a line already (committed or planned in this batch). */
  knowsPlayer(ev: EventState, playerId: number): boolean {
    return ev.game?.players.has(playerId) === true || this.namedPlayers.get(ev)?.has(playerId) === true;
  }

  private readonly namedPlayers = new Map<EventState, Set<number>>();

  add(record: ChangeRecord, step: Step): void {
    this.records.push(record);
    this.steps.push(step);
    // Futures rows name boards, which have no event record.
    if (changesEvent(record.kind)) this.touched.set(record.event_id, record.id);
  }

  event(eventId: string): EventState | undefined {
    return this.board.events.get(eventId) ?? this.freshEvents.get(eventId);
  }

  freshEvent(header: EventInfo, id: number): EventState {
    const state = this.board.newEvent({ ...header }, id);
    this.freshEvents.set(header.event_id, state);
    return state;
  }

  info(eventId: string): EventInfo | undefined {
    return this.infos.get(eventId) ?? this.board.events.get(eventId)?.info;
  }

  setInfo(eventId: string, info: EventInfo): void {
    this.infos.set(eventId, info);
  }

  /** The stored event records of the touched events, as they will be after the batch. */
  eventRecords(): EventRecord[] {
    const out: EventRecord[] = [];
    for (const [eventId, version] of this.touched) {
      const info = this.info(eventId)!;
      out.push({
        event_id: eventId,
        sport_id: info.sport_id,
        event_date: info.event_date,
        info: JSON.stringify(info),
        change_id: version,
      });
    }
    return out;
  }

  market(ev: EventState, key: string): MarketState | undefined {
    return ev.markets.get(key) ?? this.childMarkets.get(ev)?.get(key);
  }

  isFreshMarket(market: MarketState): boolean {
    return this.freshMarkets.has(market);
  }

  addMarket(ev: EventState, key: string, market: MarketState): void {
    inner(this.childMarkets, ev).set(key, market);
    this.freshMarkets.add(market);
    this.markets.push({
      id: market.id,
      event_id: ev.info.event_id,
      market_id: market.market_id,
      period_id: market.period_id,
    });
  }

  participant(market: MarketState, u: PriceUpdate): [ParticipantState, boolean] {
    const own = market.participants;
    if (own.size <= SCAN_PARTICIPANTS) {
      // A market has a few participants: comparing them is cheaper than building and hashing a key.
      for (const p of own.values()) if (p.id === u.participant_id && p.type === u.participant_type) return [p, false];
    } else {
      const p = own.get(participantKey(u.participant_type, u.participant_id));
      if (p) return [p, false];
    }
    let added = this.childParticipants.get(market);
    if (added) {
      for (const p of added) if (p.id === u.participant_id && p.type === u.participant_type) return [p, true];
    } else {
      added = [];
      this.childParticipants.set(market, added);
    }
    const p: ParticipantState = {
      id: u.participant_id,
      type: u.participant_type,
      name: u.participant_name,
      lines: new SmallMap(),
      mainLines: new SmallMap(),
    };
    added.push(p);
    return [p, true];
  }

  line(participant: ParticipantState, value: string): LineState | undefined {
    return participant.lines.get(value) ?? this.childLines.get(participant)?.get(value);
  }

  addLine(participant: ParticipantState, line: LineState): void {
    inner(this.childLines, participant).set(line.value, line);
  }

  price(line: LineState, affiliateId: number): PriceState | undefined {
    const committed = line.prices.get(affiliateId);
    if (committed) return this.replaced.get(committed.id) ?? committed;
    return this.added.get(line)?.get(affiliateId);
  }

  /** `prev` is what `price(line, state.affiliate_id)` gave before this state was planned. */
  setPrice(line: LineState, state: PriceState, prev: PriceState | undefined): void {
    if (prev && line.prices.get(state.affiliate_id) !== undefined) this.replaced.set(state.id, state);
    else inner(this.added, line).set(state.affiliate_id, state);
  }

  mainLine(participant: ParticipantState, affiliateId: number): string | undefined {
    const planned = this.mainLines.get(participant);
    if (planned?.has(affiliateId)) return planned.get(affiliateId);
    return participant.mainLines.get(affiliateId);
  }

  setMainLine(participant: ParticipantState, affiliateId: number, value: string | undefined): void {
    inner(this.mainLines, participant).set(affiliateId, value);
  }
}

const cellKey = (c: GameCell): string => `${c.team_id}:${c.player_id ?? ''}:${c.stat_id}`;

/** The map kept under `key` in `outer`, made on first use. */
function inner<K, K2, V>(outer: Map<K, Map<K2, V>>, key: K): Map<K2, V> {
  let map = outer.get(key);
  if (!map) {
    map = new Map();
    outer.set(key, map);
  }
  return map;
}
