import type { ChangeRecord } from '../changelog/change.ts';
import type { HistoryQuery, HistoryStore, PriceRecord } from './history.ts';
import { packedFirstRows, packedHistory, packedLastRows } from './packed-rows.ts';

/** A SQL backend's reads of packed events' records (`archived_rows`, `archived_prices`). */
export interface PackedReads {
  /** Every row of a packed event in id order; undefined when the event is not packed. */
  rows(eventId: string): Promise<ChangeRecord[] | undefined>;
  /** The packed events that hold rows of any of `priceIds`. */
  eventsOf(priceIds: readonly number[]): string[] | Promise<string[]>;
}

/**
 * History reads over a SQL backend's change log: the log's rows by the backend's own statements
 * (`logRows`, `logFirstRows`, `logLastRows`, which leave packed prices out), and a packed event's
 * rows from its record instead, by event or by price: its rows leave the log over several
 * retention steps after the record is stored, and what is left of them is not read.
 */
export abstract class PackedLogHistory implements HistoryStore {
  constructor(protected readonly packed: PackedReads) {}

  /** The rows of `q` in the log, newest first, at most `q.limit`. */
  protected abstract logRows(q: HistoryQuery): Promise<PriceRecord[]>;
  /** The first row at or below `uptoId` of each of `priceIds` the log holds and no record does. */
  protected abstract logFirstRows(priceIds: readonly number[], uptoId: number): Promise<PriceRecord[]>;
  /** The last row at or before `cutoff` (and at or below `uptoId`) of each such price. */
  protected abstract logLastRows(priceIds: readonly number[], cutoff: string, uptoId: number): Promise<PriceRecord[]>;

  async rows(q: HistoryQuery): Promise<PriceRecord[]> {
    if (!('priceIds' in q)) {
      const packed = await this.packed.rows(q.eventId);
      if (packed) return packedHistory(packed, q);
    }
    const rows = await this.logRows(q);
    if (!('priceIds' in q)) return rows;
    const events = await this.packed.eventsOf(q.priceIds);
    if (events.length === 0) return rows;
    const wanted = new Set(q.priceIds);
    for (const eventId of events) rows.push(...packedHistory((await this.packed.rows(eventId)) ?? [], q, wanted));
    // A price packed between the log's read and this one has its rows in both (they leave the log
    // later): each id once.
    return rows
      .sort((a, b) => b.id - a.id)
      .filter((r, i) => i === 0 || r.id !== rows[i - 1]!.id)
      .slice(0, q.limit);
  }

  async firstRows(priceIds: readonly number[], uptoId: number): Promise<PriceRecord[]> {
    if (priceIds.length === 0) return [];
    const rows = await this.logFirstRows(priceIds, uptoId);
    return this.withPacked(rows, priceIds, (packed, wanted) => packedFirstRows(packed, wanted, uptoId));
  }

  async lastRowsAtOrBefore(priceIds: readonly number[], cutoff: string, uptoId: number): Promise<PriceRecord[]> {
    if (priceIds.length === 0) return [];
    const rows = await this.logLastRows(priceIds, cutoff, uptoId);
    return this.withPacked(rows, priceIds, (packed, wanted) => packedLastRows(packed, wanted, cutoff, uptoId));
  }

  /**
   * `rows` read from the log (of prices not packed), and what `read` finds in packed events of the
   * prices the log had no row for.
   */
  private async withPacked(
    rows: PriceRecord[],
    priceIds: readonly number[],
    read: (packed: ChangeRecord[], wanted: ReadonlySet<number>) => PriceRecord[],
  ): Promise<PriceRecord[]> {
    if (rows.length >= priceIds.length) return rows;
    const found = new Set(rows.map((r) => r.price_id));
    const wanted = new Set(priceIds.filter((id) => !found.has(id)));
    for (const eventId of await this.packed.eventsOf([...wanted])) {
      rows.push(...read((await this.packed.rows(eventId)) ?? [], wanted));
    }
    return rows;
  }
}
