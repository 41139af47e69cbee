import type { ChangeRecord } from '../changelog/change.ts';
import type { PackedReads } from './packed-log-history.ts';
import { archivedEventOf, playsOf, statsOf } from './packed-rows.ts';
import { RETAINED_ID_META, RETAINED_SINCE_META, type RetainedLog } from './retention.ts';
import type {
  ArchiveCommit,
  ArchivedEvent,
  EventRecord,
  LoadedState,
  LoadOptions,
  MarketRecord,
  Store,
} from './store.ts';

/** What a SQL store's loader and packer give the reads shared here (SQLite's answer at once). */
export interface LogLoader {
  load(uptoId: number | undefined, opts: LoadOptions): LoadedState | Promise<LoadedState>;
}
export interface LogPacking {
  archive(commit: ArchiveCommit): void | Promise<void>;
}

/**
 * The Store's reads that a SQL backend answers the same way, each by its own statements: an
 * event's plays, stats and archived state come from its packed record once it has one
 * (packed-rows.ts), else from the log (`logPlays`, `logStats`, `logArchived`); what is retained
 * comes from meta. Loads and archiving go to the backend's loader and packer.
 */
export abstract class PackedLogStore implements Pick<
  Store,
  'load' | 'readPlays' | 'readStats' | 'readArchivedEvent' | 'retained' | 'archive' | 'getMeta'
> {
  protected abstract readonly packed: Pick<PackedReads, 'rows'>;
  protected abstract readonly loader: LogLoader;
  protected abstract readonly packing: LogPacking;

  abstract getMeta(key: string): Promise<string | undefined>;
  /** The payloads of an event's plays, `limit` from the `offset`-th in log order, newest first, joined by commas. */
  protected abstract logPlays(eventId: string, limit: number, offset: number): Promise<Buffer>;
  /** An event's stat rows in the log up to `uptoId`, in id order. */
  protected abstract logStats(eventId: string, uptoId: number): Promise<ChangeRecord[]>;
  /** An archived event's record and markets (in id order); undefined when it is not archived. */
  protected abstract archivedHeader(
    eventId: string,
  ): Promise<{ event: EventRecord; markets: MarketRecord[] } | undefined>;
  /** The last row of each of an event's prices in the log, in price id order, and its number of plays. */
  protected abstract logArchived(eventId: string): Promise<{ latestPrices: ChangeRecord[]; plays: number }>;

  async load(uptoId?: number, opts: LoadOptions = {}): Promise<LoadedState> {
    return this.loader.load(uptoId, opts);
  }

  async archive(commit: ArchiveCommit): Promise<void> {
    await this.packing.archive(commit);
  }

  async readPlays(eventId: string, fromSequence: number, toSequence: number): Promise<Buffer> {
    const packed = await this.packed.rows(eventId);
    if (packed) return playsOf(packed, fromSequence, toSequence);
    const from = Math.max(1, fromSequence);
    if (toSequence < from) return Buffer.alloc(0);
    return this.logPlays(eventId, toSequence - from + 1, from - 1);
  }

  async readStats(eventId: string, uptoId: number): Promise<ChangeRecord[]> {
    const packed = await this.packed.rows(eventId);
    if (packed) return statsOf(packed, uptoId);
    return this.logStats(eventId, uptoId);
  }

  async readArchivedEvent(eventId: string): Promise<ArchivedEvent | undefined> {
    const header = await this.archivedHeader(eventId);
    if (!header) return undefined;
    const packed = await this.packed.rows(eventId);
    if (packed) return archivedEventOf(header.event, header.markets, packed);
    const { latestPrices, plays } = await this.logArchived(eventId);
    return {
      ...header,
      latestPrices,
      playCounts: plays > 0 ? [{ event_id: eventId, plays }] : [],
      statRows: await this.readStats(eventId, Number.MAX_SAFE_INTEGER),
    };
  }

  async retained(): Promise<RetainedLog> {
    const since = await this.getMeta(RETAINED_SINCE_META);
    return {
      oldestId: Number((await this.getMeta(RETAINED_ID_META)) ?? 1),
      sinceMs: since === undefined ? undefined : Number(since),
    };
  }
}
