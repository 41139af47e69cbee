import { type ChangeRecord, describedMs } from '../changelog/change.ts';
import { defaultDelayEntries } from '../config.ts';
import type { EventInfo } from '../domain/types.ts';
import type { Applied } from './apply.ts';
import type { FuturesBoardState } from './futures.ts';
import type { ArchivedSeason } from './season-archive.ts';
import type { Board } from './board.ts';
import type { EventState, LineState, MarketState, ParticipantState, PriceState } from './event-state.ts';
import { objectCache } from '../perf/fresh-cache.ts';
import type { BoardView } from './board-view.ts';

/** What an event change replaced: the changes a delayed view undoes. */
type EventApplied = Exclude<Applied, { kind: 'futures' }>;

/** A change applied to the live board, with what it replaced, kept while a delayed view may need it. */
export interface KeptChange {
  id: number;
  /** When plans with a delay may see it: the time it describes (never later than its commit), in ms. */
  visibleMs: number;
  applied: EventApplied;
}

export interface DelayedViewsOptions {
  now?: () => number;
  /** Most changes kept; past it the slowest views are moved on early (counted in `forcedAdvances`). */
  maxEntries?: number;
  /** How often the views move on by themselves, in ms. */
  tickMs?: number;
}

/**
 * The board as plans with a data delay see it (Free 5 min, Starter 60 s, Pro 30 s), derived from the
 * live board and the changes of the last few minutes: each applied change is kept with the value it
 * replaced, and a view of delay D shows the live board with the changes newer than its head undone.
 * A view's head is the longest prefix of the log whose changes all describe times at least D ago,
 * so a delayed plan sees a consistent state and a delta cursor that never skips a row. Nothing is
 * copied until an event that changed within the delay is read, and then only that event's changed
 * markets; an event without recent changes is the live one.
 */
export class DelayedViews {
  private readonly entries: KeptChange[] = [];
  /** Index in `entries` of the first entry still kept. */
  private start = 0;
  private readonly byEvent = new Map<EventState, KeptChange[]>();
  private readonly views = new Map<number, DelayedView>();
  private readonly now: () => number;
  private readonly maxEntries: number;
  private readonly timer: NodeJS.Timeout;
  /** Times the entry bound moved a view on before its delay had passed. */
  forcedAdvances = 0;
  private readonly longestDelayMs: number;

  constructor(
    private readonly live: Board,
    delaysSeconds: readonly number[],
    opts: DelayedViewsOptions = {},
  ) {
    this.now = opts.now ?? Date.now;
    this.maxEntries = opts.maxEntries ?? defaultDelayEntries();
    for (const d of new Set(delaysSeconds)) if (d > 0) this.views.set(d, new DelayedView(this, live, d * 1000));
    this.longestDelayMs = Math.max(0, ...this.views.keys()) * 1000;
    this.timer = setInterval(() => this.advance(), opts.tickMs ?? 250);
    this.timer.unref();
  }

  /** The ledger's apply observer: records each change with what it replaced. */
  readonly observe = (row: Pick<ChangeRecord, 'id' | 'at' | 'committed_ms'>, applied: Applied): void => {
    if (this.views.size === 0) return;
    // Futures are served to real-time plans only (every delayed tier lacks the entitlement), and a
    // delayed view shows no boards, so there is nothing to undo and nothing to hold back.
    if (applied.kind === 'futures') return;
    this.keep(row.id, describedMs(row), applied);
  };

  /**
   * Takes the changes another run's views kept (`kept`, through a board snapshot) as if observed
   * now, in id order: what the restart's replay of the recent log would have kept of them.
   */
  restore(changes: readonly KeptChange[]): void {
    if (this.views.size === 0) return;
    for (const c of changes) this.keep(c.id, c.visibleMs, c.applied);
  }

  /** The changes kept now, oldest first (for a board snapshot). */
  kept(): KeptChange[] {
    return this.entries.slice(this.start);
  }

  private keep(id: number, visibleMs: number, applied: EventApplied): void {
    // Every view may show it at once (a back-fill describes the past) and no change of its event
    // is held back: nothing of that event is undone, so nothing is kept. With other events' changes
    // held back (the past part of a first fill runs beside the live feed), the view then shows it
    // before its head passes its id; a delta read gets it when the head does.
    if (visibleMs <= this.now() - this.longestDelayMs && !this.byEvent.has(applied.event)) return;
    const entry: KeptChange = { id, visibleMs, applied };
    this.entries.push(entry);
    let list = this.byEvent.get(applied.event);
    if (!list) {
      list = [];
      this.byEvent.set(applied.event, list);
    }
    list.push(entry);
    // A long synchronous run of commits (a back-fill) gives the timer no turn: move on from here too.
    const kept = this.entries.length - this.start;
    if (kept > this.maxEntries || kept % 4096 === 0) this.advance();
  }

  /** The view a plan with `delaySeconds` reads. */
  forDelay(delaySeconds: number): BoardView {
    if (delaySeconds <= 0) return this.live;
    const view = this.views.get(delaySeconds);
    if (!view) throw new Error(`no delayed view of ${delaySeconds} s is kept`);
    view.moveOn(this.now(), this.entries, this.start);
    return view;
  }

  /** Changes kept for the views (for metrics). */
  get size(): number {
    return this.entries.length - this.start;
  }

  /** How far behind the live head each view is, in change ids (for metrics). */
  lag(): Map<number, number> {
    const out = new Map<number, number>();
    for (const [d, v] of this.views) out.set(d, this.live.head - v.head);
    return out;
  }

  close(): void {
    clearInterval(this.timer);
  }

  /** The entries of an event newer than `head`, oldest first (empty when none). */
  newerThan(event: EventState, head: number): KeptChange[] {
    const list = this.byEvent.get(event);
    if (!list || list.length === 0 || list[list.length - 1]!.id <= head) return [];
    let i = list.length - 1;
    while (i > 0 && list[i - 1]!.id > head) i--;
    return list.slice(i);
  }

  private advance(): void {
    const t = this.now();
    let slowest = Number.POSITIVE_INFINITY;
    for (const v of this.views.values()) slowest = Math.min(slowest, v.moveOn(t, this.entries, this.start));
    if (this.entries.length - slowest > this.maxEntries) {
      // Bounded memory wins over an exact delay under an ingest far beyond any real feed.
      slowest = this.entries.length - this.maxEntries;
      for (const v of this.views.values()) if (v.force(slowest, this.entries)) this.forcedAdvances++;
    }
    this.drop(slowest);
  }

  /** Forgets the entries before index `until`: every view has passed them. */
  private drop(until: number): void {
    for (; this.start < until; this.start++) {
      const e = this.entries[this.start]!;
      const list = this.byEvent.get(e.applied.event);
      if (list) {
        list.shift();
        if (list.length === 0) this.byEvent.delete(e.applied.event);
      }
    }
    // Compact now and then rather than shifting the array on every drop.
    if (this.start > 4096 && this.start * 2 > this.entries.length) {
      this.entries.splice(0, this.start);
      for (const v of this.views.values()) v.rebase(this.start);
      this.start = 0;
    }
  }
}

/** One delay's view. Reads go through `materialise`, which undoes the event's newer changes. */
class DelayedView implements BoardView {
  head: number;
  /** Index in the entries of the first change this view does not show yet. */
  private next = 0;
  /**
   * Each live event's copy as this view last made it, for the version it undid down to; kept beside
   * the live state, so it goes when the event does.
   */
  private readonly copies = objectCache<EventState, number, { state: EventState | undefined }>();

  constructor(
    private readonly owner: DelayedViews,
    private readonly live: Board,
    private readonly delayMs: number,
  ) {
    this.head = live.head;
  }

  /** Moves the head over every change old enough; returns the index of the first one it does not show. */
  moveOn(t: number, entries: readonly KeptChange[], start: number): number {
    const cutoff = t - this.delayMs;
    let i = Math.max(this.next, start);
    while (i < entries.length && entries[i]!.visibleMs <= cutoff) i++;
    this.next = i;
    // Past the last entry, every committed change is shown (rows that changed nothing included).
    this.head = i < entries.length ? entries[i]!.id - 1 : this.live.head;
    return i;
  }

  /** Moves the view past index `index` before its time; true when it had to move. */
  force(index: number, entries: readonly KeptChange[]): boolean {
    if (this.next >= index) return false;
    this.next = index;
    this.head = index < entries.length ? entries[index]!.id - 1 : this.live.head;
    return true;
  }

  rebase(by: number): void {
    this.next -= by;
  }

  getEvent(eventId: string): EventState | undefined {
    const ev = this.live.getEvent(eventId);
    return ev && this.materialise(ev);
  }

  eventsOfSport(sportId: number): readonly EventState[] {
    const out: EventState[] = [];
    for (const ev of this.live.eventsOfSport(sportId)) {
      const seen = this.materialise(ev);
      if (seen) out.push(seen);
    }
    return out;
  }

  /** Archived games are long final: every view sees them as the live board does. */
  archivedSeason(sportId: number, teamId: number, year: number, seasonType: string): ArchivedSeason | undefined {
    return this.live.archivedSeason(sportId, teamId, year, seasonType);
  }

  /** None: no delayed plan has the futures entitlement, and live boards would show it early. */
  getFutures(): FuturesBoardState | undefined {
    return undefined;
  }

  futuresOfSport(): readonly FuturesBoardState[] {
    return [];
  }

  eventsInWindow(sportId: number, fromMs: number, toMs: number): EventState[] {
    const out: EventState[] = [];
    for (const ev of this.live.eventsInWindow(sportId, fromMs, toMs)) {
      const seen = this.materialise(ev);
      if (seen && seen.startMs >= fromMs && seen.startMs < toMs) out.push(seen);
    }
    return out;
  }

  /** The event as of this view's head: the live state when nothing newer touched it, else a copy. */
  private materialise(ev: EventState): EventState | undefined {
    const newer = this.owner.newerThan(ev, this.head);
    if (newer.length === 0) {
      this.copies.drop(ev);
      return ev;
    }
    const version = newer[0]!.applied.beforeVersion;
    const hit = this.copies.get(ev, version);
    if (hit) return hit.state;
    const state = undo(ev, newer, version);
    this.copies.set(ev, version, { state });
    return state;
  }
}

/** `ev` with `newer` (its changes after a head, oldest first) undone; undefined if it did not exist yet. */
function undo(ev: EventState, newer: readonly KeptChange[], version: number): EventState | undefined {
  let info: EventInfo | null = ev.info;
  const prices = new Map<PriceState, PriceState | null>();
  const markets = new Set<MarketState>();
  let infoUndone = false;
  for (const { applied } of newer) {
    if (applied.kind === 'info') {
      if (!infoUndone) {
        info = applied.before;
        infoUndone = true;
      }
    } else {
      if (!prices.has(applied.price)) prices.set(applied.price, applied.before);
      markets.add(applied.market);
    }
  }
  if (!info) return undefined;
  const out: EventState = { info, startMs: Date.parse(info.event_date), markets: new Map(), version };
  for (const [key, m] of ev.markets) out.markets.set(key, markets.has(m) ? undoMarket(m, prices) : m);
  return out;
}

/**
 * The state a price had before the changes undone: with prices rewritten in place, one step (the
 * copy taken is no key); with each change a new object (perf/price-state.ts's plain twin), down the
 * chain of objects the changes replaced.
 */
function priceBefore(prices: ReadonlyMap<PriceState, PriceState | null>, price: PriceState): PriceState | null {
  let was: PriceState | null = price;
  while (was && prices.has(was)) was = prices.get(was)!;
  return was;
}

function undoMarket(m: MarketState, prices: ReadonlyMap<PriceState, PriceState | null>): MarketState {
  const participants = new Map<string, ParticipantState>();
  for (const [key, p] of m.participants) {
    const lines = new Map<string, LineState>();
    // The main line per book as it was, derived from the prices kept: the live map may hold later moves.
    const mainLines = new Map<number, string>();
    for (const [value, line] of p.lines) {
      const kept = new Map<number, PriceState>();
      for (const [book, price] of line.prices) {
        const was = priceBefore(prices, price);
        if (!was) continue;
        kept.set(book, was);
        if (was.is_main_line) mainLines.set(book, value);
      }
      lines.set(value, { id: line.id, value: line.value, prices: kept });
    }
    participants.set(key, { ...p, lines, mainLines });
  }
  return { ...m, participants };
}
