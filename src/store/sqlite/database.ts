import { existsSync, mkdirSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { META_SQL } from '../sql/meta.ts';
import { keyedByEventText, migrateEventKeys, migrateRetention, SCHEMA } from './schema.ts';

export type SqliteDatabase = Database.Database;

/**
 * SQLite's page cache of the server's own connection, in KiB. better-sqlite3 builds SQLite with
 * 16 MB, which the connection fills (packed history is read on it) and keeps in the main thread's
 * native heap. The operating system caches the file too, so a page missing here is read from memory.
 * 8 MB kept the history benchmark where it was and 4 MB made closing lines 30% slower (ingest did not
 * move even at 4 MB; docs/benchmarks.md, 2026-11-27). The page reader's thread keeps the default: its
 * reads by price id were slower with less.
 */
export const PAGE_CACHE_KIB = 8192;

/** The store's file name inside a data directory. */
export const STORE_FILE = 'oddsbase.db';

/** Opens (creating if needed) the embedded store file under `dataDir`, in WAL mode. */
export function openSqlite(dataDir: string): SqliteDatabase {
  mkdirSync(dataDir, { recursive: true });
  const db = new Database(join(dataDir, STORE_FILE));
  // Retention frees pages all the time; with incremental vacuuming the store can hand them back
  // to the file system (SqliteStore.compact), so the file follows what it holds instead of its
  // high-water mark. SQLite takes this setting only before the first table is made.
  if (db.prepare('SELECT 1 FROM sqlite_schema LIMIT 1').get() === undefined) db.pragma('auto_vacuum = INCREMENTAL');
  db.pragma('journal_mode = WAL');
  // WAL with synchronous=NORMAL is durable across process crashes; only an OS crash can lose
  // the last transactions, never corrupt the file.
  db.pragma('synchronous = NORMAL');
  db.pragma('busy_timeout = 5000');
  db.pragma(`cache_size = -${PAGE_CACHE_KIB}`);
  migrateEventKeys(db);
  db.exec(SCHEMA);
  migrateRetention(db);
  return db;
}

/**
 * Whether opening the store under `dataDir` would rewrite it: a file made by an older version, which
 * `openSqlite` upgrades in place (docs/operations.md, "Upgrades"). Only a process that holds the data
 * directory may do that.
 */
export function storeNeedsUpgrade(dataDir: string): boolean {
  const file = join(dataDir, STORE_FILE);
  if (!existsSync(file)) return false;
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    return keyedByEventText(db);
  } finally {
    db.close();
  }
}

/** Bytes the store's files (the database, its write-ahead log and shared-memory index) take on disk. */
export async function sqliteBytesOnDisk(dataDir: string): Promise<number> {
  const sizes = await Promise.all(
    ['', '-wal', '-shm'].map((suffix) =>
      stat(join(dataDir, STORE_FILE + suffix)).then(
        (s) => s.blocks * 512,
        () => 0,
      ),
    ),
  );
  return sizes.reduce((a, b) => a + b, 0);
}

/** A meta value of the store's file, read without opening a SqliteStore (the `keys` commands). */
export function readSqliteMeta(db: SqliteDatabase, key: string): string | undefined {
  const row = db.prepare(META_SQL.read.sqlite).get(key) as { value: string } | undefined;
  return row?.value;
}
