import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { openSqlite, type SqliteDatabase } from '../../src/store/sqlite/database.ts';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.ts';

/**
 * What runs on a timer or per request must not read the whole change log: a retention step runs
 * every 250 ms, and one statement that scanned the table (min(id) and max(id) in one SELECT) took
 * most of a CPU on a server with a million rows. These tests record every statement a method
 * prepares and ask SQLite for its plan.
 */

/** Opens a store whose database records the SQL text of every statement prepared from now on. */
function recordingStore(): { store: SqliteStore; db: SqliteDatabase; sql: string[]; done(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'oddsbase-plans-'));
  const db = openSqlite(dir);
  const sql: string[] = [];
  const prepare = db.prepare.bind(db);
  db.prepare = ((text: string) => {
    sql.push(text);
    return prepare(text);
  }) as typeof db.prepare;
  const store = new SqliteStore(db);
  sql.length = 0;
  return {
    store,
    db,
    sql,
    done() {
      db.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The plan lines of statements that read every row of `changes` (a scan, with or without an index). */
function fullScans(db: SqliteDatabase, statements: readonly string[]): string[] {
  const out: string[] = [];
  for (const text of [...statements]) {
    const params = (text.match(/\?/g) ?? []).map(() => 0);
    const plan = db.prepare(`EXPLAIN QUERY PLAN ${text}`).all(...params) as { detail: string }[];
    for (const { detail } of plan) if (/^SCAN changes\b/.test(detail)) out.push(`${detail}: ${text.trim()}`);
  }
  return out;
}

test('finding the first id committed since a time reads the log by its key, never whole', async () => {
  const r = recordingStore();
  try {
    await r.store.firstIdCommittedSince(Date.now());
    assert.ok(r.sql.length > 0);
    assert.deepEqual(fullScans(r.db, r.sql), []);
  } finally {
    r.done();
  }
});

test('a retention step reads the log by its key, never whole', async () => {
  const r = recordingStore();
  try {
    await r.store.compact({ cutoffMs: Date.now(), maxRows: 100 });
    await r.store.retained();
    assert.ok(r.sql.length > 0);
    assert.deepEqual(fullScans(r.db, r.sql), []);
  } finally {
    r.done();
  }
});
