import type pg from 'pg';
import { packRows, priceIdsOf } from '../packed-rows.ts';
import { ARCHIVED_SQL, archivedValues } from '../sql/archived-events.ts';
import { CHANGE_SQL } from '../sql/changes.ts';
import { PACKED_SQL } from '../sql/packed-tables.ts';
import { SEASON_TOTALS_SQL, seasonTotalsValues } from '../sql/season-totals.ts';
import type { ArchiveCommit, ChangeRecord } from '../store.ts';
import type { PgClient, PgPool } from './database.ts';
import type { PgWriter } from './pg-writer.ts';

/**
 * Archiving and packing (store/packed-rows.ts): archived events wait in `archive_pending` until
 * their rows lie below the retained boundary, then become one record each, a step at a time.
 * Reads go through the pool, writes through the writer.
 */
export class PgPacking {
  constructor(
    private readonly pool: PgPool,
    private readonly writer: PgWriter,
  ) {}

  private async rows<T extends pg.QueryResultRow>(sql: string, args: unknown[] = []): Promise<T[]> {
    return (await this.pool.query<T>(sql, args)).rows;
  }

  /**
   * Packing's share of a step (as in the SQLite store): it goes on taking a packed event's rows out
   * of the log while any are left, else packs the next ready event. Returns whether more may wait.
   */
  async step(limit: number, maxRows: number): Promise<boolean> {
    const [draining] = await this.rows<{ event_id: string }>(PACKED_SQL.draining.postgres);
    if (draining === undefined) return this.packOne(limit, maxRows);
    await this.writer.transaction((c) => drain(c, draining.event_id, maxRows));
    return true;
  }

  /**
   * Packs the archived event waiting longest whose rows all lie below `limit`: its rows are read
   * and compressed outside the writer's queue, then one transaction stores the record, points its
   * prices to it and deletes the first `maxRows` of its rows, unless the event gained a row meanwhile.
   */
  private async packOne(limit: number, maxRows: number): Promise<boolean> {
    const ready = await this.rows<{ event_id: string }>(PACKED_SQL.ready.postgres, [limit]);
    const eventId = ready[0]?.event_id;
    if (eventId === undefined) return false;
    const rows = await this.rows<ChangeRecord>(CHANGE_SQL.ofEvent.postgres, [eventId]);
    const lastId = rows.at(-1)?.id ?? 0;
    // A row of the event committed since it was archived (the ledger refuses them) waits for the boundary.
    if (lastId >= limit) {
      await this.writer.run((c) => c.query(PACKED_SQL.waitFor.postgres, [lastId, eventId]));
      return ready.length > 1;
    }
    const body = await packRows(rows);
    const more = await this.writer.transaction(async (c) => {
      const [now] = (await c.query<{ max: number | null }>(CHANGE_SQL.lastOfEvent.postgres, [eventId])).rows;
      if ((now?.max ?? 0) !== lastId) {
        await c.query(PACKED_SQL.waitFor.postgres, [now?.max ?? 0, eventId]);
        return false;
      }
      const [record] = (await c.query<{ id: number }>(PACKED_SQL.store.postgres, [eventId, body])).rows;
      await c.query(PACKED_SQL.pointEvery, [record!.id, priceIdsOf(rows)]);
      return drain(c, eventId, maxRows);
    });
    return more || ready.length > 1;
  }

  /** Marks events archived with their season totals, and queues them for packing: one transaction. */
  async archive(a: ArchiveCommit): Promise<void> {
    await this.writer.transaction(async (c) => {
      for (const eventId of a.eventIds) {
        await c.query(ARCHIVED_SQL.mark.postgres, archivedValues({ eventId, archivedMs: a.archivedMs }));
        await c.query(PACKED_SQL.queue.postgres, [eventId, eventId, eventId]);
      }
      for (const t of a.seasonTotals) await c.query(SEASON_TOTALS_SQL.put.postgres, seasonTotalsValues(t));
    });
  }
}

/**
 * Deletes at most `maxRows` rows of a packed event from the log; once none is left the event is
 * no longer pending. Returns whether rows are left.
 */
async function drain(c: PgClient, eventId: string, maxRows: number): Promise<boolean> {
  const deleted = await c.query(CHANGE_SQL.dropOfEvent.postgres, [eventId, maxRows]);
  if (deleted.rowCount === maxRows) return true;
  await c.query(PACKED_SQL.done.postgres, [eventId]);
  return false;
}
