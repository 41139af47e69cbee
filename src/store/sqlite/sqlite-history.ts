import type Database from 'better-sqlite3';
import type { ChangeRecord } from '../../changelog/change.ts';
import type { HistoryQuery, HistoryStore, PriceRecord } from '../history.ts';
import { packedFirstRows, packedHistory, packedLastRows } from '../packed-rows.ts';
import type { SqliteDatabase } from './database.ts';
import type { RowStatement } from './page-reader.ts';
import { KEY_OF } from './schema.ts';
import { SqlitePackedRows } from './sqlite-packed.ts';

/** Runs a read-only statement of the log and gives its rows as objects. */
export type RowReader = <T>(statement: RowStatement) => Promise<T[]>;

/**
 * History reads over the change log. Id lists travel as one JSON array bound to `json_each`, so
 * each filter combination is one SQL text and one prepared statement, whatever the list length.
 * A packed event's rows are read from its record instead, by event or by price: its rows leave the
 * log over several retention steps after the record is stored, and what is left of them is not read.
 *
 * The log's statements go through `read`, and packed records come from `packed`: a store's own
 * history (`SqliteStore.history()`, as `serve` opens it) runs them on its page reader's thread and
 * shares its cache of decoded records; by default they run on `db`, with a cache of their own.
 */
export class SqliteHistoryStore implements HistoryStore {
  private readonly statements = new Map<string, Database.Statement>();
  private readonly packed: SqlitePackedRows;
  private readonly read: RowReader;

  constructor(db: SqliteDatabase, opts: { read?: RowReader; packed?: SqlitePackedRows } = {}) {
    this.packed = opts.packed ?? new SqlitePackedRows(db);
    this.read = opts.read ?? (async <T>(st: RowStatement) => this.prepared(db, st.sql).all(...st.args) as T[]);
  }

  async rows(q: HistoryQuery): Promise<PriceRecord[]> {
    if (!('priceIds' in q)) {
      const packed = await this.packed.rows(q.eventId);
      if (packed) return packedHistory(packed, q);
    }
    const rows = await this.logRows(q);
    if (!('priceIds' in q)) return rows;
    const events = this.packed.eventsOf(q.priceIds);
    if (events.length === 0) return rows;
    const wanted = new Set(q.priceIds);
    for (const eventId of events) rows.push(...packedHistory((await this.packed.rows(eventId)) ?? [], q, wanted));
    // A price packed between the log's read and this one has its rows in both (they leave the log
    // later): each id once.
    return rows
      .sort((a, b) => b.id - a.id)
      .filter((r, i) => i === 0 || r.id !== rows[i - 1]!.id)
      .slice(0, q.limit);
  }

  private async logRows(q: HistoryQuery): Promise<PriceRecord[]> {
    const where: string[] = [];
    const args: (string | number)[] = [];
    if ('priceIds' in q) {
      if (q.priceIds.length === 0) return [];
      where.push(`price_id IN (SELECT value FROM json_each(?) WHERE ${UNPACKED})`);
      args.push(JSON.stringify(q.priceIds));
    } else {
      where.push(`event_key = ${KEY_OF}`, 'price_id IS NOT NULL');
      args.push(q.eventId);
      if (q.marketId !== undefined) {
        where.push('market_id = ?');
        args.push(q.marketId);
      }
    }
    where.push('id <= ?');
    args.push(q.uptoId);
    if (q.from !== undefined) {
      where.push('at >= ?');
      args.push(q.from);
    }
    if (q.to !== undefined) {
      where.push('at <= ?');
      args.push(q.to);
    }
    if (q.mainLineOnly) where.push("json_extract(payload, '$.is_main_line') = 1");
    const within = (column: string, ids: readonly number[] | undefined) => {
      if (ids === undefined) return;
      where.push(`${column} IN (SELECT value FROM json_each(?))`);
      args.push(JSON.stringify(ids));
    };
    within('affiliate_id', q.coverage?.affiliateIds);
    within('market_id', q.coverage?.marketIds);
    within("json_extract(detail, '$.period_id')", q.coverage?.periodIds);
    args.push(q.limit);
    // The ids are picked first (from an index alone when no filter needs the row), so only the
    // `limit` rows returned are read whole.
    const sql =
      'SELECT id, price_id, payload, detail FROM changes WHERE id IN (' +
      `SELECT id FROM changes WHERE ${where.join(' AND ')} ORDER BY id DESC LIMIT ?) ORDER BY id DESC`;
    return this.read<PriceRecord>({ sql, args });
  }

  async firstRows(priceIds: readonly number[], uptoId: number): Promise<PriceRecord[]> {
    if (priceIds.length === 0) return [];
    // One index probe per price: the first entry of its (price_id, id) range.
    const rows = await this.read<PriceRecord>({
      sql: `SELECT c.id, c.price_id, c.payload, c.detail FROM json_each(?) j
       JOIN changes c ON c.id = (SELECT min(id) FROM changes WHERE price_id = j.value AND id <= ?)
       WHERE ${UNPACKED}`,
      args: [JSON.stringify(priceIds), uptoId],
    });
    return this.withPacked(rows, priceIds, (packed, wanted) => packedFirstRows(packed, wanted, uptoId));
  }

  async lastRowsAtOrBefore(priceIds: readonly number[], cutoff: string, uptoId: number): Promise<PriceRecord[]> {
    if (priceIds.length === 0) return [];
    // Walks each price's index range backwards from its newest row to the first one at or before
    // the cutoff: one step before the start, one more per row written after it.
    const rows = await this.read<PriceRecord>({
      sql: `SELECT c.id, c.price_id, c.payload, c.detail FROM json_each(?) j
       JOIN changes c ON c.id = (
         SELECT id FROM changes WHERE price_id = j.value AND id <= ? AND at <= ? ORDER BY id DESC LIMIT 1)
       WHERE ${UNPACKED}`,
      args: [JSON.stringify(priceIds), uptoId, cutoff],
    });
    return this.withPacked(rows, priceIds, (packed, wanted) => packedLastRows(packed, wanted, cutoff, uptoId));
  }

  /**
   * `rows` read from the log (of prices not packed), and what `read` finds in packed events of the
   * prices the log had no row for.
   */
  private async withPacked(
    rows: PriceRecord[],
    priceIds: readonly number[],
    read: (packed: ChangeRecord[], wanted: ReadonlySet<number>) => PriceRecord[],
  ): Promise<PriceRecord[]> {
    if (rows.length >= priceIds.length) return rows;
    const found = new Set(rows.map((r) => r.price_id));
    const wanted = new Set(priceIds.filter((id) => !found.has(id)));
    const events = this.packed.eventsOf([...wanted]);
    for (const eventId of events) rows.push(...read((await this.packed.rows(eventId)) ?? [], wanted));
    return rows;
  }

  /** Prepared once per distinct SQL text; the filter combinations are few. */
  private prepared(db: SqliteDatabase, sql: string): Database.Statement {
    let st = this.statements.get(sql);
    if (!st) {
      st = db.prepare(sql);
      this.statements.set(sql, st);
    }
    return st;
  }
}

/** A price of `json_each`'s list (`value`) that no packed record holds. */
const UNPACKED = 'value NOT IN (SELECT price_id FROM archived_prices)';
