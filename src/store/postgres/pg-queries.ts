import type pg from 'pg';
import { changeColumns } from '../sql/changes.ts';
import { POSTGRES } from '../sql/dialect.ts';
import { META_SQL } from '../sql/meta.ts';
import type { PgClient } from './database.ts';

/** Rows a load reads at a time (latest prices, stat rows), and a scan of price rows. */
export const LOAD_PAGE = 5000;

/** A change row's select list as `ChangeRecord` has it. */
export const ROW = changeColumns(POSTGRES);
export const FUTURES = "kind IN ('futures_board', 'futures_price', 'futures_settlement')";

/**
 * The change log's rows as the planner estimates them: the rows per page of its last ANALYZE times
 * the table's pages now (what the planner itself reckons with), so a log grown since is still
 * counted near enough. NULL when the table was never analysed (no statistics yet).
 */
export const ROWS_ESTIMATE = `
SELECT CASE WHEN c.reltuples < 0 OR c.relpages = 0 THEN NULL
            ELSE round(c.reltuples / c.relpages * (pg_relation_size(c.oid) / current_setting('block_size')::bigint))::bigint
       END AS n
  FROM pg_class c WHERE c.oid = 'changes'::regclass`;

/** The pool or one connection: what runs a statement. */
export type Queryable = Pick<pg.ClientBase, 'query'>;

export async function writeMeta(c: PgClient, key: string, value: string): Promise<void> {
  await c.query(META_SQL.write.postgres, [key, value]);
}

export async function readMeta(c: Queryable, key: string): Promise<string | undefined> {
  return (await c.query<{ value: string }>(META_SQL.read.postgres, [key])).rows[0]?.value;
}
