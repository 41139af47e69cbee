import type pg from 'pg';
import type { ChangeQuery } from '../store.ts';
import type { PgClient } from './database.ts';

/** Rows a load reads at a time (latest prices, stat rows), and a scan of price rows. */
export const LOAD_PAGE = 5000;

/** A change row's columns as `ChangeRecord` has them. */
export const ROW = 'id, kind, event_id, sport_id, at, committed_ms, price_id, affiliate_id, market_id, payload, detail';
export const EVENT = 'event_id, sport_id, event_date, info, change_id';
export const MARKET = 'id, event_id, market_id, period_id';
/** A row of an event still on the board (archived events are left out of a start's load). */
export const LIVE = 'event_id NOT IN (SELECT event_id FROM archived_events)';
export const FUTURES = "kind IN ('futures_board', 'futures_price', 'futures_settlement')";

/** The pool or one connection: what runs a statement. */
export type Queryable = Pick<pg.ClientBase, 'query'>;

export async function writeMeta(c: PgClient, key: string, value: string): Promise<void> {
  await c.query(
    'INSERT INTO meta (key, value) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET value = excluded.value',
    [key, value],
  );
}

export async function readMeta(c: Queryable, key: string): Promise<string | undefined> {
  return (await c.query<{ value: string }>('SELECT value FROM meta WHERE key = $1', [key])).rows[0]?.value;
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
