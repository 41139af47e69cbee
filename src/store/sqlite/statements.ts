import type Database from 'better-sqlite3';
import { CHANGE_SQL } from '../sql/changes.ts';
import { META_SQL } from '../sql/meta.ts';
import type { SqliteDatabase } from './database.ts';

/** A connection's statements, prepared once per distinct SQL text, and its small reads and writes. */
export class Statements {
  private readonly statements = new Map<string, Database.Statement>();

  constructor(readonly db: SqliteDatabase) {}

  /** Statements are prepared once per distinct SQL text; the filter combinations are few. */
  prepared(sql: string, raw = false): Database.Statement {
    const key = raw ? `raw:${sql}` : sql;
    let st = this.statements.get(key);
    if (!st) {
      st = this.db.prepare(sql);
      if (raw) st.raw(true);
      this.statements.set(key, st);
    }
    return st;
  }

  meta(key: string): string | undefined {
    const row = this.prepared(META_SQL.read.sqlite).get(key) as { value: string } | undefined;
    return row?.value;
  }

  writeMeta(key: string, value: string): void {
    this.prepared(META_SQL.write.sqlite).run(key, value);
  }

  /** The last row's id, 0 for an empty log. */
  headId(): number {
    return (this.prepared(CHANGE_SQL.head.sqlite).pluck().get() as number | null) ?? 0;
  }
}
