import type { HistoryQuery, PriceRecord } from '../history.ts';
import { type SqlDialect, sqlText } from './dialect.ts';
import { fieldsOf } from './row-codec.ts';

/**
 * The history reads of the change log (HistoryStore's rows, first rows and last rows before a
 * cutoff, of the prices no packed record holds: packed-log-history.ts reads those), one definition
 * for both SQL stores, each of which only runs the statement: SQLite on its page reader's thread
 * through a cache of prepared statements, PostgreSQL on its pool. Id lists are bound as one value
 * (`SqlDialect.list`), so each combination of filters is one SQL text.
 */

/** A price row is its record: selected by its field list. */
export const PRICE_FIELDS = fieldsOf<PriceRecord>({ id: true, price_id: true, payload: true, detail: true });

const COLUMNS = PRICE_FIELDS.join(', ');

/** A statement in one dialect, with its arguments. */
export interface HistoryStatement {
  sql: string;
  args: unknown[];
}

/** The conditions of `q` in `?` parameters, and their arguments in order. */
function historyWhere(d: SqlDialect, q: HistoryQuery): { where: string; args: unknown[] } {
  const where: string[] = [];
  const args: unknown[] = [];
  if ('priceIds' in q) {
    where.push(d.unpackedAmong('price_id'));
    args.push(d.list(q.priceIds));
  } else {
    where.push(d.ofEvent(''), 'price_id IS NOT NULL');
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
  if (q.mainLineOnly) where.push(d.payloadFlag('is_main_line'));
  const within = (column: string, ids: readonly number[] | undefined) => {
    if (ids === undefined) return;
    where.push(d.inList(column));
    args.push(d.list(ids));
  };
  within('affiliate_id', q.coverage?.affiliateIds);
  within('market_id', q.coverage?.marketIds);
  within(d.period(''), q.coverage?.periodIds);
  return { where: where.join(' AND '), args };
}

/** The statement of `q`'s rows in the log, newest first, at most `q.limit`; none for an empty price list. */
export function logRowsStatement(d: SqlDialect, q: HistoryQuery): HistoryStatement | undefined {
  if ('priceIds' in q && q.priceIds.length === 0) return undefined;
  const { where, args } = historyWhere(d, q);
  args.push(q.limit);
  return { sql: d.parameters(d.newestRows(COLUMNS, where)), args };
}

/** Each listed price's first (or last) row `search` finds, of the prices no packed record holds. */
const perPrice = (d: SqlDialect, search: string) =>
  `SELECT ${PRICE_FIELDS.map((f) => `c.${f}`).join(', ')} ` +
  `FROM ${d.eachListed(COLUMNS, `price_id = j.value AND ${search}`)} WHERE ${d.unpacked('j.value')}`;

export const HISTORY_SQL = {
  /** The first row at or below an id of each listed price: the first entry of its (price_id, id) range. */
  firstRows: sqlText((d) => perPrice(d, 'id <= ? ORDER BY id')),
  /**
   * The last row at or below an id and at or before a time of each listed price: its index range
   * walked backwards from the newest row, one step more per row written after the time.
   */
  lastRows: sqlText((d) => perPrice(d, 'id <= ? AND at <= ? ORDER BY id DESC')),
};

/** The statement of the first row at or below `uptoId` of each of `priceIds`. */
export function firstRowsStatement(d: SqlDialect, priceIds: readonly number[], uptoId: number): HistoryStatement {
  return { sql: HISTORY_SQL.firstRows[d.name], args: [d.list(priceIds), uptoId] };
}

/** The statement of the last row at or before `cutoff` (and at or below `uptoId`) of each of `priceIds`. */
export function lastRowsStatement(
  d: SqlDialect,
  priceIds: readonly number[],
  cutoff: string,
  uptoId: number,
): HistoryStatement {
  return { sql: HISTORY_SQL.lastRows[d.name], args: [d.list(priceIds), uptoId, cutoff] };
}
