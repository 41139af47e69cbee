import type { ChangeRecord } from '../../changelog/change.ts';
import type { HistoryQuery, HistoryStore, PriceRecord } from '../history.ts';
import { historyFilter, priceRecord } from '../packed-rows.ts';
import { indexAbove, type MemoryPriceRows } from './memory-store.ts';

/** History reads over a MemoryStore: each walks one event's, market's or price's rows from the newest. */
export class MemoryHistoryStore implements HistoryStore {
  constructor(private readonly store: MemoryPriceRows) {}

  async rows(q: HistoryQuery): Promise<PriceRecord[]> {
    const keep = historyFilter(q);
    if (!('priceIds' in q)) {
      return newest(this.store.eventPriceRows(q.eventId, q.marketId, q.uptoId), keep, q.limit);
    }
    // The newest `limit` rows of each price hold the newest `limit` of them all. A price named
    // twice counts once, as in the SQL `IN` list.
    const rows = [...new Set(q.priceIds)].flatMap((priceId) =>
      newest(this.newestOfPrice(priceId, q.uptoId), keep, q.limit),
    );
    return rows.sort((a, b) => b.id - a.id).slice(0, q.limit);
  }

  async firstRows(priceIds: readonly number[], uptoId: number): Promise<PriceRecord[]> {
    const out: PriceRecord[] = [];
    for (const priceId of priceIds) {
      const first = this.store.priceRows(priceId)[0];
      if (first !== undefined && first.id <= uptoId) out.push(priceRecord(first));
    }
    return out;
  }

  async lastRowsAtOrBefore(priceIds: readonly number[], cutoff: string, uptoId: number): Promise<PriceRecord[]> {
    const out: PriceRecord[] = [];
    for (const priceId of priceIds) {
      // Row times need not follow the ids (a back-filled row lies in the past): walk back to one that fits.
      for (const r of this.newestOfPrice(priceId, uptoId)) {
        if (r.at <= cutoff) {
          out.push(priceRecord(r));
          break;
        }
      }
    }
    return out;
  }

  private *newestOfPrice(priceId: number, uptoId: number): Iterable<Readonly<ChangeRecord>> {
    const rows = this.store.priceRows(priceId);
    // indexAbove is at most rows.length, so every i here is an index of rows.
    for (let i = indexAbove(rows, uptoId) - 1; i >= 0; i--) yield rows[i]!;
  }
}

function newest(
  rows: Iterable<Readonly<ChangeRecord>>,
  keep: (r: Readonly<ChangeRecord>) => boolean,
  limit: number,
): PriceRecord[] {
  const out: PriceRecord[] = [];
  for (const r of rows) {
    if (out.length === limit) break;
    if (keep(r)) out.push(priceRecord(r));
  }
  return out;
}
