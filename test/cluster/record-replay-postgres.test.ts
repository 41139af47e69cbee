import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { Board } from '../../src/board/board.ts';
import { MemoryBus } from '../../src/bus/memory-bus.ts';
import { recordLog, replayIntoStore } from '../../src/cli/recording.ts';
import { resolveServeConfig } from '../../src/config.ts';
import { Ledger } from '../../src/ledger/ledger.ts';
import { beginFreshLog, epochGaps } from '../../src/ops/backup.ts';
import { openSqlite } from '../../src/store/sqlite/database.ts';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.ts';
import { batch, moneylineMoves, nbaEvent, nbaPrices, score } from '../helpers/fixtures.ts';
import { type PostgresService, startPostgres } from './services/postgres.ts';

/** Record and replay through a PostgreSQL store: a SQLite log replayed into it and recorded back. */

const work = mkdtempSync(join(tmpdir(), 'oddsbase-record-pg-'));
let service: PostgresService | undefined;
after(async () => {
  await service?.stop();
  rmSync(work, { recursive: true, force: true });
});

const E = 'f'.repeat(32);

async function sqliteLog(dir: string): Promise<void> {
  const clock = { now: Date.parse('2026-11-23T18:00:00Z') };
  const store = new SqliteStore(openSqlite(dir));
  await beginFreshLog(store, clock.now);
  const ledger = await Ledger.open(store, new Board(), new MemoryBus(), {
    now: () => clock.now,
    idsAbove: (await epochGaps(store)).at(-1)?.to,
  });
  const at = () => new Date(clock.now).toISOString();
  // Named batches (as ingest commits them) among unnamed ones, one of them changing nothing.
  await ledger.applyNamed({
    ...batch(at(), [{ kind: 'event', event: nbaEvent(E, '2026-11-23') }, ...nbaPrices(E)]),
    batch_id: 'pg-1',
  });
  for (const b of moneylineMoves(E, 3, at())) {
    clock.now += 10_000;
    await ledger.apply({ ...b, at: at() });
  }
  await ledger.applyNamed({ at: at(), updates: [], batch_id: 'pg-empty' });
  await ledger.applyNamed({
    ...batch(at(), [{ kind: 'score', event_id: E, score: score(E, 'STATUS_IN_PROGRESS', 1, 0) }]),
    batch_id: 'pg-2',
  });
  await store.close();
}

/** A recording's lines but the header's time of recording. */
const rowsText = (file: string) => readFileSync(file, 'utf8').split('\n').slice(1).join('\n');

test('a log replayed into PostgreSQL records back line for line, its named batches included', async () => {
  service = await startPostgres();
  const dir = join(work, 'sqlite');
  await sqliteLog(dir);
  const fromSqlite = join(work, 'from-sqlite.ndjson');
  const recorded = await recordLog({ dataDir: dir }, fromSqlite, 0);
  assert.equal(recorded.batches, 3);
  const databaseUrl = await service.createDatabase();
  const config = resolveServeConfig({ dataDir: join(work, 'unused'), databaseUrl, simulator: false }, {});
  const result = await replayIntoStore(config, fromSqlite, { speed: 0, append: false });
  assert.equal(result.complete, true);
  const fromPg = join(work, 'from-pg.ndjson');
  await recordLog({ dataDir: join(work, 'unused'), databaseUrl }, fromPg, 0);
  assert.ok(rowsText(fromPg) === rowsText(fromSqlite), 'the same rows');
  const header = (file: string) => ({ ...JSON.parse(readFileSync(file, 'utf8').split('\n')[0]!), recorded_at: '' });
  assert.deepEqual(header(fromPg), header(fromSqlite));
});
