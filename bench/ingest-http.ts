/**
 * The ingest API over HTTP, as shipped, against the ledger's own rate on the same rows.
 *
 *   node --import tsx bench/ingest-http.ts [--runs 3] [--in-flight 2] [--server-cpu 0-1] [--compare CHECKOUT]
 *     [--cpu-prof DIR]
 *
 * The workload is bench/ingest.ts's (100 events x 200 prices, each timed update changing one price,
 * so one change row each), cut into BATCHES NDJSON bodies of BATCH_SIZE, written as bytes to files
 * before any run (bench/ingest-bodies.ts). Every run has a fresh data directory, an admin token
 * made by `oddsbase admin-tokens create --new-store` before the start, and a server on both
 * CPUs (0-1, or --server-cpu) with `npm start`'s node flags; its events are POSTed to the ingest route, untimed. Two kinds
 * of run alternate:
 * - http: `node FLAGS bin/oddsbase.js serve --feed ingest` (the bundle, as `npm start` runs it). A
 *   client process (bench/ingest-client.ts, bundled, pinned to CPU 1) holds the bodies in memory
 *   and, on a signal, POSTs them with their Idempotency-Key and X-Batch-At, IN_FLIGHT (2, or --in-flight) at a time over
 *   keep-alive connections. Its figure: prices over the wall time from the first send to the last
 *   answer (every batch answered 200 and applied), and the server process's CPU over that time
 *   (/proc, every thread: the route, the check, the ledger, the store's checkpoint thread).
 * - ledger: bench/ingest-ledger.ts, bundled as bin/oddsbase.js bundles the command and run with
 *   the same flags: the composition `serve --feed ingest` starts, in one process. It parses the
 *   same bodies (a JSON.parse a line, as the route) before the clock and hands them to the ledger one
 *   after another as named batches (`applyNamed`, what the route calls once a batch is checked).
 *   Its figure: prices over that loop's wall time, and the process's CPU over it.
 * So HTTP / ledger is what the route (reading, parsing, checking, answering) and two batches in
 * flight cost beside the ledger and store alone. Medians of RUNS runs of each.
 *
 * --compare CHECKOUT runs each round on that checkout too (its bin/oddsbase.js and its bundle of
 * bench/ingest-ledger.ts, which must be there: copy bench/ingest-ledger.ts and
 * bench/ingest-bodies.ts into it), with this checkout's client, so two trees are side by side in
 * one run. --cpu-prof DIR runs the servers with `--cpu-prof --cpu-prof-dir DIR` (written at their
 * close: the setup is in the profile too).
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { bundle } from '../bin/bundle.js';
import type { PriceUpdate, Update } from '../src/ledger/updates.ts';
import { readBodies, writeBodies } from './ingest-bodies.ts';
import { buildWorkload } from './ingest.ts';
import {
  arg,
  type Child,
  cleanupOnSignal,
  cpuSeconds,
  freePort,
  int,
  isMain,
  log,
  makeTmpDir,
  median,
  onlyKnownArgs,
  pct,
  removeDir,
  ROOT,
  spawnNode,
  startScriptNodeFlags,
  waitForHttp,
} from './lib.ts';

const BATCH_SIZE = 1000;
const BATCHES = 200;
/** Batches a client has sent and not had answered, by default. */
const IN_FLIGHT = 2;
/**
 * The server's CPUs: both cores, so that its threads (the store's writer and checkpointer, V8's
 * collector helpers) run beside the event loop as on a real host; the client still shares CPU 1.
 * `--server-cpu 0` pins it to one core, as this bench did before 2026-12-07.
 */
const SERVER_CPU = '0-1';
const CLIENT_CPU = '1';

/** Processes and directories of the runs under way, stopped and removed on SIGINT or SIGTERM too. */
const live = new Set<Child>();
const dirs = new Set<string>();

/** Spawns as spawnNode does, and keeps the child in `live` until it is stopped. */
function spawnLive(args: string[], opts: Parameters<typeof spawnNode>[1]): Child {
  const child = spawnNode(args, opts);
  live.add(child);
  const stop = child.stop.bind(child);
  child.stop = async (graceMs) => {
    await stop(graceMs);
    live.delete(child);
  };
  return child;
}

/** Issue 42: at least 50,000 prices a second over HTTP, and at least 70% of the ledger's rate. */
export const TARGET_PER_S = 50_000;
export const TARGET_RATIO = 0.7;

/** Writes the setup and the timed bodies under `dir` (setup/, timed/); returns the timed prices. */
function writeWorkload(dir: string): number {
  const w = buildWorkload();
  const ndjson = (updates: readonly Update[]) => Buffer.from(updates.map((u) => JSON.stringify(u)).join('\n'));
  mkdirSync(join(dir, 'setup'));
  writeBodies(
    join(dir, 'setup'),
    w.setup.map((b, i) => ({ id: `setup-${i}`, at: b.at, body: ndjson(b.updates) })),
  );
  const all = w.timed.flatMap((b) => b.updates as PriceUpdate[]);
  const perTimed = w.timed[0]!.updates.length;
  const timed = [];
  for (let i = 0; i < BATCHES && (i + 1) * BATCH_SIZE <= all.length; i++) {
    const at = w.timed[Math.floor((i * BATCH_SIZE) / perTimed)]!.at;
    timed.push({ id: `bench-${i}`, at, body: ndjson(all.slice(i * BATCH_SIZE, (i + 1) * BATCH_SIZE)) });
  }
  mkdirSync(join(dir, 'timed'));
  writeBodies(join(dir, 'timed'), timed);
  return timed.length * BATCH_SIZE;
}

/** A rate by the wall clock, and the server's CPU a price. */
interface Rate {
  perSecond: number;
  cpuUsPerPrice: number;
  /** HTTP runs: the server's event loop's own CPU a price (its main thread's, without the store's threads). */
  loopUsPerPrice?: number;
  /** HTTP runs: the client's own CPU a price, and 503s it was answered. */
  clientUsPerPrice?: number;
  busy?: number;
}

/** The next line `child` writes to stdout that is a JSON object with `key`. */
function jsonLine<T>(child: Child, key: string): Promise<T> {
  return new Promise((resolve, reject) => {
    let buffered = '';
    const onData = (b: Buffer) => {
      buffered += b.toString();
      const lines = buffered.split('\n');
      buffered = lines.pop()!;
      for (const line of lines) {
        if (!line.startsWith(`{"${key}"`)) continue;
        done();
        resolve(JSON.parse(line) as T);
        return;
      }
    };
    const onExit = () => {
      done();
      reject(new Error(`the process ended before its result:\n${child.output()}`));
    };
    const done = () => {
      child.proc.stdout!.off('data', onData);
      child.proc.off('exit', onExit);
    };
    child.proc.stdout!.on('data', onData);
    child.proc.once('exit', onExit);
  });
}

/** The line `ready` from `child`. */
function ready(child: Child): Promise<void> {
  return new Promise((resolve, reject) => {
    const onData = (b: Buffer) => {
      if (!b.toString().includes('ready\n')) return;
      child.proc.stdout!.off('data', onData);
      resolve();
    };
    child.proc.stdout!.on('data', onData);
    child.proc.once('exit', () => reject(new Error(`the client ended before it was ready:\n${child.output()}`)));
  });
}

/** POSTs the setup bodies one after another; returns the head id after the last. */
async function setUp(url: string, token: string, dir: string): Promise<number> {
  let head = 0;
  for (const b of readBodies(dir)) {
    const res = await fetch(`${url}/admin/v1/ingest`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': 'application/x-ndjson',
        'idempotency-key': b.id,
        'x-batch-at': b.at,
      },
      body: new Uint8Array(b.body),
    });
    const text = await res.text();
    if (res.status !== 200) throw new Error(`setup batch ${b.id}: ${res.status} ${text}`);
    head = (JSON.parse(text) as { head_id: number }).head_id;
  }
  return head;
}

interface Checkout {
  /** Its root directory. */
  root: string;
  /** Its bundle of bench/ingest-ledger.ts. */
  ledgerEntry: string;
  nodeFlags: string[];
}

async function checkoutOf(root: string, profileDir: string | undefined): Promise<Checkout> {
  const { bundle: bundleOf } = (await import(pathToFileURL(join(root, 'bin', 'bundle.js')).href)) as {
    bundle: (entry: string) => Promise<string>;
  };
  const prof = profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [];
  return {
    root,
    ledgerEntry: await bundleOf('bench/ingest-ledger.ts'),
    nodeFlags: [...startScriptNodeFlags(root), ...prof],
  };
}

/**
 * Runs `use` against a server of `checkout` started by `args` (after the node flags) on a fresh
 * data directory with an admin token and the workload's events; stops it and removes the directory.
 */
async function withServer<T>(
  serverCpu: string,
  checkout: Checkout,
  work: string,
  args: (dataDir: string, port: number) => string[],
  use: (server: Child, url: string, token: string, setupHead: number) => Promise<T>,
): Promise<T> {
  const dataDir = makeTmpDir('ingest-http');
  dirs.add(dataDir);
  let server: Child | undefined;
  try {
    const token = execFileSync(
      process.execPath,
      ['bin/oddsbase.js', 'admin-tokens', 'create', '--label', 'bench', '--data-dir', dataDir, '--new-store'],
      { cwd: checkout.root, encoding: 'utf8', timeout: 60_000 },
    ).trim();
    const port = await freePort();
    server = spawnLive([...checkout.nodeFlags, ...args(dataDir, port)], {
      cpu: serverCpu,
      cwd: checkout.root,
      stdin: true,
    });
    const url = `http://127.0.0.1:${port}`;
    await waitForHttp(`${url}/readyz`, server, 120_000, { history: false });
    const setupHead = await setUp(url, token, join(work, 'setup'));
    return await use(server, url, token, setupHead);
  } finally {
    await server?.stop(30_000);
    removeDir(dataDir);
    dirs.delete(dataDir);
  }
}

async function ledgerRun(serverCpu: string, checkout: Checkout, work: string, prices: number): Promise<Rate> {
  return withServer(
    serverCpu,
    checkout,
    work,
    (dataDir, port) => [checkout.ledgerEntry, dataDir, String(port)],
    async (server) => {
      const result = jsonLine<{ prices: number; seconds: number; cpuSeconds: number }>(server, 'prices');
      server.proc.stdin!.write(`go ${join(work, 'timed')}\n`);
      const r = await result;
      if (r.prices !== prices) throw new Error(`the ledger run applied ${r.prices} prices, not ${prices}`);
      return { perSecond: prices / r.seconds, cpuUsPerPrice: (r.cpuSeconds * 1e6) / prices };
    },
  );
}

async function httpRun(
  serverCpu: string,
  checkout: Checkout,
  work: string,
  prices: number,
  client: string,
  inFlight: number,
): Promise<Rate> {
  return withServer(
    serverCpu,
    checkout,
    work,
    (dataDir, port) => [
      'bin/oddsbase.js',
      'serve',
      '--feed',
      'ingest',
      '--port',
      String(port),
      '--host',
      '127.0.0.1',
      '--data-dir',
      dataDir,
    ],
    async (server, url, token, setupHead) => {
      const sender = spawnLive([client, url, token, join(work, 'timed'), String(inFlight)], {
        cpu: CLIENT_CPU,
        stdin: true,
      });
      try {
        await ready(sender);
        const result = jsonLine<{ prices: number; seconds: number; cpuSeconds: number; busy: number; headId: number }>(
          sender,
          'prices',
        );
        const before = cpuSeconds(server.pid);
        const loopBefore = cpuSeconds(server.pid, server.pid);
        sender.proc.stdin!.write('go\n');
        const r = await result;
        const after = cpuSeconds(server.pid);
        const loopAfter = cpuSeconds(server.pid, server.pid);
        if (before === undefined || after === undefined || loopBefore === undefined || loopAfter === undefined)
          throw new Error("the server's CPU time could not be read");
        // One change row a price: anything else is another workload.
        if (r.prices !== prices || r.headId - setupHead !== prices) {
          throw new Error(`${r.prices} prices sent, ${r.headId - setupHead} rows written; expected ${prices}`);
        }
        return {
          perSecond: prices / r.seconds,
          cpuUsPerPrice: ((after - before) * 1e6) / prices,
          loopUsPerPrice: ((loopAfter - loopBefore) * 1e6) / prices,
          clientUsPerPrice: (r.cpuSeconds * 1e6) / prices,
          busy: r.busy,
        };
      } finally {
        await sender.stop();
      }
    },
  );
}

export interface TreeResult {
  checkout: string;
  ledger: Rate[];
  http: Rate[];
  ledgerMedian: number;
  httpMedian: number;
  ratio: number;
  ledgerCpuMedian: number;
  httpCpuMedian: number;
  /** The server's event loop's (main thread's) CPU a price over HTTP. */
  httpLoopCpuMedian: number;
  /** By the server's CPU a price: ledger / HTTP. */
  cpuRatio: number;
  clientCpuMedian: number;
}

export interface IngestHttpResult {
  prices: number;
  runs: number;
  inFlight: number;
  serverCpu: string;
  trees: TreeResult[];
  loadBefore: number;
  loadAfter: number;
}

export async function runIngestHttp(
  opts: { runs?: number; compare?: string; profileDir?: string; inFlight?: number; serverCpu?: string } = {},
) {
  const runs = opts.runs ?? 3;
  const serverCpu = opts.serverCpu ?? SERVER_CPU;
  const inFlight = opts.inFlight ?? IN_FLIGHT;
  const work = makeTmpDir('ingest-bodies');
  dirs.add(work);
  try {
    const prices = writeWorkload(work);
    const client = await bundle('bench/ingest-client.ts');
    const roots = [ROOT, ...(opts.compare ? [resolve(opts.compare)] : [])];
    const checkouts = await Promise.all(roots.map((r) => checkoutOf(r, opts.profileDir)));
    const rates = checkouts.map(() => ({ ledger: [] as Rate[], http: [] as Rate[] }));
    const loadBefore = loadavg()[0]!;
    for (let r = 0; r < runs; r++) {
      for (const [i, c] of checkouts.entries()) {
        const l = await ledgerRun(serverCpu, c, work, prices);
        rates[i]!.ledger.push(l);
        log(`  ${c.root} run ${r + 1}: ledger ${int(l.perSecond)}/s, ${l.cpuUsPerPrice.toFixed(1)} µs CPU a price`);
        const h = await httpRun(serverCpu, c, work, prices, client, inFlight);
        rates[i]!.http.push(h);
        log(
          `  ${c.root} run ${r + 1}: http ${int(h.perSecond)}/s, server ${h.cpuUsPerPrice.toFixed(1)} µs CPU a price ` +
            `(its loop ${h.loopUsPerPrice!.toFixed(1)} µs), ` +
            `client ${h.clientUsPerPrice!.toFixed(1)} µs, ${h.busy} x 503 (load ${loadavg()[0]!.toFixed(1)})`,
        );
      }
    }
    const trees = checkouts.map((c, i): TreeResult => {
      const { ledger, http } = rates[i]!;
      const ledgerMedian = median(ledger.map((x) => x.perSecond));
      const httpMedian = median(http.map((x) => x.perSecond));
      const ledgerCpuMedian = median(ledger.map((x) => x.cpuUsPerPrice));
      const httpCpuMedian = median(http.map((x) => x.cpuUsPerPrice));
      return {
        checkout: c.root,
        ledger,
        http,
        ledgerMedian,
        httpMedian,
        ratio: httpMedian / ledgerMedian,
        ledgerCpuMedian,
        httpCpuMedian,
        httpLoopCpuMedian: median(http.map((x) => x.loopUsPerPrice!)),
        cpuRatio: ledgerCpuMedian / httpCpuMedian,
        clientCpuMedian: median(http.map((x) => x.clientUsPerPrice!)),
      };
    });
    return {
      prices,
      runs,
      inFlight,
      serverCpu,
      trees,
      loadBefore,
      loadAfter: loadavg()[0]!,
    } satisfies IngestHttpResult;
  } finally {
    removeDir(work);
    dirs.delete(work);
  }
}

export function ingestHttpMarkdown(r: IngestHttpResult): string {
  const yes = (ok: boolean) => (ok ? 'met' : '**missed**');
  const us = (x: number) => `${x.toFixed(1)} µs`;
  const lines = [
    `### Ingest over HTTP, as shipped (${int(r.prices)} price changes, NDJSON batches of ${BATCH_SIZE}, median of ${r.runs} runs)`,
    '',
    '| checkout | ledger prices/s | HTTP prices/s | HTTP / ledger | server CPU a price, ledger / HTTP | by CPU | HTTP loop CPU a price | client CPU a price |',
    '|---|---:|---:|---:|---:|---:|---:|---:|',
  ];
  for (const t of r.trees) {
    lines.push(
      `| ${t.checkout} | ${int(t.ledgerMedian)} (${t.ledger.map((x) => int(x.perSecond)).join(', ')}) | ` +
        `${int(t.httpMedian)} (${t.http.map((x) => int(x.perSecond)).join(', ')}) | ${pct(t.ratio)} | ` +
        `${us(t.ledgerCpuMedian)} / ${us(t.httpCpuMedian)} | ${pct(t.cpuRatio)} | ${us(t.httpLoopCpuMedian)} | ` +
        `${us(t.clientCpuMedian)} |`,
    );
  }
  const t = r.trees[0]!;
  lines.push(
    '',
    `- load average: ${r.loadBefore.toFixed(1)} at the start, ${r.loadAfter.toFixed(1)} at the end, on ${cpus().length} cores; ` +
      `servers on CPU ${r.serverCpu}, the client on CPU ${CLIENT_CPU}, ${r.inFlight} batches in flight`,
    `- HTTP rate: ${int(t.httpMedian)}/s, target >= ${int(TARGET_PER_S)}/s: ${yes(t.httpMedian >= TARGET_PER_S)} ` +
      `(one core's worth of the server's CPU a price: ${int(1e6 / t.httpCpuMedian)}/s)`,
    `- HTTP / ledger: ${pct(t.ratio)}, target >= ${pct(TARGET_RATIO)}: ${yes(t.ratio >= TARGET_RATIO)}`,
    '',
  );
  return lines.join('\n');
}

if (isMain(import.meta.url)) {
  const argv = process.argv.slice(2);
  onlyKnownArgs(argv, ['--runs', '--compare', '--cpu-prof', '--in-flight', '--server-cpu']);
  cleanupOnSignal(async () => {
    await Promise.all([...live].map((c) => c.stop()));
    for (const d of dirs) removeDir(d);
  });
  const runs = arg('--runs', argv);
  const inFlight = arg('--in-flight', argv);
  const serverCpu = arg('--server-cpu', argv);
  const r = await runIngestHttp({
    ...(runs ? { runs: Number(runs) } : {}),
    ...(inFlight ? { inFlight: Number(inFlight) } : {}),
    ...(serverCpu ? { serverCpu } : {}),
    ...(arg('--compare', argv) ? { compare: arg('--compare', argv)! } : {}),
    ...(arg('--cpu-prof', argv) ? { profileDir: resolve(arg('--cpu-prof', argv)!) } : {}),
  });
  process.stdout.write(`${ingestHttpMarkdown(r)}\n`);
}
