import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';

/**
 * What a start refuses before any work: each refusal is one line on standard error that names the
 * option to change, a non-zero exit, no stack trace, and nothing made in the data directory.
 */

const root = mkdtempSync(join(tmpdir(), 'oddsbase-checks-'));
after(() => rmSync(root, { recursive: true, force: true }));

interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the command; as root, optionally as the unprivileged user `nobody` (root may write anywhere). */
function cli(args: string[], opts: { asNobody?: boolean; env?: Record<string, string> } = {}): Promise<Ran> {
  // As nobody, without the coverage of a run under c8 (nobody may not write its directory); empty,
  // since node gives a child its own NODE_V8_COVERAGE when the child's environment lacks the name.
  const env = { ...process.env, ...opts.env };
  if (opts.asNobody) env.NODE_V8_COVERAGE = '';
  const child = spawn(process.execPath, ['bin/oddsbase.js', ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env,
    ...(opts.asNobody ? { uid: 65534, gid: 65534 } : {}),
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (b: Buffer) => (stdout += b.toString()));
  child.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
  // A start that wrongly goes on is ended, so that the assertion fails rather than hangs.
  const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
  return new Promise((resolve) =>
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    }),
  );
}

/** One line naming `option`, exit status 2, nothing on standard output. */
function assertOneLine(r: Ran, option: RegExp): void {
  assert.equal(r.code, 2, r.stderr);
  assert.equal(r.stdout, '');
  assert.match(r.stderr, /^oddsbase: [^\n]+\n$/, `one line, no stack trace:\n${r.stderr}`);
  assert.match(r.stderr, option);
}

function holdPort(): Promise<{ server: Server; port: number }> {
  const server = createServer();
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      resolve({ server, port: typeof address === 'object' && address ? address.port : 0 });
    }),
  );
}

test('a data directory that is a file is refused in one line', async () => {
  const file = join(root, 'a-file');
  writeFileSync(file, '');
  assertOneLine(await cli(['serve', '--port', '0', '--data-dir', file]), /is a file, not a directory: .*--data-dir/);
});

test('a data directory this user may not write is refused in one line, for serve and keys', async (t) => {
  const dir = join(root, 'read-only');
  mkdirSync(dir);
  const asNobody = process.getuid?.() === 0;
  // Root writes anywhere, so the check runs as nobody, who must be able to reach the checkout by
  // its full path, as node loads it (a clone under a 0700 temporary folder is not).
  if (
    asNobody &&
    spawnSync(
      process.execPath,
      ['-e', `require('fs').accessSync(${JSON.stringify(join(process.cwd(), 'bin', 'oddsbase.js'))})`],
      { uid: 65534, gid: 65534 },
    ).status !== 0
  ) {
    t.skip('the checkout is not readable by the user nobody');
    return;
  }
  // mkdtemp makes the parent 0700: nobody must reach the directory to be refused by its mode.
  if (asNobody) chmodSync(root, 0o755);
  else chmodSync(dir, 0o555);
  const serve = await cli(['serve', '--port', '0', '--data-dir', dir], { asNobody });
  assertOneLine(serve, /not writable by this user .*--data-dir/);
  const keys = await cli(['keys', 'create', '--tier', 'pro', '--new-store', '--data-dir', dir], { asNobody });
  assertOneLine(keys, /not writable by this user .*--data-dir/);
  assert.ok(!existsSync(join(dir, 'oddsbase.db')));
});

test('a taken API port or metrics port is said at once, before the store is made', async () => {
  const held = await holdPort();
  try {
    const dataDir = join(root, 'ports');
    const api = await cli(['serve', '--host', '127.0.0.1', '--port', String(held.port), '--data-dir', dataDir]);
    assertOneLine(api, new RegExp(`127\\.0\\.0\\.1:${held.port} is in use .*--port`));
    const metrics = await cli([
      'serve',
      '--host',
      '127.0.0.1',
      '--port',
      '0',
      '--metrics-port',
      String(held.port),
      '--data-dir',
      dataDir,
    ]);
    assertOneLine(metrics, /is in use .*--metrics-port/);
    assert.ok(!existsSync(dataDir), 'nothing was made: no store opened, no fill run, not even the directory');
  } finally {
    held.server.close();
  }
});

test('keys commands refuse a directory with no store unless told to make one', async () => {
  const typo = join(root, 'typo');
  assertOneLine(await cli(['keys', 'list', '--data-dir', typo]), /no store in .*--data-dir/);
  assertOneLine(await cli(['keys', 'create', '--tier', 'pro', '--data-dir', typo]), /no store in .*--new-store/);
  assertOneLine(await cli(['keys', 'demo', '--data-dir', typo]), /no store in .*--data-dir/);
  assert.ok(!existsSync(typo), 'nothing was made');
  const made = await cli(['keys', 'create', '--tier', 'pro', '--new-store', '--data-dir', typo]);
  assert.equal(made.code, 0, made.stderr);
  assert.match(made.stdout, /^ob_[0-9a-f]{40}\n$/);
});

test('an unknown option or command is one line with where to look; --help is not an error', async () => {
  const dataDir = join(root, 'never-made');
  assertOneLine(await cli(['serve', '--bogus', '--data-dir', dataDir]), /unknown option '--bogus'; --help lists/);
  assertOneLine(await cli(['serve', '--prot', '1', '--data-dir', dataDir]), /Did you mean --port\?/);
  assertOneLine(await cli(['serv']), /unknown command 'serv'/);
  assert.equal(existsSync(dataDir), false);
  const help = await cli(['serve', '--help']);
  assert.equal(help.code, 0);
  assert.match(help.stdout, /^Usage: oddsbase serve \[options\]/);
  // Commander names an option's variable once.
  assert.match(help.stdout, /data directory \(default: "\.\/data", env: DATA_DIR\)/);
});

test('a bad --trust-proxy or --cors-origins is one line', async () => {
  assertOneLine(await cli(['serve', '--trust-proxy', '10.0.0.0/33']), /--trust-proxy/);
  assertOneLine(await cli(['serve', '--cors-origins', 'example.com']), /--cors-origins/);
});

test('a cluster role without its PostgreSQL and Redis, or an unknown role, is one line', async () => {
  const dir = join(root, 'roles');
  const env = { DATABASE_URL: '', REDIS_URL: '' };
  assertOneLine(
    await cli(['serve', '--port', '0', '--data-dir', dir, '--role', 'api'], { env }),
    /--role api needs .*--database-url \(env DATABASE_URL\) and --redis-url \(env REDIS_URL\), or serve with --role all/,
  );
  assertOneLine(
    await cli(['serve', '--port', '0', '--data-dir', dir, '--role', 'writer', '--redis-url', 'redis://127.0.0.1:9'], {
      env,
    }),
    /--role writer needs .*give --database-url \(env DATABASE_URL\), or serve with --role all/,
  );
  assertOneLine(
    await cli(['serve', '--port', '0', '--data-dir', dir, '--role', 'reader'], { env }),
    /--role must be one of all, writer, api, got 'reader'/,
  );
  assertOneLine(
    await cli(
      ['serve', '--port', '0', '--data-dir', dir, '--role', 'api', '--feed', 'ingest'].concat([
        '--database-url',
        'postgres://u:p@127.0.0.1:9/db',
        '--redis-url',
        'redis://127.0.0.1:9',
      ]),
      { env },
    ),
    /--role api runs no feed: serve --feed ingest on the writer/,
  );
  assertOneLine(
    await cli(
      ['serve', '--port', '0', '--data-dir', dir, '--role', 'api', '--feed', 'replay'].concat([
        '--replay-file',
        join(dir, 'day.ndjson'),
        '--database-url',
        'postgres://u:p@127.0.0.1:9/db',
        '--redis-url',
        'redis://127.0.0.1:9',
      ]),
      { env },
    ),
    /--role api runs no feed: serve --feed replay on the writer \(--role writer\)\n?$/,
  );
  assert.ok(!existsSync(dir), 'nothing was made');
});
