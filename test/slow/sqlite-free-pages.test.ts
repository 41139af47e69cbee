import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import Database from 'better-sqlite3';
import { openSqlite, STORE_FILE } from '../../src/store/sqlite/database.ts';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.ts';
import { BASE_MS, batch, eventRecord, eventRow, EVENT_A, marketRecord, priceRow } from '../contract/fixtures.ts';

const ROWS = 60_000;
/** Price ids the rows cycle through: each keeps its opener, last row before the start and last row. */
const PRICES = 50;

/** A store in `dir` holding ROWS price rows of one event, then compacted until nothing is left to do. */
async function compacted(dir: string): Promise<{ db: Database.Database; store: SqliteStore; before: number }> {
  const db = openSqlite(dir);
  const store = new SqliteStore(db);
  await store.commit(
    batch([eventRow({ id: 1 })], { events: [eventRecord(EVENT_A, 1)], markets: [marketRecord(1, EVENT_A, 1)] }),
  );
  for (let id = 2; id <= ROWS; id += 1000) {
    const rows = [];
    for (let i = id; i < Math.min(id + 1000, ROWS + 1); i++)
      rows.push(priceRow({ id: i, price_id: i % PRICES, price: -100 - (i % 40) }));
    await store.commit(batch(rows));
  }
  const before = db.pragma('page_count', { simple: true }) as number;
  while ((await store.compact({ cutoffMs: BASE_MS + (ROWS + 10) * 1000, maxRows: 5000 })).more);
  return { db, store, before };
}

test('a new store gives the pages of dropped rows back to the file system, a few at a time', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'oddsbase-free-pages-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const { db, store, before } = await compacted(dir);
  t.after(() => store.close());
  assert.equal(db.pragma('auto_vacuum', { simple: true }), 2, 'made with auto_vacuum = INCREMENTAL');
  const after = db.pragma('page_count', { simple: true }) as number;
  const free = db.pragma('freelist_count', { simple: true }) as number;
  // 60,000 rows of about 600 bytes took thousands of pages; 150 rows are kept.
  assert.ok(before > 8000, `${before} pages before`);
  assert.ok(free <= 4096, `${free} free pages left, at most the 4,096 kept for new rows`);
  assert.ok(after <= 4096 + 200, `${after} pages after (${before} before)`);
  await store.close();
  assert.ok(statSync(join(dir, STORE_FILE)).size <= (4096 + 200) * 4096, 'the file itself shrank');
});

test('the rows a compaction keeps read the same whether the pages were given back or not', async (t) => {
  const dirs = [
    mkdtempSync(join(tmpdir(), 'oddsbase-free-pages-')),
    mkdtempSync(join(tmpdir(), 'oddsbase-free-pages-')),
  ];
  t.after(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));
  // A file made before incremental vacuuming: a table exists before the store first opens it.
  const old = new Database(join(dirs[1]!, STORE_FILE));
  old.exec('CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)');
  old.close();
  const [fresh, legacy] = [await compacted(dirs[0]!), await compacted(dirs[1]!)];
  t.after(() => Promise.all([fresh.store.close(), legacy.store.close()]));
  assert.equal(legacy.db.pragma('auto_vacuum', { simple: true }), 0);
  assert.equal(
    legacy.db.pragma('page_count', { simple: true }),
    legacy.before,
    'an older file keeps its pages for reuse',
  );
  const read = (s: SqliteStore) => s.readChanges({ pricesOnly: false, afterId: 0, toId: ROWS + 1, limit: 5000 });
  const kept = await read(fresh.store);
  assert.ok(kept.length >= PRICES && kept.length <= 4 * PRICES, `${kept.length} rows kept`);
  assert.deepEqual(kept, await read(legacy.store));
});
