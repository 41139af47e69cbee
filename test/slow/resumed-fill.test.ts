import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { SNAPSHOT_FILE } from '../../src/board/board-snapshot.ts';
import { openSqlite } from '../../src/store/sqlite/database.ts';
import { type ServedChild, serveChild } from '../helpers/serve-child.ts';
import { spawn } from 'node:child_process';
import { once } from 'node:events';

/** The event ids a data directory's store holds. */
function eventIds(dataDir: string): string[] {
  const db = openSqlite(dataDir);
  try {
    return db.prepare('SELECT event_id FROM events ORDER BY event_id').pluck().all() as string[];
  } finally {
    db.close();
  }
}

/** Waits until the server's output matches `pattern`. */
async function waitFor(server: ServedChild, pattern: RegExp): Promise<void> {
  for (let i = 0; !pattern.test(server.output()); i++) {
    assert.ok(i < 6000 && server.child.exitCode === null, `no ${pattern}:\n${server.output()}`);
    await sleep(100);
  }
}

/** A start on `dataDir`, stopped with SIGTERM once its history is whole (the days before today filled too). */
async function fill(dataDir: string): Promise<void> {
  const server = await serveChild(['--data-dir', dataDir, '--seed', '5']);
  await waitFor(server, /the history before \S+ is filled/);
  server.child.kill('SIGTERM');
  assert.equal((await server.exited).code, 0, server.output());
}

test('a first start stopped by Ctrl-C during the fill, started again, holds the same events as one never stopped', async (t) => {
  const whole = mkdtempSync(join(tmpdir(), 'oddsbase-fill-whole-'));
  const stopped = mkdtempSync(join(tmpdir(), 'oddsbase-fill-stopped-'));
  t.after(() => {
    rmSync(whole, { recursive: true, force: true });
    rmSync(stopped, { recursive: true, force: true });
  });
  await fill(whole);

  const child = spawn(
    process.execPath,
    ['bin/oddsbase.js', 'serve', '--port', '0', '--host', '127.0.0.1', '--seed', '5', '--data-dir', stopped],
    {
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  const exited = once(child, 'exit') as Promise<[number | null]>;
  let err = '';
  child.stderr.on('data', (b: Buffer) => (err += b.toString()));
  for (let i = 0; !/filling history [3-9]\d%/.test(err); i++) {
    assert.ok(i < 3000 && child.exitCode === null, `no fill progress:\n${err}`);
    await sleep(100);
  }
  child.kill('SIGINT');
  assert.equal((await exited)[0], 0, err);
  assert.deepEqual(
    readdirSync(stopped).sort(),
    [SNAPSHOT_FILE, 'oddsbase.db'],
    'nothing left that slows or confuses the next start: the store and the board it takes back',
  );

  await fill(stopped);
  // Both fills ran within minutes of each other: the window is the same unless a day boundary fell between.
  const [a, b] = [eventIds(whole), eventIds(stopped)];
  const missing = a.filter((id) => !b.includes(id));
  assert.ok(a.length > 1000, `${a.length} events`);
  assert.ok(missing.length <= 5, `${missing.length} of ${a.length} events missing after the resumed fill`);
  assert.ok(Math.abs(a.length - b.length) <= 5, `${a.length} events against ${b.length}`);
});

test('a first start stopped while the days before today are filled in the background goes on with them, to the same events', async (t) => {
  const whole = mkdtempSync(join(tmpdir(), 'oddsbase-past-whole-'));
  const stopped = mkdtempSync(join(tmpdir(), 'oddsbase-past-stopped-'));
  t.after(() => {
    rmSync(whole, { recursive: true, force: true });
    rmSync(stopped, { recursive: true, force: true });
  });
  await fill(whole);

  const server = await serveChild(['--data-dir', stopped, '--seed', '5']);
  await waitFor(server, /in the background [3-8]\d%/);
  server.child.kill('SIGINT');
  assert.equal((await server.exited).code, 0, server.output());
  assert.ok(!/is filled/.test(server.output()), 'stopped before the background part ended');
  assert.deepEqual(
    readdirSync(stopped).sort(),
    [SNAPSHOT_FILE, 'oddsbase.db'],
    'nothing left that slows or confuses the next start: the store and the board it takes back',
  );
  const db = openSqlite(stopped);
  const kept = db.prepare("SELECT value FROM meta WHERE key = 'history_fill_past'").pluck().get() as string;
  db.close();
  assert.ok(JSON.parse(kept).doneTo > 0, 'where the background part stands is kept');

  const again = await serveChild(['--data-dir', stopped, '--seed', '5']);
  await waitFor(again, /going on where a stopped start left it/);
  await waitFor(again, /the history before \S+ is filled/);
  again.child.kill('SIGTERM');
  assert.equal((await again.exited).code, 0, again.output());
  const [a, b] = [eventIds(whole), eventIds(stopped)];
  const missing = a.filter((id) => !b.includes(id));
  assert.ok(a.length > 1000, `${a.length} events`);
  assert.ok(missing.length <= 5, `${missing.length} of ${a.length} events missing after the resumed background part`);
  assert.ok(Math.abs(a.length - b.length) <= 5, `${a.length} events against ${b.length}`);
});
