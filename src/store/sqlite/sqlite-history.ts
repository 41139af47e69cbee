import type Database from 'better-sqlite3';
import type { HistoryQuery, PriceRecord } from '../history.ts';
import { PackedLogHistory } from '../packed-log-history.ts';
import { SQLITE } from '../sql/dialect.ts';
import type { SqliteDatabase } from './database.ts';
import type { RowStatement } from './page-reader.ts';
import { SqlitePackedRows } from './sqlite-packed.ts';

/** Runs a read-only statement of the log and gives its rows as objects. */
export type RowReader = <T>(statement: RowStatement) => Promise<T[]>;

/**
 * History reads over the change log (packed events as PackedLogHistory reads them). Id lists travel
 * as one JSON array bound to `json_each`, so each filter combination is one SQL text and one
 * prepared statement, whatever the list length.
 *
 * The log's statements go through `read`, and packed records come from `packed`: a store's own
 * history (`SqliteStore.history()`, as `serve` opens it) runs them on its page reader's thread and
 * shares its cache of decoded records; by default they run on `db`, with a cache of their own.
 */
export class SqliteHistoryStore extends PackedLogHistory {
  private readonly statements = new Map<string, Database.Statement>();
  private readonly read: RowReader;

  constructor(db: SqliteDatabase, opts: { read?: RowReader; packed?: SqlitePackedRows } = {}) {
    super(opts.packed ?? new SqlitePackedRows(db));
    this.read = opts.read ?? (async <T>(st: RowStatement) => this.prepared(db, st.sql).all(...st.args) as T[]);
  }

  protected async logRows(q: HistoryQuery): Promise<PriceRecord[]> {
    const where: string[] = [];
    const args: (string | number)[] = [];
    if ('priceIds' in q) {
      if (q.priceIds.length === 0) return [];
      where.push(`price_id IN (SELECT value FROM json_each(?) WHERE ${UNPACKED})`);
      args.push(JSON.stringify(q.priceIds));
    } else {
      where.push(SQLITE.ofEvent(''), 'price_id IS NOT NULL');
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
    within(SQLITE.period(''), q.coverage?.periodIds);
    args.push(q.limit);
    // The ids are picked first (from an index alone when no filter needs the row), so only the
    // `limit` rows returned are read whole.
    const sql =
      'SELECT id, price_id, payload, detail FROM changes WHERE id IN (' +
      `SELECT id FROM changes WHERE ${where.join(' AND ')} ORDER BY id DESC LIMIT ?) ORDER BY id DESC`;
    return this.read<PriceRecord>({ sql, args });
  }

  protected logFirstRows(priceIds: readonly number[], uptoId: number): Promise<PriceRecord[]> {
    // One index probe per price: the first entry of its (price_id, id) range.
    return this.read<PriceRecord>({
      sql: `SELECT c.id, c.price_id, c.payload, c.detail FROM json_each(?) j
       JOIN changes c ON c.id = (SELECT min(id) FROM changes WHERE price_id = j.value AND id <= ?)
       WHERE ${UNPACKED}`,
      args: [JSON.stringify(priceIds), uptoId],
    });
  }

  protected logLastRows(priceIds: readonly number[], cutoff: string, uptoId: number): Promise<PriceRecord[]> {
    // Walks each price's index range backwards from its newest row to the first one at or before
    // the cutoff: one step before the start, one more per row written after it.
    return this.read<PriceRecord>({
      sql: `SELECT c.id, c.price_id, c.payload, c.detail FROM json_each(?) j
       JOIN changes c ON c.id = (
         SELECT id FROM changes WHERE price_id = j.value AND id <= ? AND at <= ? ORDER BY id DESC LIMIT 1)
       WHERE ${UNPACKED}`,
      args: [JSON.stringify(priceIds), uptoId, cutoff],
    });
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
