import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A Redis server of the tests' own: loopback, a free port, a temporary directory, nothing saved. */
export interface RedisService {
  url: string;
  port: number;
  /** Stops the server, keeping its port and directory, so that `start` brings the same address back. */
  stop(): Promise<void>;
  /** Starts it again after `stop` (empty: nothing is persisted, as after a restart without a dump). */
  start(): Promise<void>;
  /** Stops it for good and removes its directory. */
  close(): Promise<void>;
}

/** Where Debian's package puts the server; absent on a clean machine until `ensureRedisServer`. */
const BINARY = '/usr/bin/redis-server';

function installed(): boolean {
  try {
    execFileSync(BINARY, ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/**
 * Installs Debian's `redis-server` when it is missing (CI runs as root on a clean clone). RUNLEVEL=1
 * keeps invoke-rc.d from starting the package's own service on 6379: only the tests' servers run.
 */
export function ensureRedisServer(): void {
  if (installed()) return;
  process.stderr.write('installing redis-server with apt-get (Debian package) for the cluster tests\n');
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive', RUNLEVEL: '1' };
  const apt = (args: string[]) =>
    execFileSync('apt-get', ['-o', 'DPkg::Lock::Timeout=300', ...args], { env, stdio: 'ignore' });
  try {
    apt(['install', '-y', '--no-install-recommends', 'redis-server']);
  } catch {
    // A clean image has no package lists yet.
    apt(['update']);
    apt(['install', '-y', '--no-install-recommends', 'redis-server']);
  }
  if (!installed()) throw new Error('redis-server is still missing after apt-get install');
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      srv.close(() => (typeof addr === 'object' && addr ? resolve(addr.port) : reject(new Error('no port'))));
    });
  });
}

/** Spawns the server and resolves once it accepts connections, or rejects with what it printed. */
function launch(port: number, dir: string): Promise<ChildProcess> {
  const child = spawn(
    BINARY,
    [
      '--port',
      String(port),
      '--bind',
      '127.0.0.1',
      '--dir',
      dir,
      '--save',
      '',
      '--appendonly',
      'no',
      '--daemonize',
      'no',
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  return new Promise((resolve, reject) => {
    let out = '';
    const onData = (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes('Ready to accept connections')) {
        child.stdout!.off('data', onData);
        child.stdout!.resume();
        child.off('exit', onExit);
        resolve(child);
      }
    };
    const onExit = (code: number | null) => reject(new Error(`redis-server exited (${code}) at start:\n${out}`));
    child.stdout!.on('data', onData);
    child.stderr!.on('data', (c: Buffer) => (out += c.toString()));
    child.once('exit', onExit);
  });
}

function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

/** Starts a Redis server for a test file; close it in `after`. */
export async function startRedis(): Promise<RedisService> {
  ensureRedisServer();
  const dir = mkdtempSync(join(tmpdir(), 'oddsbase-redis-'));
  let port = 0;
  let child: ChildProcess | undefined;
  // Another process may take the free port between the probe and the bind: try a few.
  for (let attempt = 0; child === undefined; attempt++) {
    port = await freePort();
    try {
      child = await launch(port, dir);
    } catch (err) {
      if (attempt >= 4) throw err;
    }
  }
  const killOnExit = () => child?.kill('SIGKILL');
  process.once('exit', killOnExit);
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    async stop() {
      if (child) await stopChild(child);
    },
    async start() {
      child = await launch(port, dir);
    },
    async close() {
      if (child) await stopChild(child);
      process.off('exit', killOnExit);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
