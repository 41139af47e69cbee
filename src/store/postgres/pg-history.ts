import type { ChangeRecord } from '../../changelog/change.ts';
import type { HistoryQuery, HistoryStore, PriceRecord } from '../history.ts';
import { packedFirstRows, packedHistory, packedLastRows } from '../packed-rows.ts';
import type { PgPool } from './database.ts';
import type { PgPackedRows } from './pg-packed.ts';

/** A price that no packed record holds (its rows are read from the log); `price` names its column. */
const unpacked = (price: string) => `NOT EXISTS (SELECT 1 FROM archived_prices ap WHERE ap.price_id = ${price})`;

/**
 * History reads over the change log in PostgreSQL, as the SQLite history store makes them: id
 * lists bound as one array each (one SQL text per filter combination), a packed event's rows read
 * from its record, by event or by price.
 */
export class PgHistoryStore implements HistoryStore {
  constructor(
    private readonly pool: PgPool,
    private readonly packed: PgPackedRows,
  ) {}

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
    // A price packed between the log's read and this one has its rows in both: each id once.
    return rows
      .sort((a, b) => b.id - a.id)
      .filter((r, i) => i === 0 || r.id !== rows[i - 1]!.id)
      .slice(0, q.limit);
  }

  private async logRows(q: HistoryQuery): Promise<PriceRecord[]> {
    const where: string[] = [];
    const args: unknown[] = [];
    const arg = (value: unknown) => {
      args.push(value);
      return `$${args.length}`;
    };
    if ('priceIds' in q) {
      if (q.priceIds.length === 0) return [];
      where.push(`price_id = ANY(${arg(q.priceIds)}::bigint[])`, unpacked('changes.price_id'));
    } else {
      where.push(`event_id = ${arg(q.eventId)}`, 'price_id IS NOT NULL');
      if (q.marketId !== undefined) where.push(`market_id = ${arg(q.marketId)}`);
    }
    where.push(`id <= ${arg(q.uptoId)}`);
    if (q.from !== undefined) where.push(`at >= ${arg(q.from)}`);
    if (q.to !== undefined) where.push(`at <= ${arg(q.to)}`);
    if (q.mainLineOnly) where.push("(payload::jsonb ->> 'is_main_line') = 'true'");
    const within = (column: string, ids: readonly number[] | undefined) => {
      if (ids !== undefined) where.push(`${column} = ANY(${arg(ids)}::bigint[])`);
    };
    within('affiliate_id', q.coverage?.affiliateIds);
    within('market_id', q.coverage?.marketIds);
    within('period_id', q.coverage?.periodIds);
    const sql = `SELECT id, price_id, payload, detail FROM changes WHERE ${where.join(' AND ')} ORDER BY id DESC LIMIT ${arg(q.limit)}`;
    return (await this.pool.query<PriceRecord>(sql, args)).rows;
  }

  async firstRows(priceIds: readonly number[], uptoId: number): Promise<PriceRecord[]> {
    if (priceIds.length === 0) return [];
    // One index probe per price: the first entry of its (price_id, id) range.
    const found = await this.pool.query<PriceRecord>(
      `SELECT c.id, c.price_id, c.payload, c.detail FROM unnest($1::bigint[]) AS j(price_id)
       JOIN LATERAL (SELECT id, price_id, payload, detail FROM changes
                      WHERE price_id = j.price_id AND id <= $2 ORDER BY id LIMIT 1) c ON true
       WHERE ${unpacked('j.price_id')}`,
      [priceIds, uptoId],
    );
    return this.withPacked(found.rows, priceIds, (packed, wanted) => packedFirstRows(packed, wanted, uptoId));
  }

  async lastRowsAtOrBefore(priceIds: readonly number[], cutoff: string, uptoId: number): Promise<PriceRecord[]> {
    if (priceIds.length === 0) return [];
    // Walks each price's index range backwards from its newest row to the first one at or before the cutoff.
    const found = await this.pool.query<PriceRecord>(
      `SELECT c.id, c.price_id, c.payload, c.detail FROM unnest($1::bigint[]) AS j(price_id)
       JOIN LATERAL (SELECT id, price_id, payload, detail FROM changes
                      WHERE price_id = j.price_id AND id <= $2 AND at <= $3 ORDER BY id DESC LIMIT 1) c ON true
       WHERE ${unpacked('j.price_id')}`,
      [priceIds, uptoId, cutoff],
    );
    return this.withPacked(found.rows, priceIds, (packed, wanted) => packedLastRows(packed, wanted, cutoff, uptoId));
  }

  /** `rows` read from the log, and what `read` finds in packed events of the prices the log had no row for. */
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
