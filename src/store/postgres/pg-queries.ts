import type pg from 'pg';
import { changeColumns } from '../sql/changes.ts';
import { POSTGRES } from '../sql/dialect.ts';
import { META_SQL } from '../sql/meta.ts';
import type { ChangeQuery } from '../store.ts';
import type { PgClient } from './database.ts';

/** Rows a load reads at a time (latest prices, stat rows), and a scan of price rows. */
export const LOAD_PAGE = 5000;

/** A change row's select list as `ChangeRecord` has it. */
export const ROW = changeColumns(POSTGRES);
export const FUTURES = "kind IN ('futures_board', 'futures_price', 'futures_settlement')";

/** The pool or one connection: what runs a statement. */
export type Queryable = Pick<pg.ClientBase, 'query'>;

export async function writeMeta(c: PgClient, key: string, value: string): Promise<void> {
  await c.query(META_SQL.write.postgres, [key, value]);
}

export async function readMeta(c: Queryable, key: string): Promise<string | undefined> {
  return (await c.query<{ value: string }>(META_SQL.read.postgres, [key])).rows[0]?.value;
}

/** The WHERE clause of a change read and its arguments, the LIMIT last. */
export function changeFilter(q: ChangeQuery): { where: string; args: unknown[] } {
  const args: unknown[] = [q.afterId, q.toId];
  const arg = (value: unknown) => {
    args.push(value);
    return `$${args.length}`;
  };
  const where = ['id > $1', 'id <= $2'];
  if (q.pricesOnly) where.push('price_id IS NOT NULL');
  if (q.sportId !== undefined) where.push(`sport_id = ${arg(q.sportId)}`);
  if (q.eventId !== undefined) where.push(`event_id = ${arg(q.eventId)}`);
  if (q.eventIds !== undefined) where.push(`event_id = ANY(${arg(q.eventIds)}::text[])`);
  const within = (column: string, ids: readonly number[] | undefined) => {
    if (ids === undefined) return;
    // An empty list matches nothing, as `= ANY('{}')` does.
    where.push(`${column} = ANY(${arg(ids)}::bigint[])`);
  };
  within('affiliate_id', q.affiliateIds);
  within('market_id', q.marketIds);
  within('period_id', q.periodIds);
  arg(q.limit);
  return { where: where.join(' AND '), args };
}
