import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { generateAdminToken, newAdminTokenRecord } from '../../src/access/admin-tokens.ts';
import { SNAPSHOT_FILE } from '../../src/board/board-snapshot.ts';
import { openSqlite } from '../../src/store/sqlite/database.ts';
import { SqliteAdminTokenStore } from '../../src/store/sqlite/sqlite-secrets.ts';
import { nbaEvent, price } from '../helpers/fixtures.ts';
import { serveChild } from '../helpers/serve-child.ts';

/**
 * A restart after a crash (no board snapshot) loads the store: its first line says how many rows
 * the store holds and gives no time it has not measured on this store, then progress lines say the
 * part it reads and how far; the load's time and rows are kept for the next start's estimate.
 */

const EVENT = 'lod0000000000000000000000000001';
/** Alternate totals enough for a few of the load's pages (5,000 rows each). */
const PRICES = 12_000;

test('kill -9, then a restart: the rows it loads, no untimed figure, progress lines while it loads', async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'oddsbase-crash-load-'));
  t.after(() => rmSync(dataDir, { recursive: true, force: true }));
  const token = generateAdminToken();
  const db = openSqlite(dataDir);
  await new SqliteAdminTokenStore(db).insert(newAdminTokenRecord(token));
  db.close();

  const first = await serveChild(['--feed', 'ingest', '--data-dir', dataDir], { timeoutMs: 120_000 });
  t.after(() => first.child.kill('SIGKILL'));
  const post = async (batchId: string, records: unknown[]) => {
    const res = await fetch(`${first.url}/admin/v1/ingest`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ batch_id: batchId, records }),
    });
    assert.equal(res.status, 200, await res.text());
  };
  await post('event', [{ kind: 'event', event: nbaEvent(EVENT) }]);
  for (let b = 0; b < PRICES / 6000; b++) {
    await post(
      `totals-${b}`,
      Array.from({ length: 6000 }, (_, k) =>
        price(EVENT, {
          market_id: 3,
          participant_id: k % 2,
          line: `${200 + b * 3000 + (k >> 1)}.5`,
          affiliate_id: 19,
          price: -110,
        }),
      ),
    );
  }
  first.child.kill('SIGKILL');
  await first.exited;
  assert.equal(existsSync(join(dataDir, SNAPSHOT_FILE)), false, 'a crash saves no board');
  const counted = openSqlite(dataDir);
  const rows = counted.prepare('SELECT count(*) FROM changes').pluck().get() as number;
  counted.close();
  assert.ok(rows > PRICES, `${rows} rows`);

  const again = await serveChild(['--feed', 'ingest', '--data-dir', dataDir], {
    env: { LOAD_PROGRESS_MS: '1' },
    timeoutMs: 120_000,
  });
  t.after(() => again.child.kill('SIGKILL'));
  const said = again.stderr();
  assert.ok(
    said.includes(
      `oddsbase: loading the store (${rows.toLocaleString('en-US')} changes; no load this large timed here yet, progress follows)`,
    ),
    said,
  );
  // Every change is recent: the board is loaded as it was before them, and they are applied again.
  const progress = said.match(/^oddsbase: loading the store: .*$/gm) ?? [];
  // The search of the events to replay says how far it is too, before the rest of the load.
  const searching = progress.filter((l) =>
    /^oddsbase: loading the store: recent events \d+% \(\d+ s so far, (about \d+ s left of them|measuring the time left)\)$/.test(
      l,
    ),
  );
  assert.ok(searching.length > 0, said);
  assert.ok(said.indexOf(searching.at(-1)!) < said.indexOf('oddsbase: loading the store: prices'), said);
  assert.ok(
    progress.some((l) =>
      /^oddsbase: loading the store: recent changes \d+% \(\d+ s so far, (about \d+ s left of them|measuring the time left)\)$/.test(
        l,
      ),
    ),
    said,
  );
  assert.ok(said.indexOf(progress.at(-1)!) < said.indexOf('oddsbase: store loaded in'), said);
  assert.equal((await fetch(`${again.url}/readyz`)).status, 200);

  again.child.kill('SIGTERM');
  assert.equal((await again.exited).code, 0, again.output());
  const kept = openSqlite(dataDir);
  const timing = JSON.parse(kept.prepare("SELECT value FROM meta WHERE key = 'store_load_ms'").pluck().get() as string);
  kept.close();
  assert.equal(timing.rows, rows, 'the next estimate is made from the rows this load read');
  assert.ok(timing.ms > 0);
});
