import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { once } from 'node:events';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import { promisify } from 'node:util';
import { SNAPSHOT_FILE } from '../../src/board/board-snapshot.ts';
import { TIERS } from '../../src/catalog/tiers.ts';
import { today } from '../helpers/fixtures.ts';
import { type ServedChild, serveChild } from '../helpers/serve-child.ts';

const run = promisify(execFile);

/** The node flags of `npm start` (its heap cap), read from package.json as npm would run them. */
function startFlags(): string[] {
  const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as { scripts: { start: string } };
  const m = /^exec node\s+(.*?)\s*bin\/oddsbase\.js serve$/.exec(pkg.scripts.start);
  assert.ok(m, `the start script has the expected shape: ${pkg.scripts.start}`);
  return m[1]!.split(/\s+/).filter(Boolean);
}

/** `npm start`'s server on `dataDir`, once it listens. */
function startServer(dataDir: string): Promise<ServedChild> {
  return serveChild(['--data-dir', dataDir], { nodeFlags: startFlags() });
}

test('the server as npm start runs it fills its history, answers keys of every tier, and starts again on it', async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'oddsbase-npm-start-'));
  let server = await startServer(dataDir);
  t.after(async () => {
    server.child.kill('SIGKILL');
    await server.exited;
    rmSync(dataDir, { recursive: true, force: true });
  });
  // Keys of every tier, made beside the running server as an operator would.
  const keys = await Promise.all(
    TIERS.map(async (tier) => {
      const { stdout } = await run(process.execPath, [
        'bin/oddsbase.js',
        'keys',
        'create',
        '--tier',
        tier,
        '--data-dir',
        dataDir,
      ]);
      return [tier, stdout.trim()] as const;
    }),
  );
  const path = `/api/v2/sports/4/events/${today()}`;
  for (let round = 0; round < 3; round++) {
    const answers = await Promise.all(
      keys.map(async ([tier, key]) => {
        const res = await fetch(server.url + path, {
          headers: { 'X-Service-Key': key },
          signal: AbortSignal.timeout(15_000),
        });
        const body = (await res.json()) as { events?: unknown[] };
        return {
          tier,
          status: res.status,
          events: body.events?.length ?? -1,
          delay: res.headers.get('x-data-delay-seconds'),
        };
      }),
    );
    for (const a of answers) {
      assert.equal(a.status, 200, `${a.tier}: ${a.status}`);
      assert.ok(a.events >= 0, a.tier);
    }
    // Delayed plans see the back-filled history at once: today's NBA games were planned hours ago.
    const free = answers.find((a) => a.tier === 'free')!;
    const ultra = answers.find((a) => a.tier === 'ultra')!;
    assert.equal(free.delay, '300');
    assert.ok(
      free.events > 0 && free.events === ultra.events,
      `Free sees ${free.events} events, Ultra ${ultra.events}`,
    );
    await new Promise((r) => setTimeout(r, 1100));
  }
  assert.equal(server.child.exitCode, null, `the server is alive:\n${server.output()}`);

  // A restart takes back the board the stop saved; one without it loads the whole store it filled,
  // under the same heap cap (the paged load: held whole, the latest prices and stat rows of one fill
  // exhausted it).
  const ultraKey = keys.find(([tier]) => tier === 'ultra')![1];
  const before = (await (await fetch(server.url + path, { headers: { 'X-Service-Key': ultraKey } })).json()) as {
    events: unknown[];
  };
  for (const how of ['the board snapshot', 'the load']) {
    server.child.kill('SIGTERM');
    assert.equal((await server.exited).code, 0, server.output());
    assert.ok(existsSync(join(dataDir, SNAPSHOT_FILE)), 'a clean stop saves the board');
    if (how === 'the load') rmSync(join(dataDir, SNAPSHOT_FILE));
    server = await startServer(dataDir);
    assert.equal(server.output().includes('took back the board saved'), how === 'the board snapshot', how);
    const res = await fetch(server.url + path, {
      headers: { 'X-Service-Key': ultraKey },
      signal: AbortSignal.timeout(15_000),
    });
    assert.equal(res.status, 200);
    const after = (await res.json()) as { events: unknown[] };
    assert.equal(after.events.length, before.events.length, `the server restarted from ${how} has the same events`);
    assert.equal(server.child.exitCode, null, `the restarted server is alive:\n${server.output()}`);
  }
});

/** Whether a process with this pid runs. */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** `npm start` on a new data directory without the simulator, once the server listens. */
async function npmStart(t: TestContext, opts: { group?: boolean } = {}) {
  const dataDir = mkdtempSync(join(tmpdir(), 'oddsbase-npm-signal-'));
  const npm = spawn(
    'npm',
    // --silent: npm prints no banner of its own on standard output (README, "The command").
    ['start', '--silent', '--', '--no-simulator', '--port', '0', '--host', '127.0.0.1', '--data-dir', dataDir],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
      // A process group of its own, led by npm: what a terminal's Ctrl-C signals.
      detached: opts.group === true,
    },
  );
  const npmExit = once(npm, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
  const server = { pid: 0 };
  t.after(() => {
    npm.kill('SIGKILL');
    if (server.pid && alive(server.pid)) process.kill(server.pid, 'SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  });
  let out = '';
  let stdout = '';
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`npm start did not listen:\n${out}`)), 60_000);
    const onData = (b: Buffer) => {
      out += b.toString();
      if (/oddsbase (listening on|ready)/.test(out)) {
        clearTimeout(timer);
        resolve();
      }
    };
    npm.stdout.on('data', (b: Buffer) => {
      stdout += b.toString();
      onData(b);
    });
    npm.stderr.on('data', onData);
  });
  server.pid = (JSON.parse(readFileSync(join(dataDir, 'oddsbase.lock'), 'utf8')) as { pid: number }).pid;
  return { npm, npmExit, dataDir, serverPid: server.pid, output: () => out, stdout: () => stdout };
}

/** Waits, bounded, for npm and then the server to be gone. */
async function gone(npmExit: Promise<unknown>, serverPid: number): Promise<void> {
  // Bounded: npm that ignores the signal fails the test rather than hanging it.
  await Promise.race([npmExit, new Promise((r) => setTimeout(r, 15_000))]);
  for (let i = 0; alive(serverPid) && i < 100; i++) await new Promise((r) => setTimeout(r, 100));
}

// Container stops and most supervisors signal only the process they started: here, npm.
for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  test(`${signal} sent to npm start's own process stops the server and frees its data directory`, async (t) => {
    const s = await npmStart(t);
    s.npm.kill(signal);
    await gone(s.npmExit, s.serverPid);
    assert.ok(!alive(s.serverPid), `the server (pid ${s.serverPid}) outlived npm:\n${s.output()}`);
    assert.ok(!existsSync(join(s.dataDir, 'oddsbase.lock')), 'the server stopped cleanly and removed its lock');
    const records = s.stdout().trim().split('\n');
    assert.ok(records.length > 0 && records[0] !== '');
    for (const line of records) assert.doesNotThrow(() => JSON.parse(line), `not a log record: ${line}`);
  });
}

// A terminal signals the whole group and npm forwards the signal too: the server gets two SIGINTs
// a few ms apart, which must not count as the second Ctrl-C that exits at once.
test("Ctrl-C at a terminal (SIGINT to npm start's process group) closes the server cleanly", async (t) => {
  const s = await npmStart(t, { group: true });
  // Once the server is idle (it compacts its heap then), as a person at a terminal finds it: two
  // signals that reach a busy event loop together are handled as one.
  for (let i = 0; !/heap compacted/.test(s.output()); i++) {
    assert.ok(i < 600, `the server never went idle:\n${s.output()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  process.kill(-s.npm.pid!, 'SIGINT');
  await gone(s.npmExit, s.serverPid);
  assert.ok(!alive(s.serverPid), `the server (pid ${s.serverPid}) outlived npm:\n${s.output()}`);
  assert.deepEqual((await s.npmExit)[0], 0, `a clean stop, not an exit at once:\n${s.output()}`);
  assert.doesNotMatch(s.output(), /exiting now/);
  assert.deepEqual(
    readdirSync(s.dataDir).sort(),
    [SNAPSHOT_FILE, 'oddsbase.db'],
    'the board saved for the next start; no lock and no write-ahead log left',
  );
});
