import { randomUUID } from 'node:crypto';
import { futuresRowKey, isFuturesKind, periodOfDetail } from '../../changelog/change.ts';
import {
  EPOCH_META,
  type ChangeQuery,
  type ChangeRecord,
  type Commit,
  type EventRecord,
  type LoadedState,
  type MarketRecord,
  type PayloadBytes,
  type PriceRowSummary,
  type Store,
} from '../store.ts';

/** What MemoryHistoryStore reads of a MemoryStore: its price rows, each from the narrowest index. */
export interface MemoryPriceRows {
  /** The price rows of an event, or of one market of it, with ids at or below `uptoId`, newest first. */
  eventPriceRows(
    eventId: string,
    marketId: number | undefined,
    uptoId: number,
  ): Iterable<Readonly<ChangeRecord>>;
  /** Every row of one price, oldest first. */
  priceRows(priceId: number): readonly Readonly<ChangeRecord>[];
}

/** The index of the first row of an id-ordered list whose id is above `id` (the length when none is). */
export function indexAbove(rows: readonly { readonly id: number }[], id: number): number {
  let lo = 0;
  let hi = rows.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (rows[mid].id <= id) lo = mid + 1;
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
  /** Ids of the futures boards (their rows are in byEvent). */
  private readonly futuresBoards = new Set<string>();

  async load(uptoId?: number): Promise<LoadedState> {
    const head = this.changes.at(-1);
    const markets = [...this.markets.values()].sort((a, b) => a.id - b.id).map((m) => ({ ...m }));
    if (uptoId !== undefined && head !== undefined && uptoId < head.id) {
      const last = (rows: readonly ChangeRecord[]) => rows[indexAbove(rows, uptoId) - 1];
      const latestPrices: ChangeRecord[] = [];
      for (const priceId of [...this.byPrice.keys()].sort((a, b) => a - b)) {
        const row = last(this.byPrice.get(priceId)!);
        if (row) latestPrices.push({ ...row });
      }
      return {
        epoch: this.epoch(),
        events: [...this.byEvent.values()].flatMap((rows) => this.eventUpTo(rows, uptoId)),
        markets,
        latestPrices: rowSource(latestPrices),
        maxPriceId: latestPrices.reduce((a, r) => Math.max(a, r.price_id!), 0),
        futures: this.futuresUpTo(uptoId),
        headId: uptoId,
        headCommittedMs: last(this.changes)?.committed_ms ?? 0,
        ...this.games(uptoId),
      };
    }
    return {
      epoch: this.epoch(),
      events: [...this.events.values()].map((e) => ({ ...e })),
      markets,
      latestPrices: rowSource(
        [...this.byPrice.keys()].sort((a, b) => a - b).map((priceId) => ({ ...this.byPrice.get(priceId)!.at(-1)! })),
      ),
      maxPriceId: [...this.byPrice.keys()].reduce((a, b) => Math.max(a, b), 0),
      futures: this.futuresUpTo(head?.id ?? 0),
      headId: head?.id ?? 0,
      headCommittedMs: head?.committed_ms ?? 0,
      ...this.games(head?.id ?? 0),
    };
  }

  private games(uptoId: number): Pick<LoadedState, 'playCounts' | 'statRows'> {
    const playCounts: LoadedState['playCounts'] = [];
    const statRows: ChangeRecord[] = [];
    for (const [eventId, rows] of this.byEvent) {
      let plays = 0;
      for (let i = 0; i < rows.length && rows[i].id <= uptoId; i++) {
        if (rows[i].kind === 'play') plays++;
        else if (rows[i].kind === 'stat') statRows.push({ ...rows[i] });
      }
      if (plays > 0) playCounts.push({ event_id: eventId, plays });
    }
    return { playCounts, statRows: rowSource(statRows) };
  }

  async readPlays(eventId: string, fromSequence: number, toSequence: number): Promise<Buffer> {
    const out: string[] = [];
    let sequence = 0;
    for (const r of this.byEvent.get(eventId) ?? []) {
      if (r.kind !== 'play') continue;
      sequence++;
      if (sequence > toSequence) break;
      if (sequence >= fromSequence) out.push(r.payload);
    }
    return Buffer.from(out.reverse().join(','), 'utf8');
  }

  async readStats(eventId: string, uptoId: number): Promise<ChangeRecord[]> {
    const rows = this.byEvent.get(eventId) ?? [];
    const out: ChangeRecord[] = [];
    for (let i = 0; i < rows.length && rows[i].id <= uptoId; i++) if (rows[i].kind === 'stat') out.push({ ...rows[i] });
    return out;
  }

  /** The newest futures row of each key of every board, up to `uptoId`, in id order. */
  private futuresUpTo(uptoId: number): ChangeRecord[] {
    const out: ChangeRecord[] = [];
    for (const boardId of this.futuresBoards) {
      const latest = new Map<string, ChangeRecord>();
      const rows = this.byEvent.get(boardId)!;
      for (let i = indexAbove(rows, uptoId) - 1; i >= 0; i--) {
        const key = futuresRowKey(rows[i]);
        if (!latest.has(key)) latest.set(key, rows[i]);
      }
      for (const r of latest.values()) out.push({ ...r });
    }
    return out.sort((a, b) => a.id - b.id);
  }

  /** An event as its last header and score rows up to `uptoId` left it; none before its first header. */
  private eventUpTo(rows: readonly ChangeRecord[], uptoId: number): EventRecord[] {
    let header: ChangeRecord | undefined;
    let score: ChangeRecord | undefined;
    for (let i = indexAbove(rows, uptoId) - 1; i >= 0 && !(header && score); i--) {
      const r = rows[i];
      if (r.kind === 'event') header ??= r;
      else if (r.kind === 'score') score ??= r;
    }
    if (!header) return [];
    const info = JSON.parse(header.payload) as Record<string, unknown>;
    if (score) {
      const u = JSON.parse(score.payload) as { score?: unknown; live_game_state?: unknown };
      if (u.score !== undefined) info.score = u.score;
      if (u.live_game_state) info.live_game_state = u.live_game_state;
    }
    return [
      {
        event_id: header.event_id,
        sport_id: header.sport_id,
        event_date: String(info.event_date),
        info: JSON.stringify(info),
        change_id: Math.max(header.id, score?.id ?? 0),
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
    for (const r of rows) this.append(r);
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
    for (let i = indexAbove(rows, q.afterId); i < rows.length && rows[i].id <= q.toId; i++) {
      const r = rows[i];
      if (q.pricesOnly && r.price_id === null) continue;
      if (q.sportId !== undefined && r.sport_id !== q.sportId) continue;
      if (affiliates && !affiliates.has(r.affiliate_id)) continue;
      if (markets && !markets.has(r.market_id)) continue;
      if (periods && (r.price_id === null || !periods.has(periodOfDetail(r.detail)))) continue;
      yield r;
    }
  }

  async scanPriceRows(afterId: number, toId: number, each: (row: PriceRowSummary) => void): Promise<void> {
    const rows = this.changes;
    for (let i = indexAbove(rows, afterId); i < rows.length && rows[i].id <= toId; i++) {
      const r = rows[i];
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

  async committedMsAt(id: number): Promise<number | undefined> {
    return this.changes[indexAbove(this.changes, id) - 1]?.committed_ms;
  }

  async firstIdCommittedSince(ms: number): Promise<number | undefined> {
    // committed_ms never decreases along the ids, so the rows are sorted by it too.
    const rows = this.changes;
    let lo = 0;
    let hi = rows.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (rows[mid].committed_ms < ms) lo = mid + 1;
      else hi = mid;
    }
    return rows[lo]?.id;
  }

  async getMeta(key: string): Promise<string | undefined> {
    return this.meta.get(key);
  }

  async setMeta(key: string, value: string): Promise<void> {
    this.meta.set(key, value);
  }

  /** Holds no handle or file: the data lives as long as the object does. */
  async close(): Promise<void> {}

  *eventPriceRows(
    eventId: string,
    marketId: number | undefined,
    uptoId: number,
  ): Iterable<Readonly<ChangeRecord>> {
    const rows =
      marketId === undefined ? this.byEvent.get(eventId) : this.byEventMarket.get(eventId)?.get(marketId);
    if (!rows) return;
    for (let i = indexAbove(rows, uptoId) - 1; i >= 0; i--) if (rows[i].price_id !== null) yield rows[i];
  }

  priceRows(priceId: number): readonly Readonly<ChangeRecord>[] {
    return this.byPrice.get(priceId) ?? [];
  }
}

function marketKey(m: MarketRecord): string {
  return `${m.event_id} ${m.market_id} ${m.period_id}`;
}

function listIn<K>(index: Map<K, ChangeRecord[]>, key: K): ChangeRecord[] {
  let list = index.get(key);
  if (!list) {
    list = [];
    index.set(key, list);
  }
  return list;
}

/** Rows as the paged source a load hands out. */
async function* rowSource(rows: readonly ChangeRecord[]): AsyncGenerator<ChangeRecord> {
  yield* rows;
}
