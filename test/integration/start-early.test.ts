import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { SNAPSHOT_FILE } from '../../src/board/board-snapshot.ts';
import { openSqlite } from '../../src/store/sqlite/database.ts';

/**
 * The port opens before the store is loaded and the history filled: probes see the server alive
 * and what it does, and nothing reads a board that is not loaded. A signal during the fill stops
 * it between two steps and leaves the store closed, with where the fill stands.
 */
test('the first start answers at once, says its step and time left, refuses the API until ready, and stops cleanly on SIGINT', async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'oddsbase-early-'));
  const child = spawn(
    process.execPath,
    ['bin/oddsbase.js', 'serve', '--port', '0', '--host', '127.0.0.1', '--data-dir', dataDir],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  const exited = once(child, 'exit') as Promise<[number | null, string | null]>;
  t.after(() => {
    child.kill('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  });
  let stderr = '';
  child.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
  let url = '';
  for (let i = 0; !url; i++) {
    assert.ok(i < 300, `no starting line:\n${stderr}`);
    url = /oddsbase starting on (\S+):/.exec(stderr)?.[1] ?? '';
    await sleep(100);
  }
  assert.equal((await fetch(`${url}/healthz`)).status, 200);
  let step = '';
  for (let i = 0; !/filling history \d+% .*s left/.test(step); i++) {
    assert.ok(i < 600, `no fill progress with the time left:\n${stderr}`);
    const ready = await fetch(`${url}/readyz`);
    assert.equal(ready.status, 503);
    step = ((await ready.json()) as { step: string }).step;
    await sleep(100);
  }
  const api = await fetch(`${url}/api/v2/sports/4/events/2026-11-29`);
  assert.equal(api.status, 503);
  assert.equal(api.headers.get('retry-after'), '5');
  assert.match(((await api.json()) as { message: string }).message, /starting: filling history/);
  assert.match(stderr, /oddsbase: filling history \d+% \(\d+ changes, about \d+ s left\)/);

  child.kill('SIGINT');
  const [code] = await exited;
  assert.equal(code, 0, stderr);
  assert.ok(!stderr.includes('listening on'), 'stopped before it listened');
  // The board saved by the stop is taken back by the next start, which goes on with the fill.
  assert.deepEqual(readdirSync(dataDir).sort(), [SNAPSHOT_FILE, 'oddsbase.db'], 'no lock and no write-ahead log left');
  const db = openSqlite(dataDir);
  const fill = db.prepare("SELECT value FROM meta WHERE key = 'history_fill'").pluck().get() as string;
  db.close();
  assert.ok(JSON.parse(fill).doneTo > 0, 'where the fill stands is kept for the next start');
});
