import { changeColumns } from '../sql/changes.ts';
import { SQLITE } from '../sql/dialect.ts';
import type { ChangeQuery } from '../store.ts';
import type { PageStatements, RowStatement } from './page-reader.ts';

/** Whole rows a statement of `readChanges` asks of the page reader's thread. */
export const ROWS_PER_THREAD_READ = 250;

const ROW = changeColumns(SQLITE);

/** The statement of `readChanges`: whole rows in id order. */
export function rowsStatement(q: ChangeQuery): RowStatement {
  const { where, args } = changeFilter(q);
  return { sql: `SELECT ${ROW} FROM changes WHERE ${where} ORDER BY id LIMIT ?`, args };
}

/**
 * The statements of a page of payloads: SQLite joins them itself and hands over one buffer, no
 * string per row and no encoding. The aggregate takes the rows in the ordered subquery's order
 * (test/unit/change-feed.test.ts).
 */
export function pageStatements(q: ChangeQuery): PageStatements {
  const { where, args } = changeFilter(q);
  return {
    page: {
      sql: `SELECT count(*), max(id), CAST(group_concat(payload, ',') AS BLOB)
              FROM (SELECT id, payload FROM changes WHERE ${where} ORDER BY id LIMIT ?)`,
      args,
    },
    next: `SELECT 1 FROM changes WHERE ${where} LIMIT ?`,
  };
}

/** The WHERE clause of a change read and its arguments, the cursor (afterId) first and the LIMIT last. */
function changeFilter(q: ChangeQuery): {
  where: string;
  args: (number | string)[];
} {
  const where = ['id > ?', 'id <= ?'];
  if (q.pricesOnly) where.push('price_id IS NOT NULL');
  const args: (number | string)[] = [q.afterId, q.toId];
  if (q.sportId !== undefined) {
    where.push('sport_id = ?');
    args.push(q.sportId);
  }
  if (q.eventId !== undefined) {
    where.push(SQLITE.ofEvent(''));
    args.push(q.eventId);
  }
  if (q.eventIds !== undefined) {
    where.push('event_key IN (SELECT key FROM event_keys WHERE event_id IN (SELECT value FROM json_each(?)))');
    args.push(JSON.stringify(q.eventIds));
  }
  // An empty list matches nothing: `IN ()` is not SQL, so it is spelled as a false condition.
  const within = (column: string, ids: readonly number[] | undefined) => {
    if (ids === undefined) return;
    if (ids.length === 0) where.push('0');
    else {
      where.push(`${column} IN (${ids.map(() => '?').join(',')})`);
      args.push(...ids);
    }
  };
  within('affiliate_id', q.affiliateIds);
  within('market_id', q.marketIds);
  within(SQLITE.period(''), q.periodIds);
  args.push(q.limit);
  return { where: where.join(' AND '), args };
}
