import type { HistoryQuery, PriceRecord } from '../history.ts';
import { PackedLogHistory } from '../packed-log-history.ts';
import type { PgPool } from './database.ts';
import type { PgPackedRows } from './pg-packed.ts';

/** A price that no packed record holds (its rows are read from the log); `price` names its column. */
const unpacked = (price: string) => `NOT EXISTS (SELECT 1 FROM archived_prices ap WHERE ap.price_id = ${price})`;

/**
 * History reads over the change log in PostgreSQL (packed events as PackedLogHistory reads them):
 * id lists bound as one array each, so one SQL text per filter combination.
 */
export class PgHistoryStore extends PackedLogHistory {
  constructor(
    private readonly pool: PgPool,
    packed: PgPackedRows,
  ) {
    super(packed);
  }

  protected async logRows(q: HistoryQuery): Promise<PriceRecord[]> {
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

  protected async logFirstRows(priceIds: readonly number[], uptoId: number): Promise<PriceRecord[]> {
    // One index probe per price: the first entry of its (price_id, id) range.
    const found = await this.pool.query<PriceRecord>(
      `SELECT c.id, c.price_id, c.payload, c.detail FROM unnest($1::bigint[]) AS j(price_id)
       JOIN LATERAL (SELECT id, price_id, payload, detail FROM changes
                      WHERE price_id = j.price_id AND id <= $2 ORDER BY id LIMIT 1) c ON true
       WHERE ${unpacked('j.price_id')}`,
      [priceIds, uptoId],
    );
    return found.rows;
  }

  protected async logLastRows(priceIds: readonly number[], cutoff: string, uptoId: number): Promise<PriceRecord[]> {
    // Walks each price's index range backwards from its newest row to the first one at or before the cutoff.
    const found = await this.pool.query<PriceRecord>(
      `SELECT c.id, c.price_id, c.payload, c.detail FROM unnest($1::bigint[]) AS j(price_id)
       JOIN LATERAL (SELECT id, price_id, payload, detail FROM changes
                      WHERE price_id = j.price_id AND id <= $2 AND at <= $3 ORDER BY id DESC LIMIT 1) c ON true
       WHERE ${unpacked('j.price_id')}`,
      [priceIds, uptoId, cutoff],
    );
    return found.rows;
  }
}
