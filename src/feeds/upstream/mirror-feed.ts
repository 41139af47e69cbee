import {
  EventDeltaConsumer,
  type EventsEnvelope,
  type Event,
  ForbiddenError,
  MarketsDeltaConsumer,
  type OddsbaseClient,
  RateLimitError,
  type Reply,
  type WebSocketConstructor,
} from '../../../packages/client/src/index.ts';
import type { Board } from '../../board/board.ts';
import type { LedgerSink, Update } from '../../ledger/updates.ts';
import type { Feed } from '../feed.ts';
import type { DailyBudget } from './budget.ts';
import { removalsOf, upstreamCatalog } from './catalog-records.ts';
import { GameReads } from './game-reads.ts';
import { inGroups } from './groups.ts';
import { extrasOf, heldSince } from './held-prices.ts';
import { type FollowMode, PriceFollow } from './price-follow.ts';
import { PriceStream } from './price-stream.ts';
import { type QuietMove, QuietRows } from './quiet-rows.ts';
import { SeasonReads } from './season-reads.ts';
import { sleep } from './sleep.ts';
import { fillExtras } from './row-extras.ts';
import { batchesOf, byTime, eventRecord, futuresRecords, priceRecords, scoreRecord, type Timed } from './records.ts';

/** The longest wait after a failure before the upstream is asked again. */
const MAX_BACKOFF_MS = 30_000;
const DAY_MS = 86_400_000;

/** How the mirror stands with its upstream: what /readyz and the metrics say. */
export interface UpstreamState {
  /** The last exchange with the upstream succeeded. */
  up: boolean;
  /** The first catch-up is done: the mirror holds the upstream's days. */
  caughtUp: boolean;
  /** Why it is not following, when it is not (unreachable, a cap, the budget). */
  problem: string | undefined;
  /** Epoch ms of the last poll that read the upstream to its head. */
  lastSyncMs: number;
  /** Prices come through the upstream's WebSocket stream (else by polling the markets delta). */
  streaming: boolean;
}

export interface MirrorOptions {
  client: OddsbaseClient;
  /**
   * The client of the season reads, beside the follow: its requests yield to `client`'s in the one
   * pacer (`RequestPacer.wrap`, `yielding`) and its points are counted as read beside the follow.
   */
  seasonClient: OddsbaseClient;
  ledger: LedgerSink;
  /** The mirror's own board: which events and prices it holds (read, never written). */
  board: Board;
  budget: DailyBudget;
  pollMs: number;
  /** How often the upstream's catalog is read again once caught up (`--upstream-catalog-ms`). */
  catalogMs: number;
  /** How often a team whose game changed has its season read again (`--upstream-season-ms`). */
  seasonMs: number;
  /** How prices are followed (`--upstream-mode`, default `auto`); a stream needs `WebSocket`. */
  mode?: FollowMode;
  /** `ws`'s WebSocket: Node 20 has none of its own. */
  WebSocket?: WebSocketConstructor;
  now?: () => number;
  onError?: (err: unknown) => void;
  /** Lines for the server's log (the stream followed, or fallen back from). */
  log?: (level: 'info' | 'warn', line: string) => void;
}

/**
 * The upstream mirror (`--feed upstream`): takes another server's catalog-independent snapshots of
 * yesterday and today (events, every market of every period, openers, closing, futures, and the
 * plays and box scores of started events through `GameReads`), hands them
 * to the ledger as the ingest records with the upstream's ids, then follows the markets delta and
 * the event delta through the typed client's consumers; the upstream's season aggregates are read
 * beside the follow, in a task of their own (`SeasonReads`). A refused cursor rebuilds from a fresh
 * snapshot (the consumer's resync), so a long outage ends in a snapshot, never a hole; a short one
 * goes on from the cursors held.
 */
export class UpstreamMirror implements Feed {
  readonly state: UpstreamState = {
    up: false,
    caughtUp: false,
    problem: 'not started',
    lastSyncMs: 0,
    streaming: false,
  };
  private readonly stopping = new AbortController();
  private running: Promise<void> | undefined;
  private readonly now: () => number;
  private readonly markets: MarketsDeltaConsumer;
  private readonly changed: EventDeltaConsumer;
  private readonly games: GameReads;
  private readonly seasons: SeasonReads;
  /** The season reads' task, beside the follow: started after the first catch-up, ended by `stop`. */
  private seasonTask: Promise<void> | undefined;
  /** Where price moves come from: the upstream's stream, or polls of the markets delta. */
  private readonly prices: PriceFollow;
  /** Both cursors where everything read up to them is applied (a failure past them starts over). */
  private settled = '';
  /** The merged events of the last snapshot the markets consumer took. */
  private snapshot = new Map<string, Event>();
  private snapshotTaken = false;
  /**
   * The price ids the last snapshot showed with `hide_closed=true`: a snapshot shows no closed_at,
   * so a price it shows only without that filter is closed.
   */
  private snapshotOpen = new Set<string>();
  /** Market ids per sport and day (`sport|date`), in request groups; renewed with each snapshot. */
  private readonly groups = new Map<string, number[][]>();
  /** When the upstream's catalog is due to be read again (epoch ms). */
  private catalogDue = 0;
  /**
   * A cap 429 met by the follow or the season reads: nothing is asked before `untilMs` (epoch ms),
   * for the cap is the key's, whichever request met it.
   */
  private cap: { untilMs: number; problem: string } | undefined;
  /** Books the mirror has handed a price with liquidity or a source id: whose polled rows are checked. */
  private readonly extrasBooks = { any: new Set<number>(), sourceIds: new Set<number>() };

  constructor(private readonly o: MirrorOptions) {
    this.now = o.now ?? Date.now;
    this.markets = new MarketsDeltaConsumer(o.client, {
      scope: { source: (signal) => this.takeSnapshot(signal) },
      limit: 5000,
      // A plan with a data delay (which has no streams) is mirrored as late as it sees the upstream:
      // oddsbase gives such a plan cursors consistent with its delayed board (docs/spec-gaps.md).
      acceptDelayedSnapshot: true,
    });
    this.changed = new EventDeltaConsumer(o.client, { limit: 500 });
    this.games = new GameReads({ client: o.client, ledger: o.ledger, board: o.board, now: this.now });
    this.seasons = new SeasonReads({
      client: o.seasonClient,
      ledger: o.ledger,
      board: o.board,
      rereadMs: o.seasonMs,
      backoffMs: o.pollMs,
      now: this.now,
      holdMs: () => Math.max(o.budget.spent(), this.capLeftMs()),
      capped: (err) => this.capped(err),
      onError: o.onError ?? (() => {}),
      log: o.log ?? (() => {}),
    });
    const mode = o.mode ?? 'auto';
    const stream =
      mode !== 'poll' && o.WebSocket
        ? new PriceStream({
            client: o.client,
            WebSocket: o.WebSocket,
            now: this.now,
            // Each change the stream delivers is metered upstream: one data point.
            onPrice: () => o.budget.count(1),
          })
        : undefined;
    this.prices = new PriceFollow({
      mode,
      markets: this.markets,
      board: o.board,
      stream,
      quiet: new QuietRows(o.client),
      extrasBooks: this.extrasBooks,
      pollMs: o.pollMs,
      now: this.now,
      log: o.log ?? (() => {}),
    });
  }

  start(): void {
    this.running ??= this.run();
  }

  async stop(): Promise<void> {
    this.stopping.abort();
    await this.running;
    await this.seasonTask;
    this.prices.close();
  }

  private get signal(): AbortSignal {
    return this.stopping.signal;
  }

  /**
   * Hands timed updates to the ledger, a batch per run of one time. A stop ends it between two
   * batches (a first catch-up is thousands of them): each is committed whole, and a later start
   * catches up from a fresh snapshot in any case.
   */
  private async commit(items: readonly Timed[]): Promise<void> {
    for (const { update: u } of items) {
      if (u.kind !== 'price') continue;
      if (u.liquidity_usd !== undefined || u.source_id !== undefined) this.extrasBooks.any.add(u.affiliate_id);
      if (u.source_id !== undefined) this.extrasBooks.sourceIds.add(u.affiliate_id);
    }
    for (const b of batchesOf(items)) {
      this.signal.throwIfAborted();
      await this.o.ledger.apply(b);
    }
  }

  private async run(): Promise<void> {
    let failures = 0;
    while (!this.signal.aborted) {
      // Polls start `pollMs` apart (the spacing): the wait is what the poll left of it, so a
      // change is read within one interval of being made, however long a poll takes.
      const began = performance.now();
      let wait = this.o.pollMs;
      try {
        const spent = this.o.budget.spent();
        const capped = this.capLeftMs();
        if (spent > 0) {
          this.prices.close();
          this.state.problem = `the daily budget of ${this.o.budget.perDay} data points is spent; renewed in ${Math.ceil(spent / 1000)} s`;
          wait = spent;
        } else if (capped > 0) {
          // Met by the season reads: the follow waits for the reset too.
          this.state.up = false;
          this.state.problem = this.cap!.problem;
          wait = capped;
        } else {
          const catchingUp = !this.state.caughtUp;
          if (catchingUp) {
            await this.catchUp();
            // Its own task: a team's reads never hold back a turn of the follow.
            this.seasonTask ??= this.seasons.run(this.signal);
          } else await this.follow();
          failures = 0;
          this.state.up = true;
          this.state.problem = this.prices.problem;
          this.state.lastSyncMs = this.now();
          // Right after a catch-up, a turn at once: what changed meanwhile, and the stream opened.
          wait = catchingUp ? 0 : this.o.budget.spacing(this.o.pollMs) - (performance.now() - began);
        }
      } catch (err) {
        if (this.signal.aborted) break;
        failures++;
        this.state.up = false;
        if (err instanceof RateLimitError && err.isCap) {
          // A cap is not lifted by asking again: wait for its period to reset.
          wait = this.capped(err);
          this.state.problem = this.cap!.problem;
        } else {
          wait = Math.max(
            err instanceof RateLimitError ? (err.retryAfterMs ?? 0) : 0,
            Math.min(MAX_BACKOFF_MS, this.o.pollMs * 2 ** Math.min(failures - 1, 5)),
          );
          this.state.problem = `the upstream does not answer: ${err instanceof Error ? err.message : String(err)}`;
        }
        this.o.onError?.(err);
      }
      this.state.streaming = this.prices.streaming;
      // A stream that goes live, or delivers while live, starts a turn at once.
      await (this.prices.rest(wait, this.signal) ?? sleep(wait, this.signal));
    }
  }

  /** Milliseconds until the cap last met resets; 0 or less when none holds. */
  private capLeftMs(): number {
    return (this.cap?.untilMs ?? 0) - this.now();
  }

  /** A cap 429 (the follow's or the season reads'): nothing is asked until it resets. Answers the wait. */
  private capped(err: RateLimitError): number {
    const wait = err.retryAfterMs ?? DAY_MS - (this.now() % DAY_MS);
    this.cap = {
      untilMs: this.now() + wait,
      problem: `the upstream's ${err.kind.replace('_', ' ')} is reached; asking again in ${Math.ceil(wait / 1000)} s`,
    };
    return wait;
  }

  /** The first catch-up: both cursors, then the snapshot handed to the ledger. */
  private async catchUp(): Promise<void> {
    // The sweep starts again once this one is done, from the teams of the games it brings.
    this.seasons.clear();
    // A metered answer first (the event delta's head, no rows): it names the key's per-second
    // ceiling (X-Rate-Limit) before the catalog's hundreds of requests, whose answers may not (the
    // client's pacer, compose.ts).
    await this.o.client.eventDelta({}, { signal: this.signal });
    await this.applyCatalog();
    // The event cursor first: changes made while the snapshot is read come again, whole.
    await this.changed.bootstrap(this.signal);
    await this.markets.bootstrap(this.signal);
    await this.applySnapshot();
    this.seasons.all();
    this.state.caughtUp = true;
  }

  /**
   * The upstream's catalog (sports, books, market definitions, stat definitions, teams, rosters),
   * before the events naming it: what is new or changed (the ledger writes no row for a record equal
   * to the one held), then a removal of each key the mirror holds that the upstream no longer lists.
   */
  private async applyCatalog(): Promise<void> {
    const at = new Date(this.now()).toISOString();
    // Due again in an interval even if this read fails: a failing catalog route must not stop every turn.
    this.catalogDue = this.now() + this.o.catalogMs;
    const held = this.o.board.catalog;
    const records = await upstreamCatalog(this.o.client, held, this.signal);
    records.push(...removalsOf(held, records));
    await this.commit(records.map((record) => ({ at, update: { kind: 'catalog' as const, record } })));
  }

  /**
   * One poll of both deltas. A failure once a cursor has moved (a page read and not yet applied, a
   * refused batch) leaves rows the mirror may not have: the next turn catches up from a fresh snapshot.
   */
  private async follow(): Promise<void> {
    // Read apart from a poll's cost: the catalog changes seldom, and oddsbase meters it at 0 points.
    if (this.now() >= this.catalogDue) await this.applyCatalog();
    this.settled = this.cursors;
    try {
      await this.followOnce();
    } catch (err) {
      if (this.cursors !== this.settled) this.state.caughtUp = false;
      throw err;
    }
  }

  private get cursors(): string {
    return `${this.markets.cursor}|${this.changed.cursor}`;
  }

  /**
   * The price moves of a turn (streamed, or polled), then the event delta when it is due. Events
   * the mirror cannot place a move of are read whole.
   */
  private async followOnce(): Promise<void> {
    const before = this.o.budget.usedToday;
    // The season reads' points while it runs are not its own: `polled` adds every one since the last poll.
    const beside = this.o.budget.beside;
    const prices = await this.prices.turn(this.signal);
    if (prices.resynced) {
      // The cursor was too far behind: the consumer took a fresh snapshot, which replaces ours.
      await this.applySnapshot();
    }
    const reread = new Set<string>();
    const timed: { eventId: string; t: Timed; extras: boolean }[] = [];
    for (const { eventId, record, extras } of prices.moves) {
      // An event the mirror does not hold is another day's: the event delta brings it if it is ours.
      if (!this.o.board.events.has(eventId)) continue;
      if (record) timed.push({ eventId, t: record, extras });
      else reread.add(eventId);
    }
    const kept = timed.filter((x) => !reread.has(x.eventId));
    // Polled rows carry no extras: those of books with them are read before they are written.
    await fillExtras(
      this.o.client,
      this.o.board,
      kept.filter((x) => x.extras),
      this.now(),
      this.signal,
    );
    // In cursor order, a batch per run of one time.
    await this.commit(kept.map((x) => x.t));
    await this.readQuiet(prices.quiet, reread);
    this.prices.quietApplied();
    // Every move read is applied: a failure of the event delta after this loses none of them.
    if (reread.size === 0) this.settled = this.cursors;
    if (!this.prices.eventsDueNow()) {
      for (const id of reread) await this.reread(id);
      return;
    }
    const events = await this.changed.poll(this.signal);
    const headers: Timed[] = [];
    const from = this.dates()[0]!;
    for (const e of events.events) {
      if (!this.o.board.events.has(e.event_id)) {
        // New to the mirror: taken whole when it is of the mirrored days or later.
        if (e.event_date.slice(0, 10) >= from) reread.add(e.event_id);
      } else if (!reread.has(e.event_id)) headers.push(...this.headerOf(e), ...extrasOf(this.o.board, e));
    }
    await this.commit(headers);
    for (const id of reread) await this.reread(id);
    for (const e of events.events) if (!reread.has(e.event_id)) await this.games.mirror(e, false, this.signal);
    this.seasons.gamesChanged(events.events.flatMap((e) => e.teams.map((t) => t.team_id)));
    this.o.budget.polled(this.o.budget.usedToday - before - (this.o.budget.beside - beside));
    this.prices.eventsPolled(this.o.budget.spacing(this.o.pollMs));
  }

  /**
   * Reads again the markets the rows read beside the stream name, where a price may have moved only
   * its liquidity or source id (the stream sends nothing for them) or moved without its source id
   * (a frame carries none), each event's in groups of 12, and hands on the extras that differ from
   * those held (`extrasOf`). Events read whole are left out: their read brings them.
   */
  private async readQuiet(quiet: readonly QuietMove[], reread: ReadonlySet<string>): Promise<void> {
    const byEvent = new Map<string, Set<number>>();
    for (const { eventId, marketId } of quiet) {
      if (reread.has(eventId) || !this.o.board.events.has(eventId)) continue;
      let ids = byEvent.get(eventId);
      if (!ids) byEvent.set(eventId, (ids = new Set()));
      ids.add(marketId);
    }
    for (const [eventId, ids] of byEvent) {
      const extras: Timed[] = [];
      for (const group of inGroups([...ids])) {
        const q = { market_ids: group, include: ['all_periods'] };
        const events = (await this.o.client.event(eventId, q, { signal: this.signal })).data.events;
        for (const e of events) extras.push(...extrasOf(this.o.board, e));
      }
      await this.commit(extras);
    }
  }

  /** The header and score records of an event, as far as they differ from the mirror's. */
  private headerOf(e: Event): Timed[] {
    const at = new Date(this.now()).toISOString();
    const out: Timed[] = [{ at, update: eventRecord(e) }];
    const score = scoreRecord(e);
    const held = this.o.board.events.get(e.event_id)?.info;
    const same =
      held !== undefined &&
      JSON.stringify(held.score) === JSON.stringify(e.score) &&
      JSON.stringify(held.live_game_state) === JSON.stringify(e.live_game_state);
    if (score && !same) out.push({ at: score.score.updated_at, update: score });
    return out;
  }

  /** Reads one event whole (every market, its openers and closing) and hands it to the ledger. */
  private async reread(eventId: string): Promise<void> {
    const first = await this.o.client.event(eventId, { include: ['all_periods'] }, { signal: this.signal });
    const head = first.data.events[0];
    if (!head) return;
    const defs = (await this.o.client.eventMarkets(eventId, { signal: this.signal })).data;
    const groups = inGroups(defs.map((d) => d.id));
    const events = new Map<string, Event>();
    const openers = new Map<string, Event>();
    const closing = new Map<string, Event>();
    const open = new Set<string>();
    for (const ids of groups) {
      const q = { market_ids: ids, include: ['all_periods'] };
      const signal = this.signal;
      merge(events, (await this.o.client.event(eventId, q, { signal })).data.events);
      merge(openers, (await this.o.client.openers(eventId, q, { signal })).data.events);
      merge(closing, (await this.o.client.closing(eventId, q, { signal })).data.events);
      openIdsOf((await this.o.client.event(eventId, { ...q, hide_closed: true }, { signal })).data.events, open);
    }
    if (groups.length === 0) {
      merge(events, first.data.events);
      openIdsOf(
        (await this.o.client.event(eventId, { include: ['all_periods'], hide_closed: true }, { signal: this.signal }))
          .data.events,
        open,
      );
    }
    await this.applyEvents([...events.values()], [...openers.values()], [...closing.values()], open);
    await this.games.mirror(head, false, this.signal);
  }

  /** The market ids a sport's day prices, in groups a request takes. */
  private async groupsOf(sportId: number, date: string): Promise<number[][]> {
    const key = `${sportId}|${date}`;
    const known = this.groups.get(key);
    if (known) return known;
    const reply = await this.o.client.sportMarketsOn(sportId, date, {}, { signal: this.signal });
    const groups = inGroups(Object.values(reply.data).flatMap((defs) => defs.map((d) => d.id)));
    this.groups.set(key, groups);
    return groups;
  }

  /** The days mirrored: yesterday and today (UTC). */
  private dates(): string[] {
    const today = this.now();
    return [today - DAY_MS, today].map((ms) => new Date(ms).toISOString().slice(0, 10));
  }

  /**
   * The markets consumer's snapshot: every sport's events of the mirrored days, every market in
   * groups, all periods. The replies go to the consumer (its cursor is the oldest of them); the
   * events, merged across the groups, are kept for `applySnapshot`.
   */
  private async takeSnapshot(signal?: AbortSignal): Promise<Reply<EventsEnvelope>[]> {
    const replies: Reply<EventsEnvelope>[] = [];
    const events = new Map<string, Event>();
    this.groups.clear();
    this.snapshotOpen = new Set();
    const sports = (await this.o.client.sports({ signal })).data.sports;
    for (const sport of sports) {
      for (const date of this.dates()) {
        const groups = await this.groupsOf(sport.sport_id, date);
        for (const ids of groups.length > 0 ? groups : [undefined]) {
          const q = { include: ['all_periods'], ...(ids ? { market_ids: ids } : {}) };
          const reply = await this.o.client.events(sport.sport_id, date, q, { signal });
          replies.push(reply);
          merge(events, reply.data.events);
          if (reply.data.events.length > 0) {
            const open = await this.o.client.events(sport.sport_id, date, { ...q, hide_closed: true }, { signal });
            openIdsOf(open.data.events, this.snapshotOpen);
          }
        }
      }
    }
    this.snapshot = events;
    this.snapshotTaken = true;
    return replies;
  }

  /** Hands the last snapshot to the ledger, with each sport's openers, closing and futures. */
  private async applySnapshot(): Promise<void> {
    if (!this.snapshotTaken) return;
    this.snapshotTaken = false;
    const events = [...this.snapshot.values()];
    const openers = new Map<string, Event>();
    const closing = new Map<string, Event>();
    const sports = new Set(events.map((e) => e.sport_id));
    for (const sportId of sports) {
      for (const date of this.dates()) {
        for (const ids of await this.groupsOf(sportId, date)) {
          const q = { market_ids: ids, include: ['all_periods'] };
          merge(openers, (await this.o.client.sportOpeners(sportId, date, q, { signal: this.signal })).data.events);
          merge(closing, (await this.o.client.sportClosing(sportId, date, q, { signal: this.signal })).data.events);
        }
      }
    }
    await this.applyEvents(events, [...openers.values()], [...closing.values()], this.snapshotOpen);
    // Every box is read again: a source may correct a value without a play, which the probe of plays misses.
    for (const e of events) await this.games.mirror(e, true, this.signal);
    const all = (await this.o.client.sports({ signal: this.signal })).data.sports;
    for (const sport of all) await this.applyFutures(sport.sport_id);
  }

  /**
   * Events with their history as far as the upstream tells it: headers and scores first, then each
   * price's opener, its closing and its current state, all of them in time order (openers first at
   * one time, in the upstream's price-id order, which is the order its markets, participants and
   * lines were made in). In time order a main-line move writes its rows when it happened: replayed
   * out of order, a line's flag moved back by an older closing row got a row dated before the line
   * was made, which the mirror's closing then showed and the upstream's did not. A price the mirror
   * already holds takes no state older than the one it holds (an event read again).
   */
  private async applyEvents(
    events: Event[],
    openers: Event[],
    closing: Event[],
    open: ReadonlySet<string>,
  ): Promise<void> {
    const headers: Update[] = [];
    for (const e of events) {
      headers.push(eventRecord(e));
      const score = scoreRecord(e);
      if (score) headers.push(score);
    }
    if (headers.length > 0) await this.o.ledger.apply({ at: new Date(this.now()).toISOString(), updates: headers });
    // Openers and closing of events the snapshot has (a sport's answer read later may have more).
    const ours = (list: Event[]) => list.filter((e) => this.o.board.events.has(e.event_id));
    const current = events.flatMap(priceRecords);
    for (const t of current) {
      if (t.update.kind === 'price') t.update.closed = !open.has(String(t.update.price_id));
    }
    const made = ours(openers)
      .flatMap(priceRecords)
      .sort((a, b) => priceIdOf(a) - priceIdOf(b));
    const steps = byTime([...made, ...ours(closing).flatMap(priceRecords), ...current]).filter(
      (t) => !heldSince(this.o.board, t),
    );
    await this.commit(steps);
  }

  /** A sport's futures boards (every page): headers, prices by time, settlements. */
  private async applyFutures(sportId: number): Promise<void> {
    let cursor: string | undefined;
    const header: Timed[] = [];
    const prices: Timed[] = [];
    const settled: Timed[] = [];
    do {
      let page;
      try {
        page = await this.o.client.futures(
          sportId,
          { include_settled: true, ...(cursor ? { cursor } : {}) },
          { signal: this.signal },
        );
      } catch (err) {
        // A plan without futures (below Ultra) mirrors the rest.
        if (err instanceof ForbiddenError) return;
        throw err;
      }
      const r = futuresRecords(page.data);
      header.push(...r.header);
      prices.push(...r.prices);
      settled.push(...r.settled);
      cursor = page.data.meta.next_cursor ?? undefined;
    } while (cursor);
    await this.commit([...header, ...byTime(prices), ...settled]);
  }
}

/** Adds the price ids `events` show to `into`. */
function openIdsOf(events: readonly Event[], into: Set<string>): void {
  for (const e of events) {
    for (const m of e.markets) {
      for (const p of m.participants)
        for (const l of p.lines) for (const price of Object.values(l.prices)) into.add(price.id);
    }
  }
}

function priceIdOf(t: Timed): number {
  return t.update.kind === 'price' ? (t.update.price_id ?? 0) : 0;
}

/** Adds events to `into`, an event seen again adding the markets it did not have. */
function merge(into: Map<string, Event>, events: readonly Event[]): void {
  for (const e of events) {
    const held = into.get(e.event_id);
    if (!held) {
      into.set(e.event_id, { ...e, markets: [...e.markets] });
      continue;
    }
    const have = new Set(held.markets.map((m) => m.id));
    for (const m of e.markets) if (!have.has(m.id)) held.markets.push(m);
  }
}
