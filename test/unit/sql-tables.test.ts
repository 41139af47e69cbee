import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { MIGRATIONS } from '../../src/store/postgres/schema.ts';
import { openSqlite } from '../../src/store/sqlite/database.ts';
import {
  ADMIN_TOKENS_BY_PREFIX,
  ARCHIVED_BY_TIME,
  createIndex,
  createTable,
  KEYS_BY_PREFIX,
  MARKETS,
  RETENTION_TABLES,
} from '../../src/store/sql-tables.ts';

/** The tables both SQL stores define alike, written out in either dialect. */

test('a table in either dialect: SQLite makes it if missing, PostgreSQL compares keys byte by byte', () => {
  assert.equal(
    createTable(MARKETS, 'sqlite'),
    `CREATE TABLE IF NOT EXISTS markets (
  id INTEGER PRIMARY KEY,
  event_id TEXT NOT NULL,
  market_id INTEGER NOT NULL,
  period_id INTEGER NOT NULL,
  UNIQUE (event_id, market_id, period_id)
);`,
  );
  assert.equal(
    createTable(MARKETS, 'postgres'),
    `CREATE TABLE markets (
  id bigint PRIMARY KEY,
  event_id text COLLATE "C" NOT NULL,
  market_id integer NOT NULL,
  period_id integer NOT NULL,
  UNIQUE (event_id, market_id, period_id)
);`,
  );
  const packed = RETENTION_TABLES.find((t) => t.name === 'archived_rows')!;
  assert.match(createTable(packed, 'sqlite'), /^ {2}id INTEGER PRIMARY KEY,$/m);
  assert.match(createTable(packed, 'postgres'), /^ {2}id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,$/m);
  assert.equal(
    createIndex(ARCHIVED_BY_TIME, 'postgres'),
    'CREATE INDEX archived_events_by_time ON archived_events (archived_ms, event_id);',
  );
});

test('released PostgreSQL migrations are never edited, through the shared definitions either', () => {
  // A database made by an older oddsbase ran these texts; a change of schema is a new migration.
  const released: Record<number, string> = {
    1: '1157de09ab612a0ac9dc31575accb23f553392bb90b68461f3b9545ddd8f9747',
    2: '3c3849ad51403a819845d90578b1b2348800ebaa04299897dd7aaaaaa71d41cc',
    3: '947140ce11a61ffc1a0c5af21ffec93b3daee1f7dea7a969677e2a847465f213',
  };
  for (const m of MIGRATIONS.filter((x) => x.version in released)) {
    assert.equal(createHash('sha256').update(m.sql).digest('hex'), released[m.version], `migration ${m.version}`);
  }
});

test("SQLite reads archiving's marks by time through their index, in its order", (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'oddsbase-sql-tables-'));
  const db = openSqlite(dir);
  t.after(() => {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });
  // The statement of SqliteStore.archivedSince.
  const plan = db
    .prepare(
      'EXPLAIN QUERY PLAN SELECT event_id AS eventId, archived_ms AS archivedMs FROM archived_events WHERE archived_ms >= ? ORDER BY archived_ms, event_id',
    )
    .all(0) as { detail: string }[];
  const details = plan.map((p) => p.detail).join('; ');
  assert.match(details, /USING COVERING INDEX archived_events_by_time/);
  assert.doesNotMatch(details, /TEMP B-TREE/);
});

test('SQLite finds keys by prefix through their index, which a file made before it gains at open', (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'oddsbase-sql-tables-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const before = openSqlite(dir);
  before.exec(`DROP INDEX ${KEYS_BY_PREFIX.name}`);
  before.close();
  const db = openSqlite(dir);
  try {
    // The statement of a revocation by prefix (SqliteSecretStore.revoke).
    const plan = db
      .prepare('EXPLAIN QUERY PLAN UPDATE api_keys SET revoked_at = ? WHERE key_prefix = ? AND revoked_at IS NULL')
      .all('2026-12-07T00:00:00.000Z', 'ob_12345678') as { detail: string }[];
    assert.match(plan.map((p) => p.detail).join('; '), /USING INDEX api_keys_by_prefix \(key_prefix=\?\)/);
  } finally {
    db.close();
  }
  assert.equal(
    createIndex(KEYS_BY_PREFIX, 'postgres'),
    'CREATE INDEX api_keys_by_prefix ON api_keys (key_prefix);',
    "PostgreSQL's migration 1 made it",
  );
});

test('SQLite finds admin tokens by prefix through their index, which a file made before it gains at open', (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'oddsbase-sql-tables-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const before = openSqlite(dir);
  before.exec(`DROP INDEX ${ADMIN_TOKENS_BY_PREFIX.name}`);
  before.close();
  const db = openSqlite(dir);
  try {
    // The statements of a revocation by prefix (SqliteSecretStore.revoke, activeByPrefix).
    for (const sql of [
      'UPDATE admin_tokens SET revoked_at = ? WHERE token_prefix = ? AND revoked_at IS NULL',
      'SELECT token_hash FROM admin_tokens WHERE token_prefix = ? AND revoked_at IS NULL',
    ]) {
      const plan = db
        .prepare(`EXPLAIN QUERY PLAN ${sql}`)
        .all(...(sql.startsWith('UPDATE') ? ['t'] : []), 'oba_12345678');
      assert.match(
        (plan as { detail: string }[]).map((p) => p.detail).join('; '),
        /USING INDEX admin_tokens_by_prefix \(token_prefix=\?\)/,
        sql,
      );
    }
  } finally {
    db.close();
  }
  const migration = MIGRATIONS.find((m) => m.sql === createIndex(ADMIN_TOKENS_BY_PREFIX, 'postgres'));
  assert.ok(migration && migration.version > 3, 'a PostgreSQL migration after the released ones makes it');
  assert.equal(migration.sql, 'CREATE INDEX admin_tokens_by_prefix ON admin_tokens (token_prefix);');
});
