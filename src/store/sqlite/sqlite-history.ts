import type Database from 'better-sqlite3';
import type { HistoryQuery, HistoryStore, PriceRecord } from '../history.ts';
import type { SqliteDatabase } from './database.ts';

/**
 * History reads over the change log. Id lists travel as one JSON array bound to `json_each`, so
 * each filter combination is one SQL text and one prepared statement, whatever the list length.
 */
export class SqliteHistoryStore implements HistoryStore {
  private readonly statements = new Map<string, Database.Statement>();

  constructor(private readonly db: SqliteDatabase) {}

  async rows(q: HistoryQuery): Promise<PriceRecord[]> {
    const where: string[] = [];
    const args: (string | number)[] = [];
    if ('priceIds' in q) {
      if (q.priceIds.length === 0) return [];
      where.push('price_id IN (SELECT value FROM json_each(?))');
      args.push(JSON.stringify(q.priceIds));
    } else {
      where.push('event_id = ?', 'price_id IS NOT NULL');
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
    return this.prepared(sql).all(...args) as PriceRecord[];
  }

  async firstRows(priceIds: readonly number[], uptoId: number): Promise<PriceRecord[]> {
    if (priceIds.length === 0) return [];
    // One index probe per price: the first entry of its (price_id, id) range.
    return this.prepared(
      `SELECT c.id, c.price_id, c.payload, c.detail FROM json_each(?) j
       JOIN changes c ON c.id = (SELECT min(id) FROM changes WHERE price_id = j.value AND id <= ?)`,
    ).all(JSON.stringify(priceIds), uptoId) as PriceRecord[];
  }

  async lastRowsAtOrBefore(priceIds: readonly number[], cutoff: string, uptoId: number): Promise<PriceRecord[]> {
    if (priceIds.length === 0) return [];
    // Walks each price's index range backwards from its newest row to the first one at or before
    // the cutoff: one step before the start, one more per row written after it.
    return this.prepared(
      `SELECT c.id, c.price_id, c.payload, c.detail FROM json_each(?) j
       JOIN changes c ON c.id = (
         SELECT id FROM changes WHERE price_id = j.value AND id <= ? AND at <= ? ORDER BY id DESC LIMIT 1)`,
    ).all(JSON.stringify(priceIds), uptoId, cutoff) as PriceRecord[];
  }

  /** Prepared once per distinct SQL text; the filter combinations are few. */
  private prepared(sql: string): Database.Statement {
    let st = this.statements.get(sql);
    if (!st) {
      st = this.db.prepare(sql);
      this.statements.set(sql, st);
    }
    return st;
  }
}
