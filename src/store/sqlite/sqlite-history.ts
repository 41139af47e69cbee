import type Database from 'better-sqlite3';
import type { HistoryQuery, PriceRecord } from '../history.ts';
import { PackedLogHistory } from '../packed-log-history.ts';
import { SQLITE } from '../sql/dialect.ts';
import { firstRowsStatement, lastRowsStatement, logRowsStatement } from '../sql/history-reads.ts';
import type { SqliteDatabase } from './database.ts';
import type { RowStatement } from './page-reader.ts';
import { SqlitePackedRows } from './sqlite-packed.ts';

/** Runs a read-only statement of the log and gives its rows as objects. */
export type RowReader = <T>(statement: RowStatement) => Promise<T[]>;

/**
 * History reads over the change log (packed events as PackedLogHistory reads them): the statements
 * of sql/history-reads.ts, each filter combination one SQL text and one prepared statement.
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
    const statement = logRowsStatement(SQLITE, q);
    return statement ? this.read<PriceRecord>(statement) : [];
  }

  protected logFirstRows(priceIds: readonly number[], uptoId: number): Promise<PriceRecord[]> {
    return this.read<PriceRecord>(firstRowsStatement(SQLITE, priceIds, uptoId));
  }

  protected logLastRows(priceIds: readonly number[], cutoff: string, uptoId: number): Promise<PriceRecord[]> {
    return this.read<PriceRecord>(lastRowsStatement(SQLITE, priceIds, cutoff, uptoId));
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
