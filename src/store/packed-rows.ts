import { promisify } from 'node:util';
import { brotliCompress, brotliDecompress, brotliDecompressSync, constants } from 'node:zlib';
import { type ChangeKind, type ChangeRecord, periodOfDetail } from '../changelog/change.ts';
import { KEEPING, type Keeping } from '../perf/fresh-cache.ts';
import type { HistoryQuery, PriceRecord } from './history.ts';
import type { ArchivedEvent, EventRecord, MarketRecord } from './store.ts';

/**
 * Packed events: once an archived event's rows all lie below the retained boundary (compaction has
 * kept what it keeps of them and no delta cursor can reach them), every store moves them out of the
 * indexed log into one compressed record per event. What compaction keeps of a finished event is
 * about 900 rows, a kilobyte each on disk with the log's indexes; packed, the same rows take a few
 * tens of kilobytes. Their readers (history, openers and closing, plays, box scores, the archived
 * event itself) read the record instead, through the helpers below, with the same results.
 */

/** One row in a record: the event's id is the record's key, the rest as the log holds it. */
type PackedRow = [
  id: number,
  kind: ChangeKind,
  sport_id: number,
  at: string,
  committed_ms: number,
  price_id: number | null,
  affiliate_id: number | null,
  market_id: number | null,
  payload: string,
  detail: string | null,
];

/**
 * Brotli at quality 3. Measured on the simulator's records (356 KB of text an event): quality 3
 * gives 20x in 2.3 ms, quality 6 25x in 12.4 ms, deflate 16x in 14.6 ms.
 */
const QUALITY = 3;

const compress = promisify(brotliCompress);
const decompress = promisify(brotliDecompress);

/**
 * The record of an event's rows (given in id order). Compressed on libuv's thread pool: the
 * request thread only serialises the rows.
 */
export function packRows(rows: readonly ChangeRecord[]): Promise<Buffer> {
  const packed: PackedRow[] = rows.map((r) => [
    r.id,
    r.kind,
    r.sport_id,
    r.at,
    r.committed_ms,
    r.price_id,
    r.affiliate_id,
    r.market_id,
    r.payload,
    r.detail,
  ]);
  const text = Buffer.from(JSON.stringify(packed), 'utf8');
  return compress(text, {
    params: {
      [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
      [constants.BROTLI_PARAM_QUALITY]: QUALITY,
      [constants.BROTLI_PARAM_SIZE_HINT]: text.length,
    },
  });
}

/**
 * The rows of `eventId`'s record, in id order. Decompressed on libuv's thread pool: a finished
 * game's record (4,219 rows, 1.8 MB of text) took 10 ms to decompress and as long again to parse,
 * all of it on the request thread.
 */
export async function unpackRows(eventId: string, body: Uint8Array): Promise<ChangeRecord[]> {
  return rowsOfText(eventId, await decompress(body));
}

/** unpackRows on the calling thread (the in-memory store's reads are synchronous). */
export function unpackRowsSync(eventId: string, body: Uint8Array): ChangeRecord[] {
  return rowsOfText(eventId, brotliDecompressSync(body));
}

function rowsOfText(eventId: string, text: Buffer): ChangeRecord[] {
  const packed = JSON.parse(text.toString('utf8')) as PackedRow[];
  return packed.map(([id, kind, sport_id, at, committed_ms, price_id, affiliate_id, market_id, payload, detail]) => ({
    id,
    kind,
    event_id: eventId,
    sport_id,
    at,
    committed_ms,
    price_id,
    affiliate_id,
    market_id,
    payload,
    detail,
  }));
}

/** The price ids of a packed event's rows: where a read by price finds its record. */
export function priceIdsOf(rows: readonly ChangeRecord[]): number[] {
  const ids = new Set<number>();
  for (const r of rows) if (r.price_id !== null) ids.add(r.price_id);
  return [...ids];
}

/**
 * Decoded records of the events read last, within a byte budget (the length of their payloads):
 * the pages of one archived game's plays or charts are read one after another. Requests that ask
 * for a record while it is being read share that read. A packed record is written once and never
 * changed, so the event's id alone says what a kept record is (src/perf/README.md says why this
 * cache keeps its own budget). Its plain twin (`keeping` 'plain', the switch's choice under
 * ODDSBASE_PLAIN=1) reads and decodes the record at every call.
 */
export class PackedCache {
  private readonly kept = new Map<string, { rows: ChangeRecord[]; bytes: number }>();
  private readonly reading = new Map<string, Promise<ChangeRecord[] | undefined>>();
  private bytes = 0;

  constructor(
    private readonly budget = 8 * 1024 * 1024,
    private readonly keeping: Keeping = KEEPING,
  ) {}

  get(eventId: string, read: () => ChangeRecord[] | undefined): ChangeRecord[] | undefined {
    if (this.keeping === 'plain') return read();
    const hit = this.hit(eventId);
    if (hit) return hit;
    const rows = read();
    return rows && this.keep(eventId, rows);
  }

  /** `get` with a read that completes later. */
  async load(eventId: string, read: () => Promise<ChangeRecord[] | undefined>): Promise<ChangeRecord[] | undefined> {
    if (this.keeping === 'plain') return read();
    const hit = this.hit(eventId);
    if (hit) return hit;
    let pending = this.reading.get(eventId);
    if (!pending) {
      pending = read()
        .then((rows) => rows && this.keep(eventId, rows))
        .finally(() => this.reading.delete(eventId));
      this.reading.set(eventId, pending);
    }
    return pending;
  }

  private hit(eventId: string): ChangeRecord[] | undefined {
    const hit = this.kept.get(eventId);
    if (!hit) return undefined;
    this.kept.delete(eventId);
    this.kept.set(eventId, hit);
    return hit.rows;
  }

  private keep(eventId: string, rows: ChangeRecord[]): ChangeRecord[] {
    let bytes = 0;
    for (const r of rows) bytes += r.payload.length + (r.detail?.length ?? 0) + 64;
    if (bytes > this.budget) return rows;
    this.kept.set(eventId, { rows, bytes });
    this.bytes += bytes;
    for (const [id, old] of this.kept) {
      if (this.bytes <= this.budget) break;
      this.kept.delete(id);
      this.bytes -= old.bytes;
    }
    return rows;
  }
}

/** A page of plays as Store.readPlays gives it, from an event's rows in id order. */
export function playsOf(rows: readonly ChangeRecord[], fromSequence: number, toSequence: number): Buffer {
  const out: string[] = [];
  let sequence = 0;
  for (const r of rows) {
    if (r.kind !== 'play') continue;
    sequence++;
    if (sequence > toSequence) break;
    if (sequence >= fromSequence) out.push(r.payload);
  }
  return Buffer.from(out.reverse().join(','), 'utf8');
}

/** An event's stat rows up to `uptoId`, in id order (copies). */
export function statsOf(rows: readonly ChangeRecord[], uptoId: number): ChangeRecord[] {
  const out: ChangeRecord[] = [];
  for (let i = 0; i < rows.length && rows[i]!.id <= uptoId; i++)
    if (rows[i]!.kind === 'stat') out.push({ ...rows[i]! });
  return out;
}

/** An archived event as Store.readArchivedEvent gives it, from its rows in id order. */
export function archivedEventOf(
  event: EventRecord,
  markets: MarketRecord[],
  rows: readonly ChangeRecord[],
): ArchivedEvent {
  const latest = new Map<number, ChangeRecord>();
  let plays = 0;
  for (const r of rows) {
    if (r.price_id !== null) latest.set(r.price_id, r);
    else if (r.kind === 'play') plays++;
  }
  return {
    event: { ...event },
    markets,
    latestPrices: [...latest.values()].sort((a, b) => a.price_id! - b.price_id!).map((r) => ({ ...r })),
    playCounts: plays > 0 ? [{ event_id: event.event_id, plays }] : [],
    statRows: statsOf(rows, Number.MAX_SAFE_INTEGER),
  };
}

/**
 * Whether a price row passes a history read's filters other than its scope and bound (times, main
 * line, coverage): the same test the SQL of the SQLite history store makes.
 */
export function historyFilter(
  q: Omit<HistoryQuery, 'eventId' | 'marketId' | 'priceIds' | 'uptoId' | 'limit'>,
): (r: Readonly<ChangeRecord>) => boolean {
  const c = q.coverage;
  const books = c?.affiliateIds && new Set(c.affiliateIds);
  const markets = c?.marketIds && new Set(c.marketIds);
  const periods = c?.periodIds && new Set(c.periodIds);
  return (r) =>
    (q.from === undefined || r.at >= q.from) &&
    (q.to === undefined || r.at <= q.to) &&
    (!q.mainLineOnly || isMainLine(r.payload)) &&
    (!books || books.has(r.affiliate_id!)) &&
    (!markets || markets.has(r.market_id!)) &&
    (!periods || periods.has(periodOfDetail(r.detail)));
}

/**
 * A history read over one packed event's rows (id order): the newest `limit` price rows in its
 * scope (the event, one market of it, or the prices of `priceIds`) that pass its filters, newest first.
 */
export function packedHistory(
  rows: readonly ChangeRecord[],
  q: HistoryQuery,
  priceIds?: ReadonlySet<number>,
): PriceRecord[] {
  const keep = historyFilter(q);
  const marketId = 'marketId' in q ? q.marketId : undefined;
  const out: PriceRecord[] = [];
  for (let i = rows.length - 1; i >= 0 && out.length < q.limit; i--) {
    const r = rows[i]!;
    if (r.price_id === null || r.id > q.uptoId) continue;
    if (priceIds ? !priceIds.has(r.price_id) : marketId !== undefined && r.market_id !== marketId) continue;
    if (keep(r)) out.push(priceRecord(r));
  }
  return out;
}

/** The first row (up to `uptoId`) of each of `priceIds` found in a packed event's rows. */
export function packedFirstRows(
  rows: readonly ChangeRecord[],
  priceIds: ReadonlySet<number>,
  uptoId: number,
): PriceRecord[] {
  const first = new Map<number, ChangeRecord>();
  for (const r of rows) {
    if (r.id > uptoId) break;
    if (r.price_id !== null && priceIds.has(r.price_id) && !first.has(r.price_id)) first.set(r.price_id, r);
  }
  return [...first.values()].map(priceRecord);
}

/** The last row up to `uptoId` at or before `cutoff` of each of `priceIds` in a packed event's rows. */
export function packedLastRows(
  rows: readonly ChangeRecord[],
  priceIds: ReadonlySet<number>,
  cutoff: string,
  uptoId: number,
): PriceRecord[] {
  const last = new Map<number, ChangeRecord>();
  for (const r of rows) {
    if (r.id > uptoId) break;
    if (r.price_id !== null && priceIds.has(r.price_id) && r.at <= cutoff) last.set(r.price_id, r);
  }
  return [...last.values()].map(priceRecord);
}

/** The history record of a price row. */
export function priceRecord(r: Readonly<ChangeRecord>): PriceRecord {
  return { id: r.id, price_id: r.price_id!, payload: r.payload, detail: r.detail };
}

/** The Delta row's flag, as the SQL stores read it (`SqlDialect.payloadFlag`: a JSON true). */
function isMainLine(payload: string): boolean {
  return (JSON.parse(payload) as { is_main_line?: unknown }).is_main_line === true;
}
