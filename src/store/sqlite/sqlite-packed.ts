import type { ChangeRecord } from '../../changelog/change.ts';
import { PackedCache, unpackRows } from '../packed-rows.ts';
import { PACKED_SQL } from '../sql/packed-tables.ts';
import type { SqliteDatabase } from './database.ts';

/** Reads of packed events' records (store/packed-rows.ts) in the embedded store. */
export class SqlitePackedRows {
  private readonly cache = new PackedCache(4 * 1024 * 1024);
  private readonly body;
  private readonly records;

  constructor(db: SqliteDatabase) {
    this.body = db.prepare(PACKED_SQL.body.sqlite).pluck();
    this.records = db
      .prepare(
        `SELECT DISTINCT r.event_id FROM json_each(?) j
           JOIN archived_prices p ON p.price_id = j.value JOIN archived_rows r ON r.id = p.record`,
      )
      .pluck();
  }

  /** Every row of a packed event in id order; undefined when the event is not packed. */
  rows(eventId: string): Promise<ChangeRecord[] | undefined> {
    return this.cache.load(eventId, async () => {
      const body = this.body.get(eventId) as Buffer | undefined;
      return body === undefined ? undefined : unpackRows(eventId, body);
    });
  }

  /** The packed events that hold rows of any of `priceIds`. */
  eventsOf(priceIds: readonly number[]): string[] {
    return priceIds.length === 0 ? [] : (this.records.all(JSON.stringify(priceIds)) as string[]);
  }
}
