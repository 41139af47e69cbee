import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { SNAPSHOT_FILE } from '../../src/board/board-snapshot.ts';
import type { StatsEntry } from '../../src/catalog/records.ts';
import { simulatorCatalog } from '../../src/catalog/simulator-catalog.ts';
import { appendStatsRecords } from '../helpers/old-store.ts';
import { startTestServer } from '../helpers/server.ts';

/**
 * A store that lists a stat id under two sports (written before stat ids were unique across sports)
 * still starts with the simulator: its catalog is written as the ledger takes it, the stats record
 * that would clash left out and the clash named once.
 */

const simulatorStats = (sportId: number): StatsEntry => {
  const r = simulatorCatalog().find((c) => c.type === 'stats' && c.sport_id === sportId);
  assert.ok(r?.type === 'stats');
  return JSON.parse(JSON.stringify(r)) as StatsEntry;
};

/** The record as an older version wrote it: its first stat described otherwise. */
const older = (r: StatsEntry): StatsEntry => ({
  ...r,
  stats: r.stats.map((s, i) => (i === 0 ? { ...s, description: 'as an older version said it' } : s)),
});

test('a stat id listed under two sports: the simulator starts, that sport keeps its stored stats', async () => {
  const first = await startTestServer({ feed: 'ingest' });
  await first.close({ keepData: true });
  const nba = simulatorStats(4);
  const nfl = simulatorStats(1);
  const taken = nba.stats[0]!;
  appendStatsRecords(first.dataDir, [
    older(nba),
    older(nfl),
    // Golf's own record, naming NBA's first stat id: the simulator writes no stats record for golf.
    { type: 'stats', sport_id: 40, stats: [{ ...taken, name: 'strokes', display_name: 'Strokes' }] },
  ]);
  rmSync(join(first.dataDir, SNAPSHOT_FILE), { force: true });

  const s = await startTestServer({ dataDir: first.dataDir, simulator: true, sports: [41] });
  try {
    const named = s.said.filter((l) => l.includes('keeps its stored stats'));
    assert.deepEqual(named, [
      `oddsbase: sport 4 keeps its stored stats, not the simulator's: stat id ${taken.id} is listed by sport 40 too (stat ids are unique across sports)`,
    ]);
    assert.equal((await s.get('/readyz', {})).status, 200);
    const stats = async (sportId: number) =>
      (await s.get(`/api/v2/stats?sport_id=${sportId}`)).body as { id: number; description: string }[];
    // NBA keeps the stored record; the NFL's, which clashes with nothing, is the simulator's again.
    assert.equal((await stats(4))[0]!.description, 'as an older version said it');
    assert.equal((await stats(1))[0]!.description, nfl.stats[0]!.description);
    assert.deepEqual(
      (await stats(40)).map((x) => x.id),
      [taken.id],
    );
  } finally {
    await s.close();
  }
});
