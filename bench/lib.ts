/**
 * Shared helpers of the benchmarks: statistics, formatting, temporary directories, child servers
 * and CPU pinning. Nothing here talks to anything but 127.0.0.1.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { cpus, tmpdir, totalmem } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { hashKey } from '../src/access/keys.ts';
import { openSqlite } from '../src/store/sqlite/database.ts';

/** The checkout's root directory (bench/..). */
export const ROOT = resolve(fileURLToPath(new URL('..', import.meta.url)));
export const TASKSET = '/usr/bin/taskset';

/** True when the module at `metaUrl` is the script node was started with. */
export function isMain(metaUrl: string): boolean {
  const script = process.argv[1];
  return script !== undefined && pathToFileURL(resolve(script)).href === metaUrl;
}

/**
 * The value given after `name` on the command line (`argv`, the command's own arguments by
 * default), or undefined when the name is not there; a name given last, with no value, is refused.
 */
export function arg(name: string, argv: readonly string[] = process.argv.slice(2)): string | undefined {
  const i = argv.indexOf(name);
  if (i < 0) return undefined;
  const value = argv[i + 1];
  if (value === undefined) throw new Error(`${name} needs a value`);
  return value;
}

/** Refuses an argument of `argv` that is neither one of `values` (then followed by its value) nor one of `flags`. */
export function onlyKnownArgs(argv: readonly string[], values: readonly string[], flags: readonly string[] = []): void {
  for (let i = 0; i < argv.length; i++) {
    if (values.includes(argv[i]!)) i++;
    else if (!flags.includes(argv[i]!)) throw new Error(`unknown argument ${argv[i]}`);
  }
}

export function median(xs: readonly number[]): number {
  if (xs.length === 0) return Number.NaN;
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  // A non-empty list: mid < length, and mid >= 1 when the length is even.
  return s.length % 2 === 1 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

/** 12345.6 -> '12,346'. */
export function int(n: number): string {
  return Math.round(n).toLocaleString('en-US');
}

export function pct(ratio: number): string {
  return `${(ratio * 100).toFixed(1)}%`;
}

export function mb(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

export function log(line: string): void {
  process.stderr.write(`${line}\n`);
}

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

export function makeTmpDir(prefix: string): string {
  return mkdtempSync(join(tmpdir(), `oddsbase-bench-${prefix}-`));
}

export function removeDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}

/** A cgroup that holds the processes put in it to a share of one CPU. */
export interface CpuQuota {
  add(pid: number): void;
  /** Moves what is left in the group back to its parent and removes the group. */
  close(): void;
}

/**
 * Makes a cgroup with a CPU quota of `percent` of one CPU (cgroup v1's cpu controller or v2's
 * cpu.max; root only). A benchmark whose client cannot keep up with the server holds the servers
 * to such a share, so that each answers as fast as its own CPU lets it: req/s is then its capacity.
 */
export function cpuQuota(percent: number): CpuQuota {
  if (!(percent > 0 && percent <= 100)) throw new Error(`a CPU quota is a percentage of one CPU, not ${percent}`);
  const periodUs = 100_000;
  const quotaUs = String(Math.round((percent / 100) * periodUs));
  const name = `oddsbase-bench-${process.pid}`;
  const v1 = ['/sys/fs/cgroup/cpu', '/sys/fs/cgroup/cpu,cpuacct'].find((d) => existsSync(join(d, 'cpu.cfs_quota_us')));
  const v2 = '/sys/fs/cgroup';
  let parent: string;
  let dir: string | undefined;
  try {
    if (v1) {
      parent = v1;
      dir = join(v1, name);
      mkdirSync(dir);
      writeFileSync(join(dir, 'cpu.cfs_period_us'), String(periodUs));
      writeFileSync(join(dir, 'cpu.cfs_quota_us'), quotaUs);
    } else if (existsSync(join(v2, 'cgroup.controllers'))) {
      parent = v2;
      dir = join(v2, name);
      writeFileSync(join(v2, 'cgroup.subtree_control'), '+cpu');
      mkdirSync(dir);
      writeFileSync(join(dir, 'cpu.max'), `${quotaUs} ${periodUs}`);
    } else {
      throw new Error('no cgroup cpu controller under /sys/fs/cgroup');
    }
  } catch (err) {
    // A group made before a later step failed would outlive the benchmark.
    if (dir && existsSync(dir)) rmdirSync(dir);
    throw new Error(`a CPU quota needs a writable cgroup cpu controller (run as root): ${(err as Error).message}`);
  }
  const group = dir;
  return {
    add(pid) {
      writeFileSync(join(group, 'cgroup.procs'), String(pid));
    },
    close() {
      try {
        for (const pid of readFileSync(join(group, 'cgroup.procs'), 'utf8').split('\n').filter(Boolean)) {
          writeFileSync(join(parent, 'cgroup.procs'), pid);
        }
        rmdirSync(group);
      } catch {
        // Gone already, or a process exited between the read and the move: nothing to undo.
      }
    },
  };
}

/** UTC date of today, YYYY-MM-DD. */
export const todayUtc = (): string => new Date().toISOString().slice(0, 10);

export interface MachineInfo {
  nproc: number;
  model: string;
  memory: string;
  node: string;
}

export function machineInfo(): MachineInfo {
  let model = cpus()[0]?.model ?? 'unknown';
  try {
    const line = readFileSync('/proc/cpuinfo', 'utf8')
      .split('\n')
      .find((l) => l.startsWith('model name'));
    const name = line?.split(':')[1];
    if (name !== undefined) model = name.trim();
  } catch {
    // not Linux: os.cpus() is good enough
  }
  return {
    nproc: cpus().length,
    model,
    memory: `${(totalmem() / 1024 ** 3).toFixed(1)} GiB`,
    node: process.version,
  };
}

// --- CPU pinning -----------------------------------------------------------------------------

export const canPin = (): boolean => process.platform === 'linux' && existsSync(TASKSET);

/** The CPU list this process may run on (e.g. '0-1'), or undefined when unknown. */
export function currentAffinity(pid = process.pid): string | undefined {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    return /^Cpus_allowed_list:\s*(\S+)/m.exec(status)?.[1];
  } catch {
    return undefined;
  }
}

/** Pins every thread of this process to `cpus`; returns the previous list to restore later. */
export function pinSelf(cpuList: string): string | undefined {
  if (!canPin()) return undefined;
  const before = currentAffinity();
  execFileSync(TASKSET, ['-a', '-cp', cpuList, String(process.pid)], { stdio: 'ignore' });
  return before;
}

/** A TCP port that was free on 127.0.0.1 a moment ago. */
export function freePort(): Promise<number> {
  return new Promise((res, rej) => {
    const srv = createServer();
    srv.once('error', rej);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      srv.close(() => res(port));
    });
  });
}

/**
 * CPU time (user + system) that process `pid` has used so far, in seconds, from /proc/<pid>/stat
 * (or its thread `thread`'s alone: the main thread's id is the process's); undefined when it cannot
 * be read. Clock ticks are 1/100 s on Linux.
 */
export function cpuSeconds(pid: number, thread?: number): number | undefined {
  try {
    const stat = readFileSync(thread === undefined ? `/proc/${pid}/stat` : `/proc/${pid}/task/${thread}/stat`, 'utf8');
    // Fields after the command name, which is in parentheses and may contain spaces.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return undefined;
  }
}

// --- child processes -------------------------------------------------------------------------

export interface Child {
  proc: ChildProcess;
  pid: number;
  /** Output the child wrote so far (for error messages). */
  output(): string;
  /** SIGTERM, then SIGKILL after `graceMs`; resolves when the child is gone. */
  stop(graceMs?: number): Promise<void>;
}

/**
 * Spawns `node <args>` in the checkout, pinned to `cpu` with taskset when it can be.
 * Output is kept (the last 64 kB) rather than shown; standard input is a pipe with `stdin`.
 */
export function spawnNode(
  args: string[],
  opts: { cpu?: string; env?: NodeJS.ProcessEnv; cwd?: string | undefined; stdin?: boolean } = {},
): Child {
  const pinned = opts.cpu !== undefined && canPin();
  const cmd = pinned ? TASKSET : process.execPath;
  const argv = pinned ? ['-c', opts.cpu!, process.execPath, ...args] : args;
  const proc = spawn(cmd, argv, {
    cwd: opts.cwd ?? ROOT,
    env: { ...process.env, ...opts.env },
    stdio: [opts.stdin ? 'pipe' : 'ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const keep = (b: Buffer) => {
    out = (out + b.toString()).slice(-65536);
  };
  proc.stdout?.on('data', keep);
  proc.stderr?.on('data', keep);
  const exited = new Promise<void>((r) => {
    if (proc.exitCode !== null || proc.signalCode !== null) r();
    else proc.once('exit', () => r());
  });
  // taskset execs node in place, so the pid is node's own.
  const pid = proc.pid;
  if (pid === undefined) throw new Error(`could not start node ${args.join(' ')}`);
  return {
    proc,
    pid,
    output: () => out,
    async stop(graceMs = 5000) {
      if (proc.exitCode !== null || proc.signalCode !== null) return;
      proc.kill('SIGTERM');
      const timer = setTimeout(() => proc.kill('SIGKILL'), graceMs);
      await exited;
      clearTimeout(timer);
    },
  };
}

/**
 * Runs `node bin/oddsbase.js keys create --tier TIER --v1` on `dataDir` and returns the key. With
 * `burstPerSecond` (enterprise keys only: the other tiers have fixed ceilings, Ultra's is 10
 * requests a second), the key's row gets that custom per-second ceiling, written straight into the
 * data directory's api_keys table (`keys create` has no option for it).
 */
export function createKey(dataDir: string, tier = 'ultra', burstPerSecond?: number): string {
  const out = execFileSync(
    process.execPath,
    // Both subscriptions, so one key serves the V2 and the V1 benchmarks.
    [
      'bin/oddsbase.js',
      'keys',
      'create',
      '--tier',
      tier,
      '--v1',
      '--label',
      'bench',
      '--data-dir',
      dataDir,
      '--new-store',
    ],
    { cwd: ROOT, encoding: 'utf8', timeout: 60_000 },
  );
  const key = out.trim().split('\n').pop()?.trim();
  if (!key) throw new Error('keys create printed no key');
  if (burstPerSecond !== undefined) {
    if (tier !== 'enterprise') throw new Error('only enterprise keys take a custom burst ceiling');
    const db = openSqlite(dataDir);
    try {
      const changed = db
        .prepare('UPDATE api_keys SET custom = ? WHERE key_hash = ?')
        .run(JSON.stringify({ burstPerSecond }), hashKey(key)).changes;
      if (changed !== 1) throw new Error('the new key is not in api_keys');
    } finally {
      db.close();
    }
  }
  return key;
}

/** Polls `url` until it answers (any status) or `timeoutMs` passes; fails early if `child` exits. */
export async function waitForHttp(
  url: string,
  child: Child,
  timeoutMs: number,
  opts: { history?: boolean } = {},
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.proc.exitCode !== null || child.proc.signalCode !== null) {
      throw new Error(`the server exited before listening:\n${child.output()}`);
    }
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(2000) });
      await res.arrayBuffer();
      // A starting server holds its port early and answers 503 until its store is loaded and filled.
      if (res.status !== 503 && (opts.history === false || (await historyComplete(url)))) return;
      await sleep(250);
    } catch {
      await sleep(250);
    }
  }
  throw new Error(`no answer from ${url} within ${timeoutMs / 1000} s:\n${child.output()}`);
}

/**
 * Whether the server at `url`'s origin has its whole history: a first start serves while the
 * background part of its fill runs, and a throughput measured then is mostly the fill's (919
 * against 6,367 req/s). True for a server with no such fill (no `history` in /readyz, or no
 * /readyz: the bare servers).
 */
export async function historyComplete(url: string): Promise<boolean> {
  const body = await fetch(new URL('/readyz', url), { signal: AbortSignal.timeout(2000) }).then(
    async (r) => (r.ok ? ((await r.json()) as { history?: string }) : {}),
    () => ({}) as { history?: string },
  );
  return body.history === undefined || body.history === 'complete';
}

export interface ServerChild {
  child: Child;
  url: string;
  key: string;
  dataDir: string;
  /** The node flags the server runs with (those of `npm start`, unless left out). */
  nodeFlags: string[];
  /** Stops the server and removes its data directory. */
  close(): Promise<void>;
}

/**
 * The node flags `npm start` runs the server with: package.json's "start" script (of `checkout`,
 * this one by default) is `exec node FLAGS bin/oddsbase.js serve`; FLAGS is what the benchmarks
 * pass too, so that they measure the server as it is shipped.
 */
export function startScriptNodeFlags(checkout = ROOT): string[] {
  const pkg = JSON.parse(readFileSync(join(checkout, 'package.json'), 'utf8')) as {
    scripts?: Record<string, string>;
  };
  const start = pkg.scripts?.start ?? '';
  // `exec node …` too: a benchmark that silently dropped the flags would measure another server.
  const m = /(?:^|[\s;&])node\s+(.*?)\s*bin\/oddsbase\.js\b/.exec(start);
  if (!m) throw new Error(`npm start's script names no 'node … bin/oddsbase.js': ${start}`);
  return m[1]!.split(/\s+/).filter((t) => t.startsWith('--'));
}

/**
 * Spawns `node <npm start's node flags> bin/oddsbase.js serve --no-simulator` on an existing data
 * directory, on 127.0.0.1 at a free port (and any free one for /metrics), pinned to `cpu`, with
 * `flags` after; from `checkout` (this one by default). The caller waits for it (waitForHttp).
 */
export async function spawnStoreServer(
  dataDir: string,
  opts: { cpu?: string; checkout?: string; flags?: readonly string[] } = {},
): Promise<{ child: Child; url: string }> {
  const port = await freePort();
  const child = spawnNode(
    [
      ...startScriptNodeFlags(),
      'bin/oddsbase.js',
      'serve',
      '--no-simulator',
      '--port',
      String(port),
      '--host',
      '127.0.0.1',
      '--data-dir',
      dataDir,
      '--metrics-port',
      '0',
      ...(opts.flags ?? []),
    ],
    { cpu: opts.cpu, cwd: opts.checkout },
  );
  return { child, url: `http://127.0.0.1:${port}` };
}

/**
 * Starts `node [npm start's flags] bin/oddsbase.js serve` with the live simulator on a fresh data
 * directory, on 127.0.0.1:`port`, pinned to `cpu`, and creates a key for it (Ultra unless told
 * otherwise). Waits until it listens and its history fill, background part included, is complete
 * (which takes a while).
 */
export async function startOddsbase(opts: {
  port: number;
  cpu?: string;
  startTimeoutMs?: number;
  nodeArgs?: string[];
  /** false leaves out the node flags of `npm start` (see startScriptNodeFlags). */
  startFlags?: boolean;
  /** The key's tier ('ultra' by default) and, for an enterprise key, its per-second ceiling. */
  tier?: string;
  burstPerSecond?: number;
  /** Called once the child is spawned, before it listens. */
  onSpawn?: (child: Child) => void;
  /** false: return once it serves, the background part of the first fill still running. */
  history?: boolean;
  /** The checkout to run (this one by default). */
  checkout?: string;
}): Promise<ServerChild> {
  const dataDir = makeTmpDir('data');
  let child: Child | undefined;
  try {
    // The key is created before the start, so the server never issues its demo key.
    const key = createKey(dataDir, opts.tier, opts.burstPerSecond);
    const nodeFlags = opts.startFlags === false ? [] : startScriptNodeFlags();
    child = spawnNode(
      [
        ...nodeFlags,
        ...(opts.nodeArgs ?? []),
        'bin/oddsbase.js',
        'serve',
        '--port',
        String(opts.port),
        '--host',
        '127.0.0.1',
        '--data-dir',
        dataDir,
        // Any free port for /metrics, so a benchmark never collides with another server's listener.
        '--metrics-port',
        '0',
      ],
      { cpu: opts.cpu, cwd: opts.checkout },
    );
    opts.onSpawn?.(child);
    const url = `http://127.0.0.1:${opts.port}`;
    await waitForHttp(`${url}/api/v2/sports`, child, opts.startTimeoutMs ?? 300_000, { history: opts.history });
    const started = child;
    return {
      child: started,
      url,
      key,
      dataDir,
      nodeFlags,
      async close() {
        await started.stop();
        removeDir(dataDir);
      },
    };
  } catch (err) {
    await child?.stop();
    removeDir(dataDir);
    throw err;
  }
}

/** Stops children and removes directories on SIGINT/SIGTERM too; returns the function to undo it. */
export function cleanupOnSignal(cleanup: () => Promise<void>): () => void {
  const onSignal = (signal: NodeJS.Signals) => {
    log(`received ${signal}, cleaning up`);
    cleanup().finally(() => process.exit(130));
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  return () => {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  };
}
