// The driver's type itself: database.ts, which names it SqliteDatabase, imports this file.
import type Database from 'better-sqlite3';
import {
  ADMIN_TOKENS_BY_PREFIX,
  API_KEYS,
  ARCHIVED_BY_TIME,
  changeIndexes,
  COUNTERS,
  createIndex,
  createTable,
  EVENTS,
  INGEST_BATCHES,
  INGEST_BATCHES_BY_HEAD,
  KEYS_BY_PREFIX,
  MARKETS,
  META,
  RETENTION_TABLES,
} from '../sql-tables.ts';

/**
 * The futures kinds as the partial index `changes_futures` is defined: a query reads through that
 * index only when its WHERE holds this text (or one of its terms) as it is. Spelled as ORs: a list
 * of three in IN() made every insert build a temporary table to test the row against.
 */
export const FUTURES_KINDS = "(kind = 'futures_board' OR kind = 'futures_price' OR kind = 'futures_settlement')";

/**
 * The change log's table; its event is a key of `event_keys`, which statements shared with
 * PostgreSQL look up (sql/dialect.ts, SQLITE).
 */
const CHANGES_TABLE = `
CREATE TABLE IF NOT EXISTS changes (
  id INTEGER PRIMARY KEY,
  kind TEXT NOT NULL,
  event_key INTEGER NOT NULL,
  sport_id INTEGER NOT NULL,
  at TEXT NOT NULL,
  committed_ms INTEGER NOT NULL,
  price_id INTEGER,
  affiliate_id INTEGER,
  market_id INTEGER,
  payload TEXT NOT NULL,
  detail TEXT
);`;

/** The change log's indexes, kept apart from its table so that a rewrite of the log builds them once at its end. */
const CHANGES_INDEXES = changeIndexes('event_key', FUTURES_KINDS)
  .map((i) => createIndex(i, 'sqlite'))
  .join('\n');

/**
 * Events as the log names them: the 32-character id once, a small integer in every row and index
 * (with the text in the event indexes, a row cost about a fifth more to insert).
 */
const EVENT_KEYS_TABLE = `
CREATE TABLE IF NOT EXISTS event_keys (
  key INTEGER PRIMARY KEY,
  event_id TEXT NOT NULL UNIQUE
);`;

/** The embedded store's schema; statements are idempotent so opening an existing file is safe. */
export const SCHEMA = [
  createTable(META, 'sqlite'),
  EVENT_KEYS_TABLE,
  CHANGES_TABLE,
  CHANGES_INDEXES,
  ...[EVENTS, MARKETS, API_KEYS].map((t) => createTable(t, 'sqlite')),
  createIndex(KEYS_BY_PREFIX, 'sqlite'),
  // Listed by creation time, then rowid (PostgreSQL numbers its rows in a column instead).
  `CREATE TABLE IF NOT EXISTS admin_tokens (
  token_hash TEXT PRIMARY KEY,
  token_prefix TEXT NOT NULL,
  label TEXT NOT NULL DEFAULT '',
  created_at TEXT NOT NULL,
  revoked_at TEXT
);`,
  createIndex(ADMIN_TOKENS_BY_PREFIX, 'sqlite'),
  ...[INGEST_BATCHES, COUNTERS].map((t) => createTable(t, 'sqlite')),
  createIndex(INGEST_BATCHES_BY_HEAD, 'sqlite'),
].join('\n');

/**
 * Retention's own tables (sql-tables.ts), kept apart from SCHEMA so that changes to the log's
 * tables merge on their own, and the index of archiving's marks by time. Idempotent, run at every
 * open. Events archived before packing existed are queued by the last statement.
 */
export function migrateRetention(db: { exec(sql: string): unknown }): void {
  db.exec(`
${RETENTION_TABLES.map((t) => createTable(t, 'sqlite')).join('\n')}
${createIndex(ARCHIVED_BY_TIME, 'sqlite')}
INSERT INTO archive_pending (event_id, last_id)
  SELECT a.event_id, (SELECT coalesce(max(c.id), 0) FROM changes c
                       WHERE c.event_key = (SELECT key FROM event_keys k WHERE k.event_id = a.event_id))
    FROM archived_events a
   WHERE a.event_id NOT IN (SELECT event_id FROM archived_rows)
     AND a.event_id NOT IN (SELECT event_id FROM archive_pending);
`);
}

/**
 * Rewrites a change log written before event keys existed (`changes.event_id` the event's text) into
 * the current table, with the same ids and rows, in one transaction: a failure leaves the file as it
 * was. Runs before SCHEMA; does nothing on a current or empty file. The copy is in id order, and the
 * indexes are built once over the copied rows, which is quicker than keeping them up row by row.
 */
/** Whether the change log is the older one keyed by event text, which `migrateEventKeys` rewrites. */
export function keyedByEventText(db: Database.Database): boolean {
  const columns = db.prepare("SELECT name FROM pragma_table_info('changes')").pluck().all() as string[];
  return columns.includes('event_id');
}

export function migrateEventKeys(db: Database.Database): void {
  if (!keyedByEventText(db)) return;
  const oldIndexes = db
    .prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'changes' AND sql IS NOT NULL")
    .pluck()
    .all() as string[];
  db.transaction(() => {
    db.exec(EVENT_KEYS_TABLE);
    // Keys in the order the events first appear in the log.
    db.exec(`INSERT OR IGNORE INTO event_keys (event_id)
               SELECT event_id FROM changes GROUP BY event_id ORDER BY min(id)`);
    for (const name of oldIndexes) db.exec(`DROP INDEX "${name.replaceAll('"', '""')}"`);
    db.exec('ALTER TABLE changes RENAME TO changes_before_event_keys');
    db.exec(CHANGES_TABLE);
    db.exec(`INSERT INTO changes
               (id, kind, event_key, sport_id, at, committed_ms, price_id, affiliate_id, market_id, payload, detail)
             SELECT c.id, c.kind, k.key, c.sport_id, c.at, c.committed_ms, c.price_id, c.affiliate_id, c.market_id,
                    c.payload, c.detail
               FROM changes_before_event_keys c JOIN event_keys k ON k.event_id = c.event_id
              ORDER BY c.id`);
    db.exec('DROP TABLE changes_before_event_keys');
    db.exec(CHANGES_INDEXES);
  })();
}
