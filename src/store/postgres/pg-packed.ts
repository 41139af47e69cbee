import type { ChangeRecord } from '../../changelog/change.ts';
import { PackedCache, unpackRows } from '../packed-rows.ts';
import { PACKED_SQL } from '../sql/packed-tables.ts';
import type { PgPool } from './database.ts';

/** Reads of packed events' records (store/packed-rows.ts) in the PostgreSQL store. */
export class PgPackedRows {
  private readonly cache = new PackedCache(4 * 1024 * 1024);

  constructor(private readonly pool: PgPool) {}

  /** Every row of a packed event in id order; undefined when the event is not packed. */
  rows(eventId: string): Promise<ChangeRecord[] | undefined> {
    return this.cache.load(eventId, async () => {
      const found = await this.pool.query<{ body: Buffer }>(PACKED_SQL.body.postgres, [eventId]);
      const body = found.rows[0]?.body;
      return body === undefined ? undefined : unpackRows(eventId, body);
    });
  }

  /** The packed events that hold rows of any of `priceIds`. */
  async eventsOf(priceIds: readonly number[]): Promise<string[]> {
    if (priceIds.length === 0) return [];
    const found = await this.pool.query<{ event_id: string }>(
      `SELECT DISTINCT r.event_id FROM archived_prices p JOIN archived_rows r ON r.id = p.record
        WHERE p.price_id = ANY($1::bigint[])`,
      [priceIds],
    );
    return found.rows.map((r) => r.event_id);
  }
}
