import { setImmediate as loopTurn } from 'node:timers/promises';
import type { Bus, CommittedBatch } from '../bus/bus.ts';
import { type EpochGap, periodOfDetail } from '../changelog/change.ts';
import type { ChangeQuery, ChangeRecord, Store } from '../store/store.ts';
import { LogFloor } from './log-floor.ts';
import { PayloadLog, type PayloadRead } from './payload-log.ts';
import { DEFAULT_PAYLOAD_BYTES } from '../config.ts';
import { Slots } from './slots.ts';

export interface FeedRead {
  rows: ChangeRecord[];
  /** The cursor to continue from: the last row returned, or the end of the scanned range. */
  lastId: number;
  hasMore: boolean;
}

/** A page of the markets delta: its rows' serialised bytes, joined by commas. */
export interface PayloadPage {
  parts: Buffer[];
  count: number;
  lastId: number;
  hasMore: boolean;
  /** Read from the store into buffers of its own, rather than sliced from the in-memory log. */
  fromStore: boolean;
  /**
   * Set when `parts` hold memory the store lent (src/store/store.ts, PayloadBytes.release): gives
   * it back; call it once the parts have been written out or dropped, and never read them after.
   */
  release?: () => void;
}

export interface ChangeFeedOptions {
  /** Recent rows kept in memory as records (the event delta); older reads go to the store. */
  capacity?: number;
  /** Bytes of recent serialised price rows kept in memory (the markets delta). */
  payloadBytes?: number;
  /** How far back a cursor may start, in ms of commit time. */
  windowMs?: number;
  /** Most ids one read looks at, so a narrow filter cannot make a poll scan the whole log. */
  maxScan?: number;
  now?: () => number;
  /** What retention keeps whole: no cursor below it is served. */
  floor?: LogFloor;
  /**
   * Rows of one store statement when a payload page is read from the store, the event loop getting a
   * turn between two: a 5,000-row page (about 1.8 MB) read in one statement held the loop for tens
   * of milliseconds, 20 times a second under the unread-clients load (docs/benchmarks.md); chunks
   * of 250 rows stalled the loop half as long in total as chunks of 1,000 under that load.
   */
  storeChunkRows?: number;
  /**
   * Pages read from the store at once; later reads wait for one of these to finish. Each chunk of a
   * read takes a turn of its own, so without a bound every page asked for is read at once, each
   * holding what it has read so far: 500 clients that pipelined 4 pages each and never read took
   * the server past 2.5 GB of pages half read, none of them yet a response the send guard could see.
   */
  storeReads?: number;
  /** The log's epoch, which the delta answers carry (`meta.epoch`); batches update it. */
  epoch?: string;
  /** The ids restores skipped (src/ops/backup.ts): a cursor inside one is refused. */
  gaps?: readonly EpochGap[];
}

/** A page read from the store, with what gives back the memory it holds lent. */
type StoreRead = PayloadRead & { release?: () => void };

/** Between two chunks of a page read from the store, as between its rows. */
const COMMA = Buffer.from(',');

/** The cursor a client sent cannot be served; `reason` says why and what to do. */
export class CursorError extends Error {}

/**
 * The change log as the delta routes read it: the newest rows from memory (filled from the bus),
 * anything older from the store. A read never looks past the head it started at, and the head only
 * moves after a commit, so paging from cursor to cursor returns every committed row exactly once.
 */
export class ChangeFeed {
  /** Rows from `ringStart` on; the slots before it are emptied as rows leave, until compaction. */
  private readonly ring: (ChangeRecord | undefined)[] = [];
  private readonly payloads: PayloadLog;
  private ringStart = 0;
  /** Every row with an id above this is in the ring. */
  private ringFloor: number;
  private head: number;
  private headMs: number;
  private windowStart?: { id: number; computedAt: number };
  readonly capacity: number;
  readonly windowMs: number;
  readonly maxScan: number;
  private readonly storeChunkRows: number;
  private readonly storeReads: Slots;
  private readonly now: () => number;
  private readonly floor: LogFloor;
  private readonly payloadBytes: number;
  private readonly gaps: readonly EpochGap[];
  /** The log's epoch: delta answers carry it so a client can tell a restored or reset log. */
  epoch: string;
  /** A fill runs (`fill`): rows are not kept in memory. */
  private filling = false;
  /** Batches that came while the price rows were warmed from the store, received after it. */
  private held: CommittedBatch[] | undefined;
  private unsubscribe: () => void = () => {};

  private constructor(
    private readonly store: Store,
    headId: number,
    headMs: number,
    opts: ChangeFeedOptions,
  ) {
    this.capacity = opts.capacity ?? 20_000;
    this.windowMs = opts.windowMs ?? 24 * 3_600_000;
    this.maxScan = opts.maxScan ?? 100_000;
    this.storeChunkRows = opts.storeChunkRows ?? 250;
    this.storeReads = new Slots(opts.storeReads ?? 2);
    this.now = opts.now ?? Date.now;
    this.floor = opts.floor ?? new LogFloor();
    this.ringFloor = headId;
    this.head = headId;
    this.headMs = headMs;
    this.payloadBytes = opts.payloadBytes ?? DEFAULT_PAYLOAD_BYTES;
    this.gaps = opts.gaps ?? [];
    this.epoch = opts.epoch ?? '';
    this.payloads = new PayloadLog(headId, this.payloadBytes);
  }

  /** The feed of `store` from `headId` on, kept current by the bus. */
  static async open(store: Store, bus: Bus, headId: number, opts: ChangeFeedOptions = {}): Promise<ChangeFeed> {
    const feed = new ChangeFeed(store, headId, (await store.committedMsAt(headId)) ?? 0, opts);
    feed.unsubscribe = bus.subscribe((batch) => feed.receive(batch));
    await feed.warm();
    return feed;
  }

  /**
   * Runs `run`, the history fill of a first start (before the server listens, so nothing reads the
   * feed meanwhile), keeping none of its rows in memory: reads in it go to the store. Kept, each of
   * the fill's 950,000 rows outlived two young collections in the ring and died in the old
   * generation: without them the fill has 23-32 full collections instead of 40
   * (docs/benchmarks.md). The newest price rows are then read back as at a start (`warm`).
   */
  async fill<T>(run: () => Promise<T>): Promise<T> {
    if (this.filling) throw new Error('a fill is already running');
    this.filling = true;
    this.forget(this.head);
    let result: T;
    try {
      result = await run();
    } finally {
      // A failed fill leaves memory empty: every read goes to the store, which is right, only slower.
      this.filling = false;
    }
    await this.warm();
    return result;
  }

  /**
   * Reads the newest price rows (about 400 bytes each) from the store into memory, so that polls
   * near the head are served from memory from the first request on. Batches committed meanwhile
   * are received after it, in order.
   */
  private async warm(): Promise<void> {
    const from = Math.max(0, this.head - Math.ceil(this.payloadBytes / 400));
    this.payloads.reset(from);
    this.held = [];
    try {
      await this.store.scanPriceRows(from, this.head, (row) => this.payloads.append(row, row.period_id));
    } finally {
      const held = this.held;
      this.held = undefined;
      for (const batch of held) this.receive(batch);
    }
  }

  /** Empties memory: every row above `floor` is read from the store until new batches come. */
  private forget(floor: number): void {
    this.ring.length = 0;
    this.ringStart = 0;
    this.ringFloor = floor;
    this.payloads.reset(floor);
  }

  private receive(batch: CommittedBatch): void {
    if (this.held) {
      this.held.push(batch);
      return;
    }
    // Already held: a batch published while the feed was opened at a head past it.
    if (batch.headId <= this.head) return;
    this.epoch = batch.epoch;
    if (this.filling) {
      this.forget(batch.headId);
      this.head = batch.headId;
      this.headMs = batch.changes.at(-1)?.committed_ms ?? this.headMs;
      return;
    }
    let rows = batch.changes;
    if (batch.fromId < this.head) {
      const head = this.head;
      rows = rows.filter((r) => r.id > head);
    } else if (batch.fromId > this.head) {
      // A missed batch (another node's bus dropped it): what memory holds no longer runs without
      // a gap, so every read below the new batch goes to the store, which has every row.
      this.forget(batch.fromId);
    }
    for (const row of rows) this.push(row);
    this.head = batch.headId;
  }

  close(): void {
    this.unsubscribe();
  }

  headId(): number {
    return this.head;
  }

  private push(row: ChangeRecord): void {
    if (row.price_id !== null) this.payloads.append(row, periodOfDetail(row.detail));
    if (this.ring.length - this.ringStart >= this.capacity) {
      this.ringFloor = this.ring[this.ringStart]!.id;
      // Let go of the row now: until the next compaction the array holds up to twice the capacity,
      // and rows (their payload and detail texts) are most of the feed's memory.
      this.ring[this.ringStart] = undefined;
      this.ringStart++;
      // Compact now and then rather than shifting the array on every row.
      if (this.ringStart >= this.capacity) {
        this.ring.splice(0, this.ringStart);
        this.ringStart = 0;
      }
    }
    this.ring.push(row);
    this.headMs = row.committed_ms;
  }

  /**
   * The oldest id a cursor may name: rows committed within the window, or everything when young,
   * and never below what the store still holds whole (retention compacts the log below it).
   */
  async oldestCursor(): Promise<number> {
    const t = this.now();
    if (!this.windowStart || t - this.windowStart.computedAt > 10_000) {
      const first = await this.store.firstIdCommittedSince(t - this.windowMs);
      this.windowStart = { id: first ?? this.head + 1, computedAt: t };
    }
    return Math.max(this.windowStart.id, this.floor.oldestId) - 1;
  }

  /** Checks a cursor against the head and the window; 0 starts at the oldest retained row. */
  async resolveCursor(lastId: number, visibleHead = this.head): Promise<number> {
    const head = Math.min(this.head, visibleHead);
    if (lastId > head) {
      throw new CursorError(
        `last_id ${lastId} is ahead of the newest change (${head}); ` +
          'use the meta.delta_last_id of an events snapshot or of the previous delta response',
      );
    }
    const gap = this.gaps.find((g) => lastId > g.from && lastId < g.to);
    if (gap) {
      throw new CursorError(
        `last_id ${lastId} is too far behind: it is a cursor of an earlier log (the one this server was restored ` +
          `from, or one its data directory held before), whose changes after ${gap.from} are not here ` +
          `(this log continues under epoch ${gap.epoch} from ${gap.to}). ` +
          'Re-bootstrap: fetch an events snapshot and continue from its meta.delta_last_id',
      );
    }
    const oldest = await this.oldestCursor();
    if (lastId === 0) return Math.max(0, oldest);
    if (lastId < oldest) {
      throw new CursorError(
        `last_id ${lastId} is too far behind: changes before ${oldest + 1} are no longer served by the delta ` +
          `feed (it keeps at most ${Math.round(this.windowMs / 3_600_000)} hours, and only what retention keeps whole). ` +
          'Re-bootstrap: fetch an events ' +
          'snapshot and continue from its meta.delta_last_id',
      );
    }
    return lastId;
  }

  /**
   * Up to `limit` rows after `afterId` that match, in id order. `visibleHead` hides rows past it
   * (a delayed plan sees the log only up to its delayed board's head). A read from the store that
   * retention overtook (its floor raised past `afterId` meanwhile) is refused with a CursorError.
   */
  async read(q: Omit<ChangeQuery, 'toId' | 'limit'>, limit: number, visibleHead = this.head): Promise<FeedRead> {
    const { head, toId } = this.range(q.afterId, visibleHead);
    let rows: ChangeRecord[];
    if (q.afterId >= this.ringFloor) rows = this.fromRing(q, toId, limit + 1);
    else {
      rows = await this.store.readChanges({ ...q, toId, limit: limit + 1 });
      // Read in parts, or on another connection: retention may have removed rows meanwhile.
      this.checkRetained(q.afterId);
    }
    if (rows.length > limit) {
      rows.length = limit;
      return { rows, lastId: rows[limit - 1]!.id, hasMore: true };
    }
    return { rows, lastId: toId, hasMore: toId < head };
  }

  /**
   * The markets delta's read: price rows after `afterId`, as bytes, from memory when the cursor is
   * recent enough, else from the store.
   */
  async readPayloadPage(
    q: Omit<ChangeQuery, 'toId' | 'limit' | 'pricesOnly'>,
    limit: number,
    visibleHead = this.head,
    turn: () => Promise<unknown> = loopTurn,
  ): Promise<PayloadPage> {
    const { head, toId } = this.range(q.afterId, visibleHead);
    const fromStore = q.afterId < this.payloads.floor;
    const read: StoreRead = fromStore
      ? await this.fromStore({ ...q, pricesOnly: true, toId, limit }, turn)
      : this.payloads.read(q.afterId, toId, limit, {
          sportId: q.sportId,
          eventId: q.eventId,
          affiliateIds: q.affiliateIds ? new Set(q.affiliateIds) : undefined,
          marketIds: q.marketIds ? new Set(q.marketIds) : undefined,
          periodIds: q.periodIds ? new Set(q.periodIds) : undefined,
        });
    const { parts, count, lastRowId, more, release } = read;
    return more
      ? { parts, count, lastId: lastRowId, hasMore: true, fromStore, release }
      : { parts, count, lastId: toId, hasMore: toId < head, fromStore, release };
  }

  /**
   * A page read from the store in chunks of `storeChunkRows`, each in a turn of its own (`turn`:
   * the server's turns, src/perf/turns.ts, so that pages read at once take one chunk a turn between
   * them instead of one chunk each in the same turn). Rows at or below `toId` never change, but
   * retention may compact old ones meanwhile: it raises the floor before it removes a row, so a read
   * whose next row fell below the floor while it waited is refused as a cursor behind the retained
   * log would have been (CursorError). At most `storeReads` pages are read at once; the others wait
   * their turn in the order they were asked, holding nothing yet.
   */
  private async fromStore(q: ChangeQuery, turn: () => Promise<unknown>): Promise<StoreRead> {
    const release = await this.storeReads.acquire();
    try {
      return await this.readChunks(q, turn);
    } finally {
      release();
    }
  }

  private async readChunks(q: ChangeQuery, turn: () => Promise<unknown>): Promise<StoreRead> {
    const parts: Buffer[] = [];
    const lent: (() => void)[] = [];
    const release = () => {
      for (const r of lent.splice(0)) r();
    };
    let count = 0;
    let afterId = q.afterId;
    try {
      for (;;) {
        await turn();
        this.checkRetained(afterId);
        const limit = Math.min(this.storeChunkRows, q.limit - count);
        const chunk = await this.store.readPayloadBytes({ ...q, afterId, limit });
        if (chunk.release) lent.push(chunk.release);
        // A read on another connection (a thread, a server) may have started after retention raised
        // the floor and removed rows: the floor, raised first, tells.
        this.checkRetained(afterId);
        if (chunk.count > 0) {
          if (parts.length > 0) parts.push(COMMA);
          parts.push(chunk.bytes);
          count += chunk.count;
          afterId = chunk.lastRowId;
        }
        if (!chunk.more || count >= q.limit) {
          const lends = lent.length > 0 ? release : undefined;
          return { parts, count, lastRowId: count > 0 ? afterId : 0, more: chunk.more, release: lends };
        }
      }
    } catch (err) {
      release();
      throw err;
    }
  }

  private checkRetained(afterId: number): void {
    if (afterId + 1 < this.floor.oldestId) {
      throw new CursorError(
        `the changes after ${afterId} were compacted while this page was read; ` +
          'Re-bootstrap: fetch an events snapshot and continue from its meta.delta_last_id',
      );
    }
  }

  /**
   * The head a read may see, and the last id it looks at: bounded so a narrow filter cannot scan all.
   * A restore's gap (no row has those ids) does not count, so a scan never ends inside one and the
   * cursor it hands out is never one `resolveCursor` refuses.
   */
  private range(afterId: number, visibleHead: number): { head: number; toId: number } {
    const head = Math.min(this.head, visibleHead);
    let toId = afterId + this.maxScan;
    for (const g of this.gaps) if (afterId <= g.from && toId > g.from) toId += g.to - g.from;
    return { head, toId: Math.min(head, toId) };
  }

  /** committed_ms of the newest row at or below `id` (for UUID cursors). */
  async committedMsAt(id: number): Promise<number> {
    if (id >= this.head) return this.headMs;
    const i = this.indexAfter(id) - 1;
    if (i >= this.ringStart && i < this.ring.length) return this.ring[i]!.committed_ms;
    return (await this.store.committedMsAt(id)) ?? 0;
  }

  private fromRing(q: Omit<ChangeQuery, 'toId' | 'limit'>, toId: number, limit: number): ChangeRecord[] {
    const out: ChangeRecord[] = [];
    const affiliates = q.affiliateIds ? new Set(q.affiliateIds) : undefined;
    const markets = q.marketIds ? new Set(q.marketIds) : undefined;
    const periods = q.periodIds ? new Set(q.periodIds) : undefined;
    for (let i = this.indexAfter(q.afterId); i < this.ring.length && out.length < limit; i++) {
      const r = this.ring[i]!;
      if (r.id > toId) break;
      if (q.pricesOnly && r.price_id === null) continue;
      if (q.sportId !== undefined && r.sport_id !== q.sportId) continue;
      if (q.eventId !== undefined && r.event_id !== q.eventId) continue;
      if (affiliates && (r.affiliate_id === null || !affiliates.has(r.affiliate_id))) continue;
      if (markets && (r.market_id === null || !markets.has(r.market_id))) continue;
      if (periods && (r.price_id === null || !periods.has(periodOfDetail(r.detail)))) continue;
      out.push(r);
    }
    return out;
  }

  /** Index of the first ring row with id > afterId (binary search: ids increase). */
  private indexAfter(afterId: number): number {
    let lo = this.ringStart;
    let hi = this.ring.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.ring[mid]!.id <= afterId) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}
