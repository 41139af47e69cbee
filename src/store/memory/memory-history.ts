import { type ChangeRecord, periodOfDetail } from '../../changelog/change.ts';
import type { HistoryQuery, HistoryStore, PriceRecord } from '../history.ts';
import { indexAbove, type MemoryPriceRows } from './memory-store.ts';

/** History reads over a MemoryStore: each walks one event's, market's or price's rows from the newest. */
export class MemoryHistoryStore implements HistoryStore {
  constructor(private readonly store: MemoryPriceRows) {}

  async rows(q: HistoryQuery): Promise<PriceRecord[]> {
    const c = q.coverage;
    const books = c?.affiliateIds && new Set(c.affiliateIds);
    const markets = c?.marketIds && new Set(c.marketIds);
    const periods = c?.periodIds && new Set(c.periodIds);
    const keep = (r: Readonly<ChangeRecord>): boolean =>
      (q.from === undefined || r.at >= q.from) &&
      (q.to === undefined || r.at <= q.to) &&
      (!q.mainLineOnly || isMainLine(r.payload)) &&
      (!books || books.has(r.affiliate_id!)) &&
      (!markets || markets.has(r.market_id!)) &&
      (!periods || periods.has(periodOfDetail(r.detail)));
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
      if (first !== undefined && first.id <= uptoId) out.push(record(first));
    }
    return out;
  }

  async lastRowsAtOrBefore(
    priceIds: readonly number[],
    cutoff: string,
    uptoId: number,
  ): Promise<PriceRecord[]> {
    const out: PriceRecord[] = [];
    for (const priceId of priceIds) {
      // Row times need not follow the ids (a back-filled row lies in the past): walk back to one that fits.
      for (const r of this.newestOfPrice(priceId, uptoId)) {
        if (r.at <= cutoff) {
          out.push(record(r));
          break;
        }
      }
    }
    return out;
  }

  private *newestOfPrice(priceId: number, uptoId: number): Iterable<Readonly<ChangeRecord>> {
    const rows = this.store.priceRows(priceId);
    for (let i = indexAbove(rows, uptoId) - 1; i >= 0; i--) yield rows[i];
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
    if (keep(r)) out.push(record(r));
  }
  return out;
}

function record(r: Readonly<ChangeRecord>): PriceRecord {
  return { id: r.id, price_id: r.price_id!, payload: r.payload, detail: r.detail };
}

/** The Delta row's flag, as the SQL reads it with json_extract. */
function isMainLine(payload: string): boolean {
  return (JSON.parse(payload) as { is_main_line?: unknown }).is_main_line === true;
}
