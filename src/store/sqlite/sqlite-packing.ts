import { packRows, priceIdsOf } from '../packed-rows.ts';
import { ARCHIVED_SQL, archivedValues } from '../sql/archived-events.ts';
import { CHANGE_SQL } from '../sql/changes.ts';
import { PACKED_SQL } from '../sql/packed-tables.ts';
import { SEASON_TOTALS_SQL, seasonTotalsValues } from '../sql/season-totals.ts';
import type { ArchiveCommit, ChangeRecord } from '../store.ts';
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
    const archiveEvent = db.prepare(ARCHIVED_SQL.mark.sqlite);
    const putTotals = db.prepare(SEASON_TOTALS_SQL.put.sqlite);
    const queuePack = db.prepare(PACKED_SQL.queue.sqlite);
    this.archive = db.transaction((a: ArchiveCommit) => {
      for (const eventId of a.eventIds) {
        archiveEvent.run(...archivedValues({ eventId, archivedMs: a.archivedMs }));
        queuePack.run(eventId, eventId, eventId);
      }
      for (const t of a.seasonTotals) putTotals.run(...seasonTotalsValues(t));
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
    const draining = this.sql.prepared(PACKED_SQL.draining.sqlite).pluck().get() as string | undefined;
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
    const ready = this.sql.prepared(PACKED_SQL.ready.sqlite).pluck().all(limit) as string[];
    const eventId = ready[0];
    if (eventId === undefined) return false;
    const rows = this.sql.prepared(CHANGE_SQL.ofEvent.sqlite).all(eventId) as ChangeRecord[];
    // A row of the event committed since it was archived (the ledger refuses them) waits for the boundary.
    if ((rows.at(-1)?.id ?? 0) >= limit) {
      this.sql.prepared(PACKED_SQL.waitFor.sqlite).run(rows.at(-1)!.id, eventId);
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
    const last = (this.sql.prepared(CHANGE_SQL.lastOfEvent.sqlite).pluck().get(eventId) as number | null) ?? 0;
    if (last !== (rows.at(-1)?.id ?? 0)) {
      this.sql.prepared(PACKED_SQL.waitFor.sqlite).run(last, eventId);
      return false;
    }
    const record = this.sql.prepared(PACKED_SQL.store.sqlite).pluck().get(eventId, body) as number;
    const pointTo = this.sql.prepared(PACKED_SQL.pointTo.sqlite);
    for (const priceId of priceIdsOf(rows)) pointTo.run(priceId, record);
    return this.drain(eventId, maxRows);
  }

  /**
   * Deletes at most `maxRows` rows of a packed event from the log; once none is left the event is
   * no longer pending. Returns whether rows are left.
   */
  private drain(eventId: string, maxRows: number): boolean {
    const deleted = this.sql.prepared(CHANGE_SQL.dropOfEvent.sqlite).run(eventId, maxRows).changes;
    if (deleted === maxRows) return true;
    this.sql.prepared(PACKED_SQL.done.sqlite).run(eventId);
    return false;
  }
}
