import type pg from 'pg';
import { packRows, priceIdsOf } from '../packed-rows.ts';
import type { ArchiveCommit, ChangeRecord } from '../store.ts';
import type { PgClient, PgPool } from './database.ts';
import { ROW } from './pg-queries.ts';
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
    const [draining] = await this.rows<{ event_id: string }>(
      'SELECT p.event_id FROM archive_pending p JOIN archived_rows r ON r.event_id = p.event_id LIMIT 1',
    );
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
    const ready = await this.rows<{ event_id: string }>(
      'SELECT event_id FROM archive_pending WHERE last_id < $1 ORDER BY last_id LIMIT 2',
      [limit],
    );
    const eventId = ready[0]?.event_id;
    if (eventId === undefined) return false;
    const rows = await this.rows<ChangeRecord>(`SELECT ${ROW} FROM changes WHERE event_id = $1 ORDER BY id`, [eventId]);
    const lastId = rows.at(-1)?.id ?? 0;
    // A row of the event committed since it was archived (the ledger refuses them) waits for the boundary.
    if (lastId >= limit) {
      await this.writer.run((c) =>
        c.query('UPDATE archive_pending SET last_id = $1 WHERE event_id = $2', [lastId, eventId]),
      );
      return ready.length > 1;
    }
    const body = await packRows(rows);
    const more = await this.writer.transaction(async (c) => {
      const [now] = (
        await c.query<{ max: number | null }>('SELECT max(id) AS max FROM changes WHERE event_id = $1', [eventId])
      ).rows;
      if ((now?.max ?? 0) !== lastId) {
        await c.query('UPDATE archive_pending SET last_id = $1 WHERE event_id = $2', [now?.max ?? 0, eventId]);
        return false;
      }
      const [record] = (
        await c.query<{ id: number }>('INSERT INTO archived_rows (event_id, body) VALUES ($1, $2) RETURNING id', [
          eventId,
          body,
        ])
      ).rows;
      await c.query(
        `INSERT INTO archived_prices (price_id, record) SELECT p, $2 FROM unnest($1::bigint[]) AS p
         ON CONFLICT (price_id) DO UPDATE SET record = excluded.record`,
        [priceIdsOf(rows), record!.id],
      );
      return drain(c, eventId, maxRows);
    });
    return more || ready.length > 1;
  }

  /** Marks events archived with their season totals, and queues them for packing: one transaction. */
  async archive(a: ArchiveCommit): Promise<void> {
    await this.writer.transaction(async (c) => {
      for (const id of a.eventIds) {
        await c.query('INSERT INTO archived_events (event_id, archived_ms) VALUES ($1, $2) ON CONFLICT DO NOTHING', [
          id,
          a.archivedMs,
        ]);
        await c.query(
          `INSERT INTO archive_pending (event_id, last_id)
             SELECT $1::text, (SELECT coalesce(max(id), 0) FROM changes WHERE event_id = $1::text)
              WHERE NOT EXISTS (SELECT 1 FROM archived_rows WHERE event_id = $1::text)
           ON CONFLICT (event_id) DO NOTHING`,
          [id],
        );
      }
      for (const t of a.seasonTotals) {
        await c.query(
          'INSERT INTO season_totals (season_key, body) VALUES ($1, $2) ON CONFLICT (season_key) DO UPDATE SET body = excluded.body',
          [t.key, t.body],
        );
      }
    });
  }
}

/**
 * Deletes at most `maxRows` rows of a packed event from the log; once none is left the event is
 * no longer pending. Returns whether rows are left.
 */
async function drain(c: PgClient, eventId: string, maxRows: number): Promise<boolean> {
  const deleted = await c.query(
    'DELETE FROM changes WHERE id IN (SELECT id FROM changes WHERE event_id = $1 ORDER BY id LIMIT $2)',
    [eventId, maxRows],
  );
  if (deleted.rowCount === maxRows) return true;
  await c.query('DELETE FROM archive_pending WHERE event_id = $1', [eventId]);
  return false;
}
