import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { openSqlite, STORE_FILE } from '../../src/store/sqlite/database.ts';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.ts';
import { eventRecord, priceRow } from '../contract/fixtures.ts';

/** A thousand change rows: fewer log pages than SQLite's automatic checkpoint waits for (1,000). */
async function writeRows(store: SqliteStore): Promise<void> {
  for (let b = 0; b < 10; b++) {
    const changes = Array.from({ length: 100 }, (_, i) => priceRow({ id: b * 100 + i + 1, price_id: i + 1 }));
    await store.commit({ changes, markets: [], events: [eventRecord(changes[0]!.event_id, changes[99]!.id)] });
  }
}

function sizes(dir: string): { db: number; wal: number } {
  const size = (suffix: string) => {
    try {
      return statSync(join(dir, STORE_FILE + suffix)).size;
    } catch {
      return 0;
    }
  };
  return { db: size(''), wal: size('-wal') };
}

async function withDir(run: (dir: string) => Promise<void>): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'oddsbase-checkpoint-'));
  try {
    await run(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test('a checkpointer thread moves the log into the database file without the writer', () =>
  withDir(async (dir) => {
    const store = new SqliteStore(openSqlite(dir), { checkpointMs: 20 });
    try {
      const before = sizes(dir).db;
      await writeRows(store);
      let after = sizes(dir).db;
      for (let i = 0; i < 100 && after <= before; i++) {
        await sleep(30);
        after = sizes(dir).db;
      }
      assert.ok(after > before, `the database file grew from ${before} to ${after} bytes`);
    } finally {
      await store.close();
    }
    assert.equal(sizes(dir).wal, 0, 'closing leaves an empty log: the thread stopped, the writer truncated it');
  }));

test('without a checkpointer the same rows stay in the log until SQLite checkpoints them itself', () =>
  withDir(async (dir) => {
    const store = new SqliteStore(openSqlite(dir), { checkpointMs: 0 });
    try {
      const before = sizes(dir).db;
      await writeRows(store);
      await sleep(300);
      assert.equal(sizes(dir).db, before);
      assert.ok(sizes(dir).wal > 200_000);
    } finally {
      await store.close();
    }
  }));
