import { DEFAULT_PAYLOAD_BYTES } from '../config.ts';

/** What a markets-delta read can filter on (spec: sport_id, event_id, affiliate_ids, market_ids). */
export interface PayloadFilter {
  sportId?: number;
  eventId?: string;
  affiliateIds?: ReadonlySet<number>;
  marketIds?: ReadonlySet<number>;
  /** A plan's period coverage. */
  periodIds?: ReadonlySet<number>;
}

/** A price row as the log keeps it: its id, what filters look at, and its serialised Delta row. */
export interface LoggedRow {
  id: number;
  sport_id: number;
  event_id: string;
  affiliate_id: number | null;
  market_id: number | null;
  payload: string;
}

export interface PayloadRead {
  /** The rows' bytes joined by commas, in id order, as slices of the log (no copy when unfiltered). */
  parts: Buffer[];
  count: number;
  /** Id of the last row returned (0 when none). */
  lastRowId: number;
  /** A further matching row exists at or below `toId`. */
  more: boolean;
}

/** Small enough next to the budget that dropping the oldest chunk leaves most of it in memory. */
const CHUNK_BYTES = 2 * 1024 * 1024;

/** Rows back to back in one buffer, each written as `,{...}` so that any run of rows is one slice. */
interface Chunk {
  buf: Buffer;
  used: number;
  ids: number[];
  /** Byte offset where each row ends; it starts where the previous one ends (0 for the first). */
  ends: number[];
  sports: number[];
  events: string[];
  affiliates: number[];
  markets: number[];
  periods: number[];
}

/**
 * The newest serialised price rows, in large buffers, bounded by bytes. Each row's JSON is encoded
 * once, when it is committed; a poll of consecutive rows is then a slice of memory rather than
 * thousands of strings joined and encoded per request (issue: delta poll throughput).
 */
export class PayloadLog {
  private readonly chunks: Chunk[] = [];
  private bytes = 0;
  /** Every price row with an id above this is in the log. */
  floor: number;

  constructor(
    floor: number,
    private readonly maxBytes = DEFAULT_PAYLOAD_BYTES,
  ) {
    this.floor = floor;
  }

  append(row: LoggedRow, periodId: number): void {
    let chunk = this.chunks[this.chunks.length - 1];
    const room = chunk ? chunk.buf.length - chunk.used - 1 : -1;
    // UTF-8 takes at most 3 bytes a UTF-16 unit: the text is measured only near a chunk's end.
    if (!chunk || (row.payload.length * 3 > room && Buffer.byteLength(row.payload) > room)) {
      chunk = {
        buf: Buffer.allocUnsafe(Math.max(CHUNK_BYTES, Buffer.byteLength(row.payload) + 1)),
        used: 0,
        ids: [],
        ends: [],
        sports: [],
        events: [],
        affiliates: [],
        markets: [],
        periods: [],
      };
      this.chunks.push(chunk);
      this.bytes += chunk.buf.length;
      this.trim();
    }
    chunk.buf[chunk.used] = 0x2c;
    chunk.used += 1 + chunk.buf.write(row.payload, chunk.used + 1);
    chunk.ids.push(row.id);
    chunk.ends.push(chunk.used);
    chunk.sports.push(row.sport_id);
    chunk.events.push(row.event_id);
    chunk.affiliates.push(row.affiliate_id ?? -1);
    chunk.markets.push(row.market_id ?? -1);
    chunk.periods.push(periodId);
  }

  /** Forgets every row: the log starts again above `floor` (after a gap in what it was given). */
  reset(floor: number): void {
    this.chunks.length = 0;
    this.bytes = 0;
    this.floor = floor;
  }

  /** Drops the oldest buffers past the byte budget, always keeping the one being written. */
  private trim(): void {
    while (this.bytes > this.maxBytes && this.chunks.length > 1) {
      const old = this.chunks.shift()!;
      this.bytes -= old.buf.length;
      this.floor = Math.max(this.floor, old.ids[old.ids.length - 1] ?? this.floor);
    }
  }

  /** Up to `limit` rows with afterId < id <= toId that pass `filter`; `afterId` must be >= floor. */
  read(afterId: number, toId: number, limit: number, filter: PayloadFilter): PayloadRead {
    const parts: Buffer[] = [];
    let count = 0;
    let lastRowId = 0;
    const unfiltered =
      filter.sportId === undefined &&
      filter.eventId === undefined &&
      filter.affiliateIds === undefined &&
      filter.marketIds === undefined &&
      filter.periodIds === undefined;
    const first = this.chunkAfter(afterId);
    for (let c = first; c < this.chunks.length; c++) {
      const chunk = this.chunks[c]!;
      let i = c === first ? indexAfter(chunk.ids, afterId) : 0;
      if (unfiltered) {
        // Consecutive rows: one slice per chunk.
        let end = i;
        while (end < chunk.ids.length && chunk.ids[end]! <= toId && count < limit) {
          end++;
          count++;
        }
        if (end > i) {
          parts.push(chunk.buf.subarray(i === 0 ? 0 : chunk.ends[i - 1]!, chunk.ends[end - 1]!));
          lastRowId = chunk.ids[end - 1]!;
        }
        i = end;
        if (count === limit || (i < chunk.ids.length && chunk.ids[i]! > toId)) {
          return { parts: stripFirstComma(parts), count, lastRowId, more: this.hasRowAfter(c, i, toId) };
        }
        continue;
      }
      for (; i < chunk.ids.length; i++) {
        const id = chunk.ids[i]!;
        if (id > toId) return { parts: stripFirstComma(parts), count, lastRowId, more: false };
        if (!matches(chunk, i, filter)) continue;
        if (count === limit) return { parts: stripFirstComma(parts), count, lastRowId, more: true };
        parts.push(chunk.buf.subarray(i === 0 ? 0 : chunk.ends[i - 1]!, chunk.ends[i]!));
        count++;
        lastRowId = id;
      }
    }
    return { parts: stripFirstComma(parts), count, lastRowId, more: false };
  }

  private hasRowAfter(c: number, i: number, toId: number): boolean {
    const chunk = this.chunks[c]!;
    if (i < chunk.ids.length) return chunk.ids[i]! <= toId;
    const next = this.chunks[c + 1];
    return next !== undefined && next.ids.length > 0 && next.ids[0]! <= toId;
  }

  /** The first chunk that can hold a row with id > afterId. */
  private chunkAfter(afterId: number): number {
    let lo = 0;
    let hi = this.chunks.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const ids = this.chunks[mid]!.ids;
      if (ids.length > 0 && ids[ids.length - 1]! <= afterId) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}

function matches(chunk: Chunk, i: number, f: PayloadFilter): boolean {
  if (f.sportId !== undefined && chunk.sports[i] !== f.sportId) return false;
  if (f.eventId !== undefined && chunk.events[i] !== f.eventId) return false;
  if (f.affiliateIds && !f.affiliateIds.has(chunk.affiliates[i]!)) return false;
  if (f.marketIds && !f.marketIds.has(chunk.markets[i]!)) return false;
  if (f.periodIds && !f.periodIds.has(chunk.periods[i]!)) return false;
  return true;
}

/** Index of the first id > afterId (ids increase). */
function indexAfter(ids: readonly number[], afterId: number): number {
  let lo = 0;
  let hi = ids.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (ids[mid]! <= afterId) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

function stripFirstComma(parts: Buffer[]): Buffer[] {
  if (parts.length > 0) parts[0] = parts[0]!.subarray(1);
  return parts;
}
