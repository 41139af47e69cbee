import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import type { OddsbaseClient, StatDefinition } from '../../packages/client/src/index.ts';
import { Board } from '../../src/board/board.ts';
import { MemoryBus } from '../../src/bus/memory-bus.ts';
import type { StatsEntry } from '../../src/catalog/records.ts';
import { simulatorCatalog } from '../../src/catalog/simulator-catalog.ts';
import { upstreamCatalog } from '../../src/feeds/upstream/catalog-records.ts';
import { Ledger } from '../../src/ledger/ledger.ts';
import type { CatalogUpdate } from '../../src/ledger/updates.ts';
import { openSqlite } from '../../src/store/sqlite/database.ts';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.ts';
import { statsRecord } from '../helpers/fixtures.ts';

/**
 * The mirror's stats records keep each stat id with one sport, as the ledger requires: an upstream
 * that lists an id for several sports, or for a sport other than the one the mirror holds it under,
 * still has its catalog taken.
 */

const def = (sport_id: number, id: number): StatDefinition =>
  ({
    id,
    sport_id,
    name: `stat${id}`,
    display_name: `Stat ${id}`,
    abbreviation: 'S',
    category: 'test',
  }) as StatDefinition;

/** An upstream that lists no sports, books or markets, and these stat definitions. */
const upstream = (defs: StatDefinition[]) =>
  ({
    sports: async () => ({ data: { sports: [] } }),
    affiliates: async () => ({ data: { affiliates: [] } }),
    markets: async () => ({ data: [] }),
    stats: async () => ({ data: defs }),
  }) as unknown as OddsbaseClient;

test("an upstream's stats records keep each id with one sport, and the ledger takes them", async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'oddsbase-mirror-stats-'));
  const store = new SqliteStore(openSqlite(dir));
  const board = new Board();
  const ledger = await Ledger.open(store, board, new MemoryBus());
  t.after(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const at = '2026-11-23T10:00:00Z';
  await ledger.apply({
    at,
    updates: [
      ...simulatorCatalog().map((record): CatalogUpdate => ({ kind: 'catalog', record })),
      statsRecord(60, [60_001]),
      statsRecord(70, [70_001]),
      statsRecord(71, [71_001]),
    ],
  });
  const records = (
    await upstreamCatalog(
      upstream([
        // 71 takes 70_001, which 70 (listed after it) gives up.
        def(71, 71_001),
        def(71, 70_001),
        def(70, 70_002),
        // 60_001 stays with 60, which the upstream no longer lists; 4001 with the NBA.
        def(61, 61_001),
        def(61, 60_001),
        def(62, 61_001),
        def(62, 62_001),
        def(63, 4001),
        def(63, 63_001),
      ]),
      board.catalog,
      new AbortController().signal,
    )
  ).filter((r): r is StatsEntry => r.type === 'stats');
  assert.deepEqual(
    records.map((r) => [r.sport_id, r.stats.map((s) => s.id)]),
    [
      [70, [70_002]],
      [71, [71_001, 70_001]],
      [61, [61_001]],
      [62, [62_001]],
      [63, [63_001]],
    ],
  );
  await ledger.apply({ at, updates: records.map((record): CatalogUpdate => ({ kind: 'catalog', record })) });
  assert.deepEqual(board.catalog.sportsOfStat(70_001), [71]);
  assert.deepEqual(board.catalog.sportsOfStat(60_001), [60]);
});
