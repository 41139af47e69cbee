import { packRows, priceIdsOf } from '../packed-rows.ts';
import type { ArchiveCommit, ChangeRecord } from '../store.ts';
import { KEY_OF, rowColumns } from './schema.ts';
import type { Statements } from './statements.ts';

/**
 * Archiving and packing (store/packed-rows.ts): archived events wait in `archive_pending` until
 * their rows lie below the retained boundary, then become one record each, a step at a time.
 */
export class SqlitePacking {
  /** Marks events archived with their season totals, and queues them for packing: one transaction. */
  readonly archive: (a: ArchiveCommit) => void;
  private readonly packTx;
  private readonly drainTx;

  constructor(private readonly sql: Statements) {
    const db = sql.db;
    const archiveEvent = db.prepare('INSERT OR IGNORE INTO archived_events (event_id, archived_ms) VALUES (?, ?)');
    const putTotals = db.prepare(
      'INSERT INTO season_totals (season_key, body) VALUES (?, ?) ON CONFLICT (season_key) DO UPDATE SET body = excluded.body',
    );
    const queuePack = db.prepare(
      `INSERT INTO archive_pending (event_id, last_id)
           SELECT @id, (SELECT coalesce(max(id), 0) FROM changes WHERE event_key = (SELECT key FROM event_keys WHERE event_id = @id))
            WHERE @id NOT IN (SELECT event_id FROM archived_rows)
           ON CONFLICT (event_id) DO NOTHING`,
    );
    this.archive = db.transaction((a: ArchiveCommit) => {
      for (const id of a.eventIds) {
        archiveEvent.run(id, a.archivedMs);
        queuePack.run({ id });
      }
      for (const t of a.seasonTotals) putTotals.run(t.key, t.body);
    });
    this.packTx = db.transaction((eventId: string, rows: readonly ChangeRecord[], body: Buffer, maxRows: number) =>
      this.storePacked(eventId, rows, body, maxRows),
    );
    this.drainTx = db.transaction((eventId: string, maxRows: number) => this.drain(eventId, maxRows));
  }

  /**
   * Packing's share of a step: it goes on taking a packed event's rows out of the log while any
   * are left, else packs the next ready event. Returns whether more may wait (after deleting rows,
   * always: the next step looks).
   */
  async step(limit: number, maxRows: number): Promise<boolean> {
    const draining = this.sql
      .prepared('SELECT p.event_id FROM archive_pending p JOIN archived_rows r ON r.event_id = p.event_id LIMIT 1')
      .pluck()
      .get() as string | undefined;
    if (draining === undefined) return this.packOne(limit, maxRows);
    this.drainTx(draining, maxRows);
    return true;
  }

  /**
   * Packs the archived event waiting longest whose rows all lie below `limit` (the retained
   * boundary, and the head: ids continue from the head row, which stays). Its rows are read and
   * compressed off the request thread, then one transaction stores the record, points its prices to
   * it and deletes the first `maxRows` of its rows; later steps delete the rest. Returns whether
   * more waits.
   */
  private async packOne(limit: number, maxRows: number): Promise<boolean> {
    const ready = this.sql
      .prepared('SELECT event_id FROM archive_pending WHERE last_id < ? ORDER BY last_id LIMIT 2')
      .pluck()
      .all(limit) as string[];
    const eventId = ready[0];
    if (eventId === undefined) return false;
    const rows = this.sql
      .prepared(`SELECT ${rowColumns()} FROM changes WHERE event_key = ${KEY_OF} ORDER BY id`)
      .all(eventId) as ChangeRecord[];
    // A row of the event committed since it was archived (the ledger refuses them) waits for the boundary.
    if ((rows.at(-1)?.id ?? 0) >= limit) {
      this.sql.prepared('UPDATE archive_pending SET last_id = ? WHERE event_id = ?').run(rows.at(-1)!.id, eventId);
      return ready.length > 1;
    }
    return this.packTx(eventId, rows, await packRows(rows), maxRows) || ready.length > 1;
  }

  /**
   * Stores the record of `rows`, points their prices to it and deletes up to `maxRows` of them from
   * the log, unless the event gained a row while they were compressed (the ledger refuses rows of
   * archived events): it then waits for that one. From here on every reader takes the record and
   * not the rows, which stay pending until steps have deleted them all: a delete costs 50-180 µs,
   * and the thousands of a large event in one transaction held requests up for tens of ms.
   * Returns whether rows are left to delete.
   */
  private storePacked(eventId: string, rows: readonly ChangeRecord[], body: Buffer, maxRows: number): boolean {
    const last =
      (this.sql.prepared(`SELECT max(id) FROM changes WHERE event_key = ${KEY_OF}`).pluck().get(eventId) as
        number | null) ?? 0;
    if (last !== (rows.at(-1)?.id ?? 0)) {
      this.sql.prepared('UPDATE archive_pending SET last_id = ? WHERE event_id = ?').run(last, eventId);
      return false;
    }
    const record = this.sql
      .prepared('INSERT INTO archived_rows (event_id, body) VALUES (?, ?)')
      .run(eventId, body).lastInsertRowid;
    const pointTo = this.sql.prepared('INSERT OR REPLACE INTO archived_prices (price_id, record) VALUES (?, ?)');
    for (const priceId of priceIdsOf(rows)) pointTo.run(priceId, record);
    return this.drain(eventId, maxRows);
  }

  /**
   * Deletes at most `maxRows` rows of a packed event from the log; once none is left the event is
   * no longer pending. Returns whether rows are left.
   */
  private drain(eventId: string, maxRows: number): boolean {
    const deleted = this.sql
      .prepared(
        `DELETE FROM changes WHERE id IN (SELECT id FROM changes WHERE event_key = ${KEY_OF} ORDER BY id LIMIT ?)`,
      )
      .run(eventId, maxRows).changes;
    if (deleted === maxRows) return true;
    this.sql.prepared('DELETE FROM archive_pending WHERE event_id = ?').run(eventId);
    return false;
  }
}
