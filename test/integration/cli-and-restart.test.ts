import assert from 'node:assert/strict';
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { once } from 'node:events';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { promisify } from 'node:util';
import { lockDataDir } from '../../src/store/data-dir-lock.ts';
import { openSqlite, storeNeedsUpgrade } from '../../src/store/sqlite/database.ts';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.ts';
import { EVENT_A, batch as rowBatch, eventRecord, eventRow, priceRow } from '../contract/fixtures.ts';
import { batch, nbaEvent, nbaPrices, price, today } from '../helpers/fixtures.ts';
import { toTextKeyed } from '../helpers/old-store.ts';
import { serveChild } from '../helpers/serve-child.ts';
import { startTestServer } from '../helpers/server.ts';

const run = promisify(execFile);
const cli = (...args: string[]) => run(process.execPath, ['bin/oddsbase.js', ...args], { cwd: process.cwd() });

test('the first start prints one demo key with a curl command; later starts never do', async () => {
  const first = await startTestServer();
  const keyLine = first.said.find((l) => /^\s+ob_[0-9a-f]{40}$/.test(l));
  assert.ok(keyLine, first.said.join('\n'));
  const demo = keyLine.trim();
  assert.ok(first.said.some((l) => l.includes('curl') && l.includes(demo)));
  assert.equal((await first.get('/api/v2/markets', { 'X-Service-Key': demo })).status, 200);
  assert.equal((await first.get('/api/v1/sports', { 'X-Service-Key': demo })).status, 200, 'the demo key has V1 too');
  await first.close({ keepData: true });

  const second = await startTestServer({ dataDir: first.dataDir });
  try {
    assert.ok(!second.said.some((l) => l.includes('ob_')), second.said.join('\n'));
    assert.equal((await second.get('/api/v2/markets', { 'X-Service-Key': demo })).status, 200);
  } finally {
    await second.close();
  }
});

test("the README's first-look banner is what a first start prints on a terminal", async () => {
  const readme = readFileSync('README.md', 'utf8');
  const section = readme.slice(readme.indexOf('## A first look'));
  const block = /```text\n([\s\S]*?)```/.exec(section)?.[1];
  assert.ok(block, 'the README shows the banner under "A first look"');
  const s = await startTestServer();
  try {
    const demo = s.said.find((l) => /^\s+ob_[0-9a-f]{40}$/.test(l))!.trim();
    // As npm start prints it (port 8080 on every address, ./data), with this server's values.
    const expected = block
      .trimEnd()
      .split('\n')
      .map((l) =>
        l.replaceAll('ob_5f0c…', demo).replaceAll('./data', s.dataDir).replaceAll('http://localhost:8080', s.url),
      );
    const at = s.said.indexOf(expected[0]!);
    assert.ok(at >= 0, `no banner:\n${s.said.join('\n')}`);
    // The whole banner: up to the blank line that ends it.
    const end = s.said.indexOf('', at);
    assert.deepEqual(s.said.slice(at, end < 0 ? undefined : end), expected);
  } finally {
    await s.close();
  }
});

test('keys create prints the key alone; it works on the running server at once; revoke stops it', async () => {
  // A short key cache (2 s by default): a revoked key is refused after it.
  const s = await startTestServer({ limits: { authCacheMs: 300 } });
  try {
    const { stdout } = await cli('keys', 'create', '--tier', 'pro', '--label', 'cli test', '--data-dir', s.dataDir);
    assert.match(stdout, /^ob_[0-9a-f]{40}\n$/);
    const key = stdout.trim();
    assert.equal((await s.get('/api/v2/markets', { 'X-Service-Key': key })).status, 200);

    const list = await cli('keys', 'list', '--data-dir', s.dataDir);
    assert.ok(list.stdout.includes(key.slice(0, 10)));
    assert.ok(!list.stdout.includes(key), 'keys list never shows a whole key');

    await cli('keys', 'revoke', key, '--data-dir', s.dataDir);
    await new Promise((r) => setTimeout(r, 400));
    assert.equal((await s.get('/api/v2/markets', { 'X-Service-Key': key })).status, 401);

    await assert.rejects(cli('keys', 'create', '--tier', 'platinum', '--data-dir', s.dataDir), /platinum|expected/);
  } finally {
    await s.close();
  }
});

/**
 * Runs `oddsbase serve` in a child process and resolves once it has answered a request: by then it
 * has also set its signal handlers, which it does after printing that it listens.
 */
async function serveWithoutSimulator(dataDir: string): Promise<ChildProcess> {
  const { child, url } = await serveChild(['--no-simulator', '--data-dir', dataDir]);
  assert.equal((await fetch(`${url}/api/v2/sports`)).status, 200);
  return child;
}

async function stop(child: ChildProcess, signal: NodeJS.Signals): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill(signal);
  await exited;
}

test('one server per data directory: a second serve exits 1 with one line; keys commands still work', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'oddsbase-lock-'));
  const lockFile = join(dataDir, 'oddsbase.lock');
  const first = await serveWithoutSimulator(dataDir);
  let again: ChildProcess | undefined;
  try {
    // The timeout ends a second server that wrongly starts, so the assertion fails rather than hangs.
    const second = run(
      process.execPath,
      ['bin/oddsbase.js', 'serve', '--no-simulator', '--port', '0', '--data-dir', dataDir, '--metrics-port', '0'],
      { timeout: 20_000 },
    );
    await assert.rejects(second, (err: any) => {
      assert.equal(err.code, 1);
      assert.equal(err.stdout, '');
      const start = `oddsbase: the data directory ${dataDir} is in use by oddsbase serve (pid ${first.pid}, started `;
      assert.ok(err.stderr.startsWith(start), err.stderr);
      assert.match(err.stderr.slice(start.length), /^[^)\n]+\); stop it or choose another --data-dir\n$/);
      return true;
    });

    const created = await cli('keys', 'create', '--tier', 'pro', '--data-dir', dataDir);
    const key = created.stdout.trim();
    assert.match(key, /^ob_[0-9a-f]{40}$/);
    const list = await cli('keys', 'list', '--data-dir', dataDir);
    assert.ok(list.stdout.includes(key.slice(0, 10)), list.stdout);

    // A killed server leaves its lock behind; the next start takes it over.
    await stop(first, 'SIGKILL');
    assert.ok(existsSync(lockFile));
    again = await serveWithoutSimulator(dataDir);
    assert.equal(JSON.parse(readFileSync(lockFile, 'utf8')).pid, again.pid);
    await stop(again, 'SIGTERM');
    assert.equal(again.exitCode, 0);
    assert.ok(!existsSync(lockFile), 'a server that stops cleanly removes its lock');
  } finally {
    await stop(first, 'SIGKILL');
    if (again) await stop(again, 'SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  }
});

// docs/operations.md, "Upgrades": opening an older store rewrites it, which only the process that
// holds the data directory may do.
test('a keys command upgrades an older store only when no server holds the directory', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'oddsbase-keys-upgrade-'));
  try {
    const store = new SqliteStore(openSqlite(dataDir));
    await store.commit(
      rowBatch([eventRow({ id: 1 }), priceRow({ id: 2, price_id: 1 })], { events: [eventRecord(EVENT_A, 2)] }),
    );
    await store.close();
    toTextKeyed(dataDir);
    const lock = lockDataDir(dataDir);
    try {
      await assert.rejects(cli('keys', 'create', '--tier', 'pro', '--data-dir', dataDir), (err: any) => {
        assert.equal(err.code, 1);
        assert.match(err.stderr, /^oddsbase: the data directory .* is in use by oddsbase serve \(pid \d+/);
        return true;
      });
      assert.equal(storeNeedsUpgrade(dataDir), true, 'the store was left as it was');
    } finally {
      lock.release();
    }
    const created = await cli('keys', 'create', '--tier', 'pro', '--data-dir', dataDir);
    assert.match(created.stdout, /^ob_[0-9a-f]{40}\n$/);
    assert.equal(storeNeedsUpgrade(dataDir), false);
    assert.ok(!existsSync(join(dataDir, 'oddsbase.lock')), 'the command let the directory go');
    const reopened = new SqliteStore(openSqlite(dataDir));
    const rows = await reopened.readChanges({ pricesOnly: false, afterId: 0, toId: 10, limit: 10 });
    await reopened.close();
    assert.deepEqual(
      rows.map((r) => [r.id, r.event_id]),
      [
        [1, EVENT_A],
        [2, EVENT_A],
      ],
    );
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test('DATA_DIR selects the store for the keys command', async () => {
  const s = await startTestServer();
  try {
    const { stdout } = await run(process.execPath, ['bin/oddsbase.js', 'keys', 'create', '--tier', 'free'], {
      env: { ...process.env, DATA_DIR: s.dataDir },
    });
    assert.equal((await s.get('/api/v2/markets', { 'X-Service-Key': stdout.trim() })).status, 200);
  } finally {
    await s.close();
  }
});

test('a restart keeps every committed row and continues the id sequence', async () => {
  const E = 'c'.repeat(32);
  const s = await startTestServer();
  await s.server.ledger.apply(
    batch(new Date().toISOString(), [{ kind: 'event', event: nbaEvent(E) }, ...nbaPrices(E)]),
  );
  const before = await s.get(`/api/v2/events/${E}?market_ids=1,2,3&include=price_delta`);
  const head = s.server.ledger.headId;
  await s.close({ keepData: true });

  const again = await startTestServer({ dataDir: s.dataDir });
  try {
    assert.equal(again.server.ledger.headId, head);
    const after = await again.get(`/api/v2/events/${E}?market_ids=1,2,3&include=price_delta`);
    assert.deepEqual(after.body, before.body);
    await again.server.ledger.apply(
      batch(new Date().toISOString(), [price(E, { market_id: 1, participant_id: 2002, affiliate_id: 19, price: 140 })]),
    );
    assert.equal(again.server.ledger.headId, head + 1);
    const ids = await again.get(`/api/v2/sports/events/${today()}?sport_ids=4`);
    assert.deepEqual(ids.body['4'], [E]);
  } finally {
    await again.close();
  }
});

test('a bad configuration stops the start with a clear message', async () => {
  await assert.rejects(cli('serve', '--port', 'eighty', '--data-dir', '/tmp/oddsbase-never'), (err: any) => {
    assert.match(err.stderr, /port must be an integer/);
    assert.equal(err.code, 2);
    return true;
  });
});

test('the demo key is made and announced before the history fill; keys demo prints it after a start killed during the fill', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'oddsbase-demo-'));
  const child = spawn(
    process.execPath,
    ['bin/oddsbase.js', 'serve', '--port', '0', '--host', '127.0.0.1', '--data-dir', dataDir],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  const exited = once(child, 'exit');
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (b: Buffer) => (stdout += b.toString()));
  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no demo key banner:\n${stderr}`)), 60_000);
      child.stderr.on('data', (b: Buffer) => {
        stderr += b.toString();
        // The banner's last line: it may come in a later chunk than its first.
        if (stderr.includes('oddsbase keys create --tier ultra --v1')) {
          clearTimeout(timer);
          resolve();
        }
      });
    });
    // Killed during the fill: nothing listened yet, and the key was never printed in clear.
    child.kill('SIGKILL');
    await exited;
    assert.ok(!stderr.includes('listening on'), stderr);
    assert.ok(!/ob_[0-9a-f]/.test(stdout + stderr), 'standard error is no terminal here: the key is not shown');
    assert.match(stderr, /oddsbase keys create --tier ultra --v1/, 'the banner names keys create');
    const { stdout: demo } = await cli('keys', 'demo', '--data-dir', dataDir);
    assert.match(demo, /^ob_[0-9a-f]{40}\n$/);
    const { stdout: list } = await cli('keys', 'list', '--data-dir', dataDir);
    assert.ok(list.includes(demo.slice(0, 10)) && list.includes('demo'), list);
    await cli('keys', 'revoke', demo.trim(), '--data-dir', dataDir);
    await assert.rejects(cli('keys', 'demo', '--data-dir', dataDir), (err: any) => {
      assert.equal(err.code, 1);
      assert.match(err.stderr, /^oddsbase: no demo key in .*keys create/);
      return true;
    });
  } finally {
    child.kill('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test('standard output carries only JSON log records; the lines for a person go to standard error', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'oddsbase-stdout-'));
  try {
    const served = await serveChild(['--no-simulator', '--data-dir', dataDir]);
    served.child.kill('SIGTERM');
    await served.exited;
    const out = served.stdout();
    assert.ok(out.trim().length > 0, 'the server logs something');
    for (const line of out.trim().split('\n')) assert.doesNotThrow(() => JSON.parse(line), `not a log record: ${line}`);
    assert.ok(!/ob_[0-9a-f]/.test(served.output()), 'no key on either stream');
    assert.match(served.stderr(), /oddsbase listening on/);
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});
