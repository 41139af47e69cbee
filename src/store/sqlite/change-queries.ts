import { changeColumns, changeFilter } from '../sql/changes.ts';
import { SQLITE } from '../sql/dialect.ts';
import type { ChangeQuery } from '../store.ts';
import type { PageStatements, RowStatement } from './page-reader.ts';

/** Whole rows a statement of `readChanges` asks of the page reader's thread. */
export const ROWS_PER_THREAD_READ = 250;

const ROW = changeColumns(SQLITE);

/** The statement of `readChanges`: whole rows in id order. */
export function rowsStatement(q: ChangeQuery): RowStatement {
  const { where, args } = changeFilter(SQLITE, q);
  return { sql: `SELECT ${ROW} FROM changes WHERE ${where} ORDER BY id LIMIT ?`, args };
}

/**
 * The statements of a page of payloads: SQLite joins them itself and hands over one buffer, no
 * string per row and no encoding. The aggregate takes the rows in the ordered subquery's order
 * (test/unit/change-feed.test.ts).
 */
export function pageStatements(q: ChangeQuery): PageStatements {
  const { where, args } = changeFilter(SQLITE, q);
  return {
    page: {
      sql: `SELECT count(*), max(id), CAST(group_concat(payload, ',') AS BLOB)
              FROM (SELECT id, payload FROM changes WHERE ${where} ORDER BY id LIMIT ?)`,
      args,
    },
    next: `SELECT 1 FROM changes WHERE ${where} LIMIT ?`,
  };
}
