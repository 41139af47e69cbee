import type { SecretRecord, SecretTable } from '../secret-tables.ts';
import { type SqlText, sqlText } from './dialect.ts';
import { valuesOf } from './row-codec.ts';

/** The statements of a table of hashed secrets, listed by `order` (an ORDER BY list: each store numbers its rows its own way). */
export interface SecretSql {
  insert: SqlText;
  byHash: SqlText;
  list: SqlText;
  /** Revokes the active secrets of the hash or the prefix bound (the revocation time first). */
  revokeByHash: SqlText;
  revokeByPrefix: SqlText;
  /** The active secrets of the prefix bound, read through the prefix index. */
  activeByPrefix: SqlText;
  count: SqlText;
}

export function secretSql<R extends SecretRecord>(t: SecretTable<R>, order: string): SecretSql {
  const columns = t.columns.join(', ');
  const revoke = (column: string) =>
    sqlText(`UPDATE ${t.name} SET revoked_at = ? WHERE ${column} = ? AND revoked_at IS NULL`);
  return {
    insert: sqlText(`INSERT INTO ${t.name} (${columns}) VALUES (${t.columns.map(() => '?').join(', ')})`),
    byHash: sqlText(`SELECT ${columns} FROM ${t.name} WHERE ${t.hash} = ?`),
    list: sqlText(`SELECT ${columns} FROM ${t.name} ORDER BY ${order}`),
    revokeByHash: revoke(t.hash),
    revokeByPrefix: revoke(t.prefix),
    activeByPrefix: sqlText(
      `SELECT ${columns} FROM ${t.name} WHERE ${t.prefix} = ? AND revoked_at IS NULL ORDER BY ${order}`,
    ),
    count: sqlText(`SELECT count(*) AS n FROM ${t.name}`),
  };
}

/** A secret's values in the order of its table's columns (the INSERT's parameters). */
export function secretValues<R extends SecretRecord>(t: SecretTable<R>, r: R): unknown[] {
  return valuesOf(r, t.columns);
}
