import { randomUUID } from 'node:crypto';
import { eventFromRows, movesLiveState, type ScoreFacts } from '../../domain/event-header.ts';
import {
  CATALOG_EVENT_ID,
  SEASON_EVENT_ID,
  describedMs,
  type EventHeader,
  futuresRowKey,
  isFuturesKind,
  periodOfDetail,
} from '../../changelog/change.ts';
import { chunkOf } from '../compaction-rule.ts';
import {
  compactionKey,
  type CompactResult,
  type CompactStep,
  dropsRow,
  type RetainedLog,
  startAtOf,
} from '../retention.ts';
import {
  type ArchiveCommit,
  type ArchivedEvent,
  type ArchivedMark,
  EPOCH_META,
  type HighestIds,
  type ChangeQuery,
  type ChangeRecord,
  type Commit,
  type EventRecord,
  type LoadedState,
  type LoadOptions,
  type MarketRecord,
  type PayloadBytes,
  type PriceRowSummary,
  rowSource,
  type Store,
} from '../store.ts';
import {
  archivedEventOf,
  PackedCache,
  packRows,
  playsOf,
  priceIdsOf,
  statsOf,
  unpackRowsSync,
} from '../packed-rows.ts';

/** What MemoryHistoryStore reads of a MemoryStore: its price rows, each from the narrowest index. */
export interface MemoryPriceRows {
  /** The price rows of an event, or of one market of it, with ids at or below `uptoId`, newest first. */
  eventPriceRows(eventId: string, marketId: number | undefined, uptoId: number): Iterable<Readonly<ChangeRecord>>;
  /** Every row of one price, oldest first. */
  priceRows(priceId: number): readonly Readonly<ChangeRecord>[];
}

/** The index of the first row of an id-ordered list whose id is above `id` (the length when none is). */
export function indexAbove(rows: readonly { readonly id: number }[], id: number): number {
  let lo = 0;
  let hi = rows.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    // lo <= mid < hi <= rows.length
    if (rows[mid]!.id <= id) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * The store of a server run without a data directory, and of tests: the log in an id-ordered array
 * with per-event, per-market and per-price indexes of the same row objects. Nothing survives the process.
 * Rows are copied in and out, so neither the committer nor a reader can change what is kept.
 */
export class MemoryStore implements Store, MemoryPriceRows {
  /** A fill is running: the contract allows one at a time. */
  private filling = false;
  private readonly changes: ChangeRecord[] = [];
  /** Every row of an event, of any kind, in id order. */
  private readonly byEvent = new Map<string, ChangeRecord[]>();
  /** The price rows of each market id of an event, in id order (the chart of one market). */
  private readonly byEventMarket = new Map<string, Map<number, ChangeRecord[]>>();
  /** The rows of each price, in id order: the last one is its current state. */
  private readonly byPrice = new Map<number, ChangeRecord[]>();
  private readonly events = new Map<string, EventRecord>();
  private readonly markets = new Map<number, MarketRecord>();
  /** One market instance per event, market id and period, as the SQLite schema's unique key. */
  private readonly marketKeys = new Set<string>();
  private readonly meta = new Map<string, string>();
  /** Named batches (Commit.batch) and the head each left. */
  private readonly batches = new Map<string, number>();
  /** Ids of the futures boards (their rows are in byEvent). */
  private readonly futuresBoards = new Set<string>();
  /** Archived events, and the season totals of their games. */
  /** Archived events, with the time each was archived. */
  private readonly archived = new Map<string, number>();
  private readonly seasonTotals = new Map<string, string>();
  /** Every row with an id at or above this is kept; every row whose `at` is at or after `retainedSince`. */
  private retainedFrom = 1;
  private retainedSince: number | undefined;
  /** Archived events waiting to be packed, with their last row's id (see packed-rows.ts). */
  private readonly pending = new Map<string, number>();
  /** Packed events' records, the event of each of their prices, and the records read last. */
  private readonly packed = new Map<string, Buffer>();
  private readonly packedPrices = new Map<number, string>();
  private readonly unpacked = new PackedCache();

  async load(uptoId?: number, opts: LoadOptions = {}): Promise<LoadedState> {
    const head = this.changes.at(-1);
    const live = (r: { event_id: string }) => !this.archived.has(r.event_id);
    const markets = [...this.markets.values()]
      .filter(live)
      .sort((a, b) => a.id - b.id)
      .map((m) => ({ ...m }));
    const archived = {
      events: [...this.archived.keys()]
        .map((id) => this.events.get(id))
        .filter((e): e is EventRecord => e !== undefined && e.event_date >= (opts.archivedSince ?? ''))
        .map((e) => ({ ...e })),
      seasonTotals: [...this.seasonTotals]
        .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
        .map(([key, body]) => ({ key, body })),
    };
    const prices = [...this.byPrice.keys()].sort((a, b) => a - b).map((id) => this.byPrice.get(id)!);
    if (uptoId !== undefined && head !== undefined && uptoId < head.id) {
      const asOf = opts.asOfOnly && new Set(opts.asOfOnly);
      // Where each event is loaded up to: `uptoId`, or the head for an event not listed in `asOfOnly`.
      const upto = (eventId: string) => (asOf === undefined || asOf.has(eventId) ? uptoId : head.id);
      const last = (rows: readonly ChangeRecord[], id: number) => rows[indexAbove(rows, id) - 1];
      const latestPrices: ChangeRecord[] = [];
      for (const rows of prices) {
        const row = last(rows, upto(rows[0]!.event_id));
        if (row && live(row)) latestPrices.push({ ...row });
      }
      return {
        epoch: this.epoch(),
        // The events not listed as the head's event records have them, as a load of the head.
        events: [
          ...[...this.byEvent].flatMap(([eventId, rows]) =>
            asOf?.has(eventId) === false ? [] : this.eventUpTo(rows, uptoId),
          ),
          ...[...this.events.values()].filter((e) => asOf?.has(e.event_id) === false).map((e) => ({ ...e })),
        ].filter(live),
        markets,
        latestPrices: rowSource(latestPrices),
        // Packed prices were written below the retained boundary, which is below any replayed head.
        maxPriceId: prices.reduce(
          (a, rows) => (rows[0]!.id <= upto(rows[0]!.event_id) ? Math.max(a, rows[0]!.price_id!) : a),
          this.maxPackedPriceId(),
        ),
        futures: this.futuresUpTo(upto),
        catalog: this.catalogRows(),
        seasonRecords: this.seasonRows(),
        headId: uptoId,
        headCommittedMs: last(this.changes, uptoId)?.committed_ms ?? 0,
        ...this.games(upto),
        archived,
      };
    }
    return {
      epoch: this.epoch(),
      events: [...this.events.values()].filter(live).map((e) => ({ ...e })),
      markets,
      latestPrices: rowSource(
        prices
          .map((rows) => rows.at(-1)!)
          .filter(live)
          .map((r) => ({ ...r })),
      ),
      // Archived prices count too: a new price must not take the id of one that left the board.
      maxPriceId: [...this.byPrice.keys()].reduce((a, b) => Math.max(a, b), this.maxPackedPriceId()),
      futures: this.futuresUpTo(() => head?.id ?? 0),
      catalog: this.catalogRows(),
      seasonRecords: this.seasonRows(),
      headId: head?.id ?? 0,
      headCommittedMs: head?.committed_ms ?? 0,
      ...this.games(() => head?.id ?? 0),
      archived,
    };
  }

  /** Play counts and stat rows, each event's up to `upto` of it. */
  private games(upto: (eventId: string) => number): Pick<LoadedState, 'playCounts' | 'statRows'> {
    const playCounts: LoadedState['playCounts'] = [];
    const statRows: ChangeRecord[] = [];
    for (const [eventId, rows] of this.byEvent) {
      if (this.archived.has(eventId)) continue;
      let plays = 0;
      // Each value's newest row, kept in the place of its first (the box's order of players and stats).
      const newest = new Map<string, ChangeRecord>();
      const first = new Map<string, ChangeRecord>();
      const uptoId = upto(eventId);
      for (let i = 0; i < rows.length; i++) {
        const r = rows[i]!;
        if (r.id > uptoId) break;
        if (r.kind === 'play') plays++;
        else if (r.kind === 'stat') {
          const key = statValueKey(r.payload);
          if (!first.has(key)) first.set(key, r);
          newest.set(key, r);
        }
      }
      for (const [key, row] of newest) statRows.push(namedAsFirst(row, first.get(key)!));
      if (plays > 0) playCounts.push({ event_id: eventId, plays });
    }
    return { playCounts, statRows: rowSource(statRows) };
  }

  private maxPackedPriceId(): number {
    let max = 0;
    for (const id of this.packedPrices.keys()) if (id > max) max = id;
    return max;
  }

  /** Every row of an event in id order: from its record once packed, else from the log. */
  private rowsOf(eventId: string): readonly ChangeRecord[] {
    const body = this.packed.get(eventId);
    if (body === undefined) return this.byEvent.get(eventId) ?? [];
    return this.unpacked.get(eventId, () => unpackRowsSync(eventId, body)) ?? [];
  }

  async readPlays(eventId: string, fromSequence: number, toSequence: number): Promise<Buffer> {
    return playsOf(this.rowsOf(eventId), fromSequence, toSequence);
  }

  async readStats(eventId: string, uptoId: number): Promise<ChangeRecord[]> {
    return statsOf(this.rowsOf(eventId), uptoId);
  }

  /** Every catalog row, in id order (they share one event id). */
  private catalogRows(): ChangeRecord[] {
    return (this.byEvent.get(CATALOG_EVENT_ID) ?? []).map((r) => ({ ...r }));
  }

  /** Every season row, in id order (they share one event id). */
  private seasonRows(): ChangeRecord[] {
    return (this.byEvent.get(SEASON_EVENT_ID) ?? []).map((r) => ({ ...r }));
  }

  /** The newest futures row of each key of every board, up to `uptoId`, in id order. */
  private futuresUpTo(upto: (boardId: string) => number): ChangeRecord[] {
    const out: ChangeRecord[] = [];
    for (const boardId of this.futuresBoards) {
      const latest = new Map<string, ChangeRecord>();
      const rows = this.byEvent.get(boardId)!;
      for (let i = indexAbove(rows, upto(boardId)) - 1; i >= 0; i--) {
        const r = rows[i]!;
        const key = futuresRowKey(r);
        if (!latest.has(key)) latest.set(key, r);
      }
      for (const r of latest.values()) out.push({ ...r });
    }
    return out.sort((a, b) => a.id - b.id);
  }

  /** An event as its last header and score rows up to `uptoId` left it; none before its first header. */
  private eventUpTo(rows: readonly ChangeRecord[], uptoId: number): EventRecord[] {
    let header: ChangeRecord | undefined;
    let score: ScoreFacts | undefined;
    let scoreId = 0;
    let live: ScoreFacts | undefined;
    for (let i = indexAbove(rows, uptoId) - 1; i >= 0 && !(header && score && live); i--) {
      const r = rows[i]!;
      if (r.kind === 'event') header ??= r;
      else if (r.kind === 'score' && !(score && live)) {
        const facts = JSON.parse(r.payload) as ScoreFacts;
        if (!score) {
          score = facts;
          scoreId = r.id;
        }
        if (!live && movesLiveState(facts)) live = facts;
      }
    }
    if (!header) return [];
    const info = eventFromRows(JSON.parse(header.payload) as EventHeader, live, score);
    return [
      {
        event_id: header.event_id,
        sport_id: header.sport_id,
        event_date: String(info.event_date),
        info: JSON.stringify(info),
        change_id: Math.max(header.id, scoreId),
      },
    ];
  }

  private epoch(): string {
    let epoch = this.meta.get(EPOCH_META);
    if (epoch === undefined) {
      epoch = randomUUID();
      this.meta.set(EPOCH_META, epoch);
    }
    return epoch;
  }

  async commit(commit: Commit): Promise<void> {
    const rows = commit.changes.map((r) => ({ ...r })).sort((a, b) => a.id - b.id);
    // Everything is checked before anything is written: a refused batch leaves no trace.
    this.checkIds(rows);
    this.checkMarkets(commit.markets);
    if (commit.batch && this.batches.has(commit.batch.id)) throw new Error(`batch ${commit.batch.id} is already kept`);
    for (const r of rows) this.append(r);
    if (commit.batch) this.batches.set(commit.batch.id, commit.batch.headId);
    for (const m of commit.markets) {
      this.markets.set(m.id, { ...m });
      this.marketKeys.add(marketKey(m));
    }
    for (const e of commit.events) this.events.set(e.event_id, { ...e });
  }

  /** Ids rise above the head, each once: a reader holding the head as its cursor never misses a row. */
  private checkIds(sorted: readonly ChangeRecord[]): void {
    const head = this.changes.at(-1)?.id ?? 0;
    let previous = head;
    for (const r of sorted) {
      if (!Number.isSafeInteger(r.id)) throw new Error(`change id ${r.id} is not an integer`);
      if (r.id <= head) throw new Error(`change id ${r.id} is not above the head ${head}`);
      if (r.id === previous) throw new Error(`change id ${r.id} appears twice in the batch`);
      previous = r.id;
    }
  }

  private checkMarkets(markets: readonly MarketRecord[]): void {
    const ids = new Set<number>();
    const keys = new Set<string>();
    for (const m of markets) {
      const key = marketKey(m);
      if (this.markets.has(m.id) || ids.has(m.id)) {
        throw new Error(`market instance ${m.id} is already stored`);
      }
      if (this.marketKeys.has(key) || keys.has(key)) {
        throw new Error(`event ${m.event_id} already has market ${m.market_id} of period ${m.period_id}`);
      }
      ids.add(m.id);
      keys.add(key);
    }
  }

  private append(r: ChangeRecord): void {
    this.changes.push(r);
    listIn(this.byEvent, r.event_id).push(r);
    if (isFuturesKind(r.kind)) this.futuresBoards.add(r.event_id);
    if (r.price_id === null) return;
    listIn(this.byPrice, r.price_id).push(r);
    if (r.market_id === null) return;
    let markets = this.byEventMarket.get(r.event_id);
    if (!markets) {
      markets = new Map();
      this.byEventMarket.set(r.event_id, markets);
    }
    listIn(markets, r.market_id).push(r);
  }

  async readChanges(q: ChangeQuery): Promise<ChangeRecord[]> {
    const out: ChangeRecord[] = [];
    for (const r of this.matching(q)) {
      if (out.length === q.limit) break;
      out.push({ ...r });
    }
    return out;
  }

  async readPayloadBytes(q: ChangeQuery): Promise<PayloadBytes> {
    const payloads: string[] = [];
    let lastRowId = 0;
    let more = false;
    for (const r of this.matching(q)) {
      if (payloads.length === q.limit) {
        more = true;
        break;
      }
      payloads.push(r.payload);
      lastRowId = r.id;
    }
    return { bytes: Buffer.from(payloads.join(','), 'utf8'), count: payloads.length, lastRowId, more };
  }

  /** The rows a change query matches, in id order, read lazily so a page stops where its limit does. */
  private *matching(q: ChangeQuery): Generator<ChangeRecord> {
    // A read of one event walks that event's rows only.
    const rows = q.eventId === undefined ? this.changes : (this.byEvent.get(q.eventId) ?? []);
    // An empty list matches nothing, and a row without the column never matches.
    const affiliates = q.affiliateIds ? new Set<number | null>(q.affiliateIds) : undefined;
    const markets = q.marketIds ? new Set<number | null>(q.marketIds) : undefined;
    const periods = q.periodIds ? new Set<number>(q.periodIds) : undefined;
    const events = q.eventIds ? new Set<string>(q.eventIds) : undefined;
    for (let i = indexAbove(rows, q.afterId); i < rows.length; i++) {
      const r = rows[i]!;
      if (r.id > q.toId) break;
      if (q.pricesOnly && r.price_id === null) continue;
      if (q.sportId !== undefined && r.sport_id !== q.sportId) continue;
      if (affiliates && !affiliates.has(r.affiliate_id)) continue;
      if (events && !events.has(r.event_id)) continue;
      if (markets && !markets.has(r.market_id)) continue;
      if (periods && (r.price_id === null || !periods.has(periodOfDetail(r.detail)))) continue;
      yield r;
    }
  }

  async scanPriceRows(afterId: number, toId: number, each: (row: PriceRowSummary) => void): Promise<void> {
    const rows = this.changes;
    for (let i = indexAbove(rows, afterId); i < rows.length; i++) {
      const r = rows[i]!;
      if (r.id > toId) break;
      if (r.price_id === null) continue;
      each({
        id: r.id,
        sport_id: r.sport_id,
        event_id: r.event_id,
        affiliate_id: r.affiliate_id,
        market_id: r.market_id,
        period_id: periodOfDetail(r.detail),
        payload: r.payload,
      });
    }
  }

  /** Nothing to group: every commit is kept at once. */
  async fill<T>(run: () => Promise<T>): Promise<T> {
    if (this.filling) throw new Error('a fill is already running');
    this.filling = true;
    try {
      return await run();
    } finally {
      this.filling = false;
    }
  }

  async committedMsAt(id: number): Promise<number | undefined> {
    return this.changes[indexAbove(this.changes, id) - 1]?.committed_ms;
  }

  async firstIdCommittedSince(ms: number): Promise<number | undefined> {
    return this.firstIdFrom(ms, (row) => row.committed_ms);
  }

  async firstIdDescribedSince(ms: number): Promise<number | undefined> {
    // Described times need not ascend along the ids; commit times do, and bound the walk.
    const from = this.firstIdFrom(ms, (r) => r.committed_ms);
    if (from === undefined) return undefined;
    return this.changes.find((r) => r.id >= from && describedMs(r) >= ms)?.id;
  }

  async eventsDescribedSince(ms: number, fromId: number, toId: number): Promise<string[]> {
    const events = new Set<string>();
    for (let i = indexAbove(this.changes, fromId - 1); i < this.changes.length; i++) {
      const r = this.changes[i]!;
      if (r.id > toId) break;
      if (describedMs(r) >= ms) events.add(r.event_id);
    }
    return [...events];
  }

  private firstIdFrom(ms: number, timeOf: (row: ChangeRecord) => number): number | undefined {
    // The time never decreases along the ids, so the rows are sorted by it too.
    const rows = this.changes;
    let lo = 0;
    let hi = rows.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (timeOf(rows[mid]!) < ms) lo = mid + 1;
      else hi = mid;
    }
    return rows[lo]?.id;
  }

  async compact(step: CompactStep): Promise<CompactResult> {
    const head = this.changes.at(-1)?.id ?? 0;
    const bound = (await this.firstIdCommittedSince(step.cutoffMs)) ?? head + 1;
    const next = this.changes[indexAbove(this.changes, this.retainedFrom - 1)]?.id;
    const { from, end } = chunkOf(this.retainedFrom, next, bound, step.maxRows);
    this.retainedFrom = from;
    if (end <= from) return { scanned: 0, dropped: 0, oldestId: from, more: await this.packOne() };
    const cutoffAt = new Date(step.cutoffMs).toISOString();
    // Each key of the chunk, with all its rows below the chunk's end (what earlier steps kept too).
    const keys = new Map<string, ChangeRecord[]>();
    for (let i = indexAbove(this.changes, from - 1); i < this.changes.length; i++) {
      const r = this.changes[i]!;
      if (r.id >= end) break;
      const key = compactionKey(r);
      if (key === undefined || keys.has(key)) continue;
      const family = r.price_id !== null ? this.byPrice.get(r.price_id)! : this.byEvent.get(r.event_id)!;
      keys.set(
        key,
        family.filter((x) => compactionKey(x) === key),
      );
    }
    const gone = new Set<number>();
    for (const rows of keys.values()) {
      for (const [i, r] of rows.entries()) {
        if (r.id >= end) break;
        const newer = rows.slice(i + 1);
        const date = r.kind === 'price' ? this.events.get(r.event_id)?.event_date : undefined;
        const startAt = date === undefined ? undefined : startAtOf(date);
        const drop = dropsRow(r, {
          cutoffAt,
          superseded: newer.some((x) => x.id < bound),
          first: i === 0,
          startAt,
          laterBeforeStart: startAt !== undefined && newer.some((x) => x.at <= startAt),
        });
        if (drop) gone.add(r.id);
      }
    }
    if (gone.size > 0) this.forget(gone);
    this.retainedFrom = end;
    if (gone.size > 0) this.retainedSince = Math.max(this.retainedSince ?? 0, step.cutoffMs);
    const morePacks = await this.packOne();
    return { scanned: end - from, dropped: gone.size, oldestId: end, more: end < bound || morePacks };
  }

  /**
   * Packs one archived event whose rows all lie below the retained boundary and the head (the head
   * row stays in the log: ids continue from it). Returns whether another one waits.
   */
  private async packOne(): Promise<boolean> {
    const limit = Math.min(this.retainedFrom, this.changes.at(-1)?.id ?? 0);
    const ready = [...this.pending].filter(([, lastId]) => lastId < limit).map(([eventId]) => eventId);
    const eventId = ready[0];
    if (eventId === undefined) return false;
    const rows = [...(this.byEvent.get(eventId) ?? [])];
    // A row of the event committed since it was archived (the ledger refuses them) waits for the boundary.
    if ((rows.at(-1)?.id ?? 0) >= limit) {
      this.pending.set(eventId, rows.at(-1)!.id);
      return ready.length > 1;
    }
    const body = await packRows(rows);
    // Or one committed while it was compressed.
    const last = this.byEvent.get(eventId)?.at(-1)?.id ?? 0;
    if (last !== (rows.at(-1)?.id ?? 0)) {
      this.pending.set(eventId, last);
      return ready.length > 1;
    }
    this.packed.set(eventId, body);
    for (const priceId of priceIdsOf(rows)) {
      this.packedPrices.set(priceId, eventId);
      this.byPrice.delete(priceId);
    }
    const gone = new Set(rows.map((r) => r.id));
    removeFrom(this.changes, (r) => gone.has(r.id));
    this.byEvent.delete(eventId);
    this.byEventMarket.delete(eventId);
    this.pending.delete(eventId);
    return ready.length > 1;
  }

  /** Takes the rows of `ids` out of the log and of every index. */
  private forget(ids: ReadonlySet<number>): void {
    const keep = (r: ChangeRecord) => !ids.has(r.id);
    const events = new Set<string>();
    const prices = new Set<number>();
    for (const r of this.changes) {
      if (!ids.has(r.id)) continue;
      events.add(r.event_id);
      if (r.price_id !== null) prices.add(r.price_id);
    }
    removeFrom(this.changes, (r) => !keep(r));
    for (const id of events) {
      this.byEvent.set(id, this.byEvent.get(id)!.filter(keep));
      const markets = this.byEventMarket.get(id);
      if (markets) for (const [m, rows] of markets) markets.set(m, rows.filter(keep));
    }
    for (const id of prices) this.byPrice.set(id, this.byPrice.get(id)!.filter(keep));
  }

  async retained(): Promise<RetainedLog> {
    return { oldestId: this.retainedFrom, sinceMs: this.retainedSince };
  }

  async archive(commit: ArchiveCommit): Promise<void> {
    for (const id of commit.eventIds) {
      if (this.archived.has(id)) continue;
      this.archived.set(id, commit.archivedMs);
      this.pending.set(id, this.byEvent.get(id)?.at(-1)?.id ?? 0);
    }
    for (const t of commit.seasonTotals) this.seasonTotals.set(t.key, t.body);
  }

  async highestIds(): Promise<HighestIds> {
    let priceId = this.maxPackedPriceId();
    for (const id of this.byPrice.keys()) if (id > priceId) priceId = id;
    let marketId = 0;
    for (const id of this.markets.keys()) if (id > marketId) marketId = id;
    return { priceId, marketId };
  }

  async archivedSince(ms: number): Promise<ArchivedMark[]> {
    return [...this.archived]
      .filter(([, at]) => at >= ms)
      .map(([eventId, archivedMs]) => ({ eventId, archivedMs }))
      .sort((a, b) => a.archivedMs - b.archivedMs);
  }

  async readArchivedEvent(eventId: string): Promise<ArchivedEvent | undefined> {
    const event = this.events.get(eventId);
    if (!event || !this.archived.has(eventId)) return undefined;
    const markets = [...this.markets.values()].filter((m) => m.event_id === eventId).sort((a, b) => a.id - b.id);
    return archivedEventOf(
      event,
      markets.map((m) => ({ ...m })),
      this.rowsOf(eventId),
    );
  }

  async batchHead(batchId: string): Promise<number | undefined> {
    return this.batches.get(batchId);
  }

  async lastRowId(): Promise<number> {
    return this.changes.at(-1)?.id ?? 0;
  }

  async rowCount(): Promise<number> {
    return this.changes.length;
  }

  async getMeta(key: string): Promise<string | undefined> {
    return this.meta.get(key);
  }

  async setMeta(key: string, value: string): Promise<void> {
    this.meta.set(key, value);
  }

  /** Holds no handle or file: the data lives as long as the object does. */
  async close(): Promise<void> {}

  *eventPriceRows(eventId: string, marketId: number | undefined, uptoId: number): Iterable<Readonly<ChangeRecord>> {
    if (this.packed.has(eventId)) {
      const rows = this.rowsOf(eventId);
      for (let i = indexAbove(rows, uptoId) - 1; i >= 0; i--) {
        const r = rows[i]!;
        if (r.price_id !== null && (marketId === undefined || r.market_id === marketId)) yield r;
      }
      return;
    }
    const rows = marketId === undefined ? this.byEvent.get(eventId) : this.byEventMarket.get(eventId)?.get(marketId);
    if (!rows) return;
    for (let i = indexAbove(rows, uptoId) - 1; i >= 0; i--) {
      const r = rows[i]!;
      if (r.price_id !== null) yield r;
    }
  }

  priceRows(priceId: number): readonly Readonly<ChangeRecord>[] {
    const packedIn = this.packedPrices.get(priceId);
    if (packedIn !== undefined) return this.rowsOf(packedIn).filter((r) => r.price_id === priceId);
    return this.byPrice.get(priceId) ?? [];
  }
}

function marketKey(m: MarketRecord): string {
  return `${m.event_id} ${m.market_id} ${m.period_id}`;
}

/** Removes the rows `drop` picks from `rows` in place (a spread of a long log would overflow the stack). */
function removeFrom(rows: ChangeRecord[], drop: (r: ChangeRecord) => boolean): void {
  let kept = 0;
  for (const r of rows) if (!drop(r)) rows[kept++] = r;
  rows.length = kept;
}

function listIn<K>(index: Map<K, ChangeRecord[]>, key: K): ChangeRecord[] {
  let list = index.get(key);
  if (!list) {
    list = [];
    index.set(key, list);
  }
  return list;
}

/**
 * A value's newest row, carrying the player's name and position when its first row said them: a
 * player is named once, on the first value credited, so the newest row alone would lose the name.
 */
function namedAsFirst(newest: ChangeRecord, first: ChangeRecord): ChangeRecord {
  if (newest === first) return { ...newest };
  const said = JSON.parse(first.payload) as { display_name?: string; position?: string };
  if (said.display_name === undefined) return { ...newest };
  const v = JSON.parse(newest.payload) as Record<string, unknown>;
  return { ...newest, payload: JSON.stringify({ ...v, display_name: said.display_name, position: said.position }) };
}

/** Which box-score value a stat row sets: its team, player (none for a team's line) and stat. */
function statValueKey(payload: string): string {
  const v = JSON.parse(payload) as { team_id: number; player_id?: number; stat_id: number };
  return `${v.team_id}|${v.player_id ?? ''}|${v.stat_id}`;
}
