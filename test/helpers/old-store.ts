import { join } from 'node:path';
import Database from 'better-sqlite3';
import type { StatsEntry } from '../../src/catalog/records.ts';
import { STORE_FILE } from '../../src/store/sqlite/database.ts';

/** The change log as the version before event keys made it: the event's text in every row and index. */
const TEXT_KEYED = `
CREATE TABLE changes (
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
INSERT INTO changes
  SELECT c.id, c.kind, k.event_id, c.sport_id, c.at, c.committed_ms, c.price_id, c.affiliate_id, c.market_id,
         c.payload, c.detail
    FROM keyed c JOIN event_keys k ON k.key = c.event_key;
DROP TABLE keyed;
DROP TABLE event_keys;
CREATE INDEX changes_by_event ON changes (event_id, id);
CREATE INDEX changes_by_price ON changes (price_id, id) WHERE price_id IS NOT NULL;
CREATE INDEX changes_by_event_market ON changes (event_id, market_id, id) WHERE price_id IS NOT NULL;
CREATE INDEX changes_plays ON changes (event_id, id) WHERE kind = 'play';
CREATE INDEX changes_stats ON changes (event_id, id) WHERE kind = 'stat';
CREATE INDEX changes_futures ON changes (kind, id)
  WHERE kind IN ('futures_board', 'futures_price', 'futures_settlement');
`;

/** Turns the closed store under `dir` into the layout the version before event keys wrote. */
export function toTextKeyed(dir: string): void {
  const old = new Database(join(dir, STORE_FILE));
  old.exec(`ALTER TABLE changes RENAME TO keyed;${TEXT_KEYED}`);
  old.close();
}

/**
 * Takes the catalog rows out of the closed store under `dir`: the store as the version before the
 * catalog was rows left it (its rows named sports, books and teams of the code's tables).
 */
export function withoutCatalog(dir: string): number {
  const old = new Database(join(dir, STORE_FILE));
  const removed = old.prepare("DELETE FROM changes WHERE kind = 'catalog'").run().changes;
  old.close();
  return removed;
}

/**
 * Appends `stats` records to the closed store under `dir` as rows of the catalog, past the ledger's
 * checks: a store as the version before stat ids were unique across sports could leave it, with an
 * id listed under two sports.
 */
export function appendStatsRecords(dir: string, records: readonly StatsEntry[]): void {
  const old = new Database(join(dir, STORE_FILE));
  const last = old
    .prepare("SELECT id, event_key, at, committed_ms FROM changes WHERE kind = 'catalog' ORDER BY id DESC LIMIT 1")
    .get() as { id: number; event_key: number; at: string; committed_ms: number };
  const head = old.prepare('SELECT max(id) FROM changes').pluck().get() as number;
  const insert = old.prepare(
    "INSERT INTO changes (id, kind, event_key, sport_id, at, committed_ms, payload) VALUES (?, 'catalog', ?, 0, ?, ?, ?)",
  );
  records.forEach((r, i) => insert.run(head + 1 + i, last.event_key, last.at, last.committed_ms, JSON.stringify(r)));
  old.close();
}
