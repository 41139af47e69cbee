import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import type { RowStatement } from '../../src/store/sqlite/page-reader.ts';
import { openSqlite } from '../../src/store/sqlite/database.ts';
import { SqliteHistoryStore } from '../../src/store/sqlite/sqlite-history.ts';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.ts';
import { batch } from '../contract/fixtures.ts';
import { HEAD, log, pack } from '../contract/history.contract.ts';

test('a price packed between the log read and the record read is counted once', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'oddsbase-history-race-'));
  const db = openSqlite(dir);
  const store = new SqliteStore(db);
  try {
    await store.commit(batch(log()));
    // The log read sees the rows as a connection whose read began before the packing would (the
    // page reader's thread, a statement started first): recorded now, answered after the packing.
    const seen = new Map<string, unknown[]>();
    const keyOf = (st: RowStatement) => st.sql + JSON.stringify(st.args);
    const history = new SqliteHistoryStore(db, {
      read: async <T>(st: RowStatement): Promise<T[]> => {
        const key = keyOf(st);
        if (!seen.has(key)) seen.set(key, await store.readRows(st));
        return seen.get(key) as T[];
      },
    });
    const q = { priceIds: [1, 4], uptoId: HEAD, limit: 100 };
    const before = (await history.rows(q)).map((r) => r.id);
    await pack(store);
    assert.deepEqual(
      (await history.rows(q)).map((r) => r.id),
      before,
    );
    assert.deepEqual(before, [11, 10, 7, 5, 2]);
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
