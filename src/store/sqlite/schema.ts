/** The embedded store's schema; statements are idempotent so opening an existing file is safe. */
export const SCHEMA = `
CREATE TABLE IF NOT EXISTS meta (
  key TEXT PRIMARY KEY,
  value TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS changes (
  id INTEGER PRIMARY KEY,
  kind TEXT NOT NULL,
  event_id TEXT NOT NULL,
  sport_id INTEGER NOT NULL,
  at TEXT NOT NULL,
  committed_ms INTEGER NOT NULL,
  price_id INTEGER,
  affiliate_id INTEGER,
  market_id INTEGER,
  payload TEXT NOT NULL,
  detail TEXT
);
CREATE INDEX IF NOT EXISTS changes_by_event ON changes (event_id, id);
CREATE INDEX IF NOT EXISTS changes_by_price ON changes (price_id, id) WHERE price_id IS NOT NULL;
-- The line chart of one market reads that market's rows only, not the whole event's.
CREATE INDEX IF NOT EXISTS changes_by_event_market ON changes (event_id, market_id, id)
  WHERE price_id IS NOT NULL;
-- An event's plays are paged by their rank; its stat rows make its box score.
CREATE INDEX IF NOT EXISTS changes_plays ON changes (event_id, id) WHERE kind = 'play';
CREATE INDEX IF NOT EXISTS changes_stats ON changes (event_id, id) WHERE kind = 'stat';
-- A start reads the futures boards' newest rows without scanning the other kinds.
CREATE INDEX IF NOT EXISTS changes_futures ON changes (kind, id)
  WHERE kind IN ('futures_board', 'futures_price', 'futures_settlement');
CREATE TABLE IF NOT EXISTS events (
  event_id TEXT PRIMARY KEY,
  sport_id INTEGER NOT NULL,
  event_date TEXT NOT NULL,
  info TEXT NOT NULL,
  change_id INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS markets (
  id INTEGER PRIMARY KEY,
  event_id TEXT NOT NULL,
  market_id INTEGER NOT NULL,
  period_id INTEGER NOT NULL,
  UNIQUE (event_id, market_id, period_id)
);
CREATE TABLE IF NOT EXISTS api_keys (
  key_hash TEXT PRIMARY KEY,
  key_prefix TEXT NOT NULL,
  tier TEXT NOT NULL,
  label TEXT NOT NULL DEFAULT '',
  created_at TEXT NOT NULL,
  revoked_at TEXT,
  expires_at TEXT,
  billing TEXT NOT NULL DEFAULT 'monthly',
  budget_cap_usd REAL,
  v1 INTEGER NOT NULL DEFAULT 0,
  v2 INTEGER NOT NULL DEFAULT 1,
  credits INTEGER NOT NULL DEFAULT 0,
  credits_expiry TEXT,
  custom TEXT
);
CREATE TABLE IF NOT EXISTS counters (
  key TEXT PRIMARY KEY,
  value INTEGER NOT NULL,
  expires_at INTEGER NOT NULL
);
`;

/**
 * Retention's own tables, kept apart from SCHEMA so that changes to the log's tables merge on their
 * own. Idempotent, run at every open:
 * - `archived_events`: events that left the in-memory board (finished long enough ago); a start
 *   loads the board without them and their reads come from the store.
 * - `season_totals`: the summed box scores of archived games per sport, team, season year and
 *   season type, so that season aggregates keep counting games the board no longer holds.
 * - `archived_rows`: the packed record of an archived event's rows (store/packed-rows.ts), once
 *   they all lie below the retained boundary; `archived_prices` finds the record of a price;
 *   `archive_pending` holds the archived events not packed yet, with their last row's id. Events
 *   archived before packing existed are queued by the last statement.
 */
export function migrateRetention(db: { exec(sql: string): unknown }): void {
  db.exec(`
CREATE TABLE IF NOT EXISTS archived_events (
  event_id TEXT PRIMARY KEY,
  archived_ms INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS season_totals (
  season_key TEXT PRIMARY KEY,
  body TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS archived_rows (
  id INTEGER PRIMARY KEY,
  event_id TEXT NOT NULL UNIQUE,
  body BLOB NOT NULL
);
CREATE TABLE IF NOT EXISTS archived_prices (
  price_id INTEGER PRIMARY KEY,
  record INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS archive_pending (
  event_id TEXT PRIMARY KEY,
  last_id INTEGER NOT NULL
);
INSERT INTO archive_pending (event_id, last_id)
  SELECT a.event_id, (SELECT coalesce(max(c.id), 0) FROM changes c WHERE c.event_id = a.event_id)
    FROM archived_events a
   WHERE a.event_id NOT IN (SELECT event_id FROM archived_rows)
     AND a.event_id NOT IN (SELECT event_id FROM archive_pending);
`);
}
