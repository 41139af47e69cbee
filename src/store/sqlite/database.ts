import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { SCHEMA } from './schema.ts';

export type SqliteDatabase = Database.Database;

/** Opens (creating if needed) the embedded store file under `dataDir`, in WAL mode. */
export function openSqlite(dataDir: string): SqliteDatabase {
  mkdirSync(dataDir, { recursive: true });
  const db = new Database(join(dataDir, 'oddsbase.db'));
  db.pragma('journal_mode = WAL');
  // WAL with synchronous=NORMAL is durable across process crashes; only an OS crash can lose
  // the last transactions, never corrupt the file.
  db.pragma('synchronous = NORMAL');
  db.pragma('busy_timeout = 5000');
  db.exec(SCHEMA);
  return db;
}
