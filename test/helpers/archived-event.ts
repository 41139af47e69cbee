import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestContext } from 'node:test';
import type { ChangeRecord } from '../../src/changelog/change.ts';
import type { MarketRecord } from '../../src/store/store.ts';
import { openSqlite, type SqliteDatabase } from '../../src/store/sqlite/database.ts';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.ts';
import { BASE_MS, batch, EVENT_A, EVENT_B, eventRecord } from '../contract/fixtures.ts';

export interface ArchivedEvent {
  dir: string;
  db: SqliteDatabase;
  store: SqliteStore;
}

/**
 * A SQLite store in a fresh data directory (closed and removed after the test) holding `rows` of
 * events A and B, each event's record at its last row, and event A then archived: what the packing
 * steps start from.
 */
export async function storeWithArchivedEvent(
  t: TestContext,
  rows: ChangeRecord[],
  markets: MarketRecord[],
): Promise<ArchivedEvent> {
  const dir = mkdtempSync(join(tmpdir(), 'oddsbase-packing-'));
  const db = openSqlite(dir);
  const store = new SqliteStore(db);
  t.after(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const lastOf = (eventId: string) => Math.max(...rows.filter((r) => r.event_id === eventId).map((r) => r.id));
  await store.commit(
    batch(rows, { events: [eventRecord(EVENT_A, lastOf(EVENT_A)), eventRecord(EVENT_B, lastOf(EVENT_B))], markets }),
  );
  await store.archive({ eventIds: [EVENT_A], archivedMs: BASE_MS, seasonTotals: [] });
  return { dir, db, store };
}
