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

/** The pool or one connection: what runs a statement. */
export type Queryable = Pick<pg.ClientBase, 'query'>;

export async function writeMeta(c: PgClient, key: string, value: string): Promise<void> {
  await c.query(META_SQL.write.postgres, [key, value]);
}

export async function readMeta(c: Queryable, key: string): Promise<string | undefined> {
  return (await c.query<{ value: string }>(META_SQL.read.postgres, [key])).rows[0]?.value;
}
