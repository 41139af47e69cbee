/**
 * Memory under legal but hostile load (DESIGN house rule 12), against the server exactly as
 * `npm start` runs it (npm start's node flags, default logging) on a data directory that has been
 * running a while:
 *
 * - filters: REQUESTS events snapshots, every one with a different filter (today's and other dates
 *   of every sport with events, 11 of the 14 books, 12 market ids, include=price_delta), from 20 Max
 *   keys paced at RATE requests a second each (their ceiling is 50);
 * - unread: UNREAD connections that each ask for a different 5,000-row markets delta page (about
 *   1.8 MB, read from the store) and never read a byte, held for HOLD seconds; with --pipeline N
 *   each sends N such requests at once (pipelined), so that the server must hold what the kernel's
 *   socket buffers (4 MB here) do not take.
 *
 * During each, RSS is sampled every 250 ms from the listen to the end, and an Ultra key polls the
 * NBA snapshot 8 times a second (under its ceiling of 10); its p99 is compared with a baseline taken
 * on the same server just before the load, as long as the unread clients' hold by default: a p99 is then
 * the 6th slowest of about 600 requests on both sides (with 30 s it was the 3rd of 240, and moved
 * 13.7-31.7 ms between runs of one tree).
 *
 *   node --import tsx bench/bounded.ts [--only filters,unread] [--data-dir DIR] [--age 300]
 *        [--requests 20000] [--rate 10] [--unread 500] [--pipeline 1] [--hold 75] [--baseline 75]
 *        [--probe] [--cpu-prof DIR] [--node-flags '--trace-gc ...'] [--server-cpus 0]
 *
 * Without --data-dir a fresh directory is filled by running the server with its simulator for AGE
 * seconds first. With --data-dir the keys are added to that directory and it is kept.
 *
 * To find what delays the Ultra requests: --probe loads bench/loop-probe.ts into the server (its
 * event loop's delay, stalls and garbage collections, second by second) and reports them for the
 * baseline and the load, and how many of the slow Ultra requests overlapped a stall of the server's
 * loop; --cpu-prof DIR runs the server with `node --cpu-prof` and summarises the profile within
 * those stalls; --node-flags adds node flags of your own to the server's (after npm start's).
 */
import { request as httpRequest, Agent } from 'node:http';
import { connect, type Socket } from 'node:net';
import { createWriteStream, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { bundle } from '../bin/bundle.js';
import { generateKey, newKeyRecord } from '../src/access/keys.ts';
import { AFFILIATES } from '../src/catalog/affiliates.ts';
import { isLiveVariant } from '../src/catalog/markets.ts';
import { SPORTS } from '../src/catalog/sports.ts';
import { openSqlite } from '../src/store/sqlite/database.ts';
import { SqliteKeyStore } from '../src/store/sqlite/sqlite-secrets.ts';
import {
  type Child,
  canPin,
  cleanupOnSignal,
  cpuSeconds,
  currentAffinity,
  freePort,
  int,
  isMain,
  log,
  makeTmpDir,
  mb,
  median,
  pinSelf,
  removeDir,
  sleep,
  spawnNode,
  startScriptNodeFlags,
  todayUtc,
  waitForHttp,
} from './lib.ts';
import { type FrameTime, summarise as profileSummary } from './profile-top.ts';

export const TARGET_RSS = 400 * 1024 * 1024;
export const TARGET_P99_RATIO = 1.5;
/** The CPUs the server may run on (--server-cpus), and the clients' CPU. */
const SERVER_CPUS = '0';
const CLIENT_CPU = '1';
const MAX_KEYS = 20;
/** The Ultra poller: 8 a second, under Ultra's ceiling of 10. */
const ULTRA_INTERVAL_MS = 125;
const SAMPLE_MS = 250;
/** New unread connections a second: 500 take 25 s, within the hold and past the send timeout. */
const OPEN_RATE = 20;

export interface BoundedOptions {
  only?: ('filters' | 'unread')[];
  dataDir?: string;
  ageS?: number;
  requests?: number;
  ratePerKey?: number;
  unread?: number;
  pipeline?: number;
  holdS?: number;
  baselineS?: number;
  /** Load bench/loop-probe.ts into the server and report its loop and collections. */
  probe?: boolean;
  /**
   * Run the server with `node --cpu-prof` writing here, and its output (server-PID.log); the
   * stalls' profile is summarised.
   */
  cpuProfDir?: string;
  /** Node flags added after npm start's (e.g. --trace-gc). */
  nodeFlags?: string[];
  /**
   * The CPUs the server is pinned to (taskset's list): 0 by default, so that the clients never take
   * its CPU; `0,1` lets its threads (the store's page reads, the checkpoints) run beside the event
   * loop, as on a server with more than one core, sharing CPU 1 with the clients.
   */
  serverCpus?: string;
}

/** VmRSS of `pid` in bytes, or undefined once the process is gone. */
function rssOf(pid: number): number | undefined {
  try {
    const m = /^VmRSS:\s+(\d+)\s+kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) * 1024 : undefined;
  } catch {
    return undefined;
  }
}

function percentile(xs: readonly number[], p: number): number {
  if (xs.length === 0) return Number.NaN;
  const s = [...xs].sort((a, b) => a - b);
  // p = 0 points before the first; NaN then, as for an empty list.
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)] ?? Number.NaN;
}

interface Keys {
  max: string[];
  ultra: string;
  /** Set-up only (discovering sports, dates and markets): an enterprise key nothing throttles. */
  setup: string;
}

/** Adds the benchmark's keys to the data directory's key table (the server reads it live). */
async function addKeys(dataDir: string): Promise<Keys> {
  const db = openSqlite(dataDir);
  try {
    const store = new SqliteKeyStore(db);
    const add = async (tier: 'max' | 'ultra' | 'enterprise', custom?: string) => {
      const key = generateKey();
      await store.insert(newKeyRecord(key, tier, { label: 'bench-bounded', custom }));
      return key;
    };
    const max: string[] = [];
    for (let i = 0; i < MAX_KEYS; i++) max.push(await add('max'));
    return {
      max,
      ultra: await add('ultra'),
      setup: await add('enterprise', JSON.stringify({ burstPerSecond: 1_000_000 })),
    };
  } finally {
    db.close();
  }
}

/** One second of bench/loop-probe.ts in the server (spans in monotonic µs, durations in ms). */
interface ProbeSecond {
  at: number;
  loop: { p50: number; p99: number; max: number };
  /** From, to, and the process's CPU ms within. */
  stalls: [number, number, number][];
  gcs: [string, number, number][];
  heapUsed: number;
  rss: number;
}

const PROBE_PREFIX = 'oddsbase-probe ';
const nowUs = () => Number(process.hrtime.bigint() / 1000n);

interface Server {
  child: Child;
  url: string;
  port: number;
  nodeFlags: string[];
  listenSeconds: number;
  /** Highest RSS between the spawn and the listen. */
  startPeak: number;
  /** Times (epoch ms) of the server's "connection closed" warnings, as they are logged. */
  closes: number[];
  /** What bench/loop-probe.ts reported, with --probe. */
  probe: ProbeSecond[];
}

/**
 * The node flags of the server: npm start's, then the diagnostics asked for. The probe is bundled as
 * the server is (bin/bundle.js), so that it brings no loader thread into the process it measures.
 */
async function serverNodeFlags(opts: Pick<BoundedOptions, 'probe' | 'cpuProfDir' | 'nodeFlags'>): Promise<string[]> {
  return [
    ...startScriptNodeFlags(),
    ...(opts.probe ? ['--import', pathToFileURL(await bundle('bench/loop-probe.ts')).href] : []),
    ...(opts.cpuProfDir ? ['--cpu-prof', `--cpu-prof-dir=${opts.cpuProfDir}`] : []),
    ...(opts.nodeFlags ?? []),
  ];
}

/** `node <npm start's flags> bin/oddsbase.js serve` on `dataDir`, default logging, pinned to `cpus`. */
async function startServer(dataDir: string, nodeFlags: string[], cpus: string, logDir?: string): Promise<Server> {
  const port = await freePort();
  const child = spawnNode(
    [...nodeFlags, 'bin/oddsbase.js', 'serve', '--port', String(port), '--host', '127.0.0.1', '--data-dir', dataDir],
    { cpu: cpus },
  );
  if (logDir) {
    // Everything the server writes (--trace-gc goes to its stdout), for reading beside the profile.
    mkdirSync(logDir, { recursive: true });
    const file = createWriteStream(join(logDir, `server-${child.pid}.log`));
    child.proc.stdout?.pipe(file);
    child.proc.stderr?.pipe(file);
  }
  const closes: number[] = [];
  let partial = '';
  child.proc.stdout?.on('data', (b: Buffer) => {
    const lines = (partial + b.toString()).split('\n');
    partial = lines.pop() ?? '';
    for (const line of lines) {
      if (!line.includes('"msg":"connection closed')) continue;
      const time = /"time":(\d+)/.exec(line);
      closes.push(time ? Number(time[1]) : Date.now());
    }
  });
  const probe: ProbeSecond[] = [];
  let partialErr = '';
  child.proc.stderr?.on('data', (b: Buffer) => {
    const lines = (partialErr + b.toString()).split('\n');
    partialErr = lines.pop() ?? '';
    for (const line of lines) {
      if (line.startsWith(PROBE_PREFIX)) probe.push(JSON.parse(line.slice(PROBE_PREFIX.length)) as ProbeSecond);
    }
  });
  let startPeak = 0;
  const sampler = setInterval(() => {
    startPeak = Math.max(startPeak, rssOf(child.pid) ?? 0);
  }, SAMPLE_MS);
  const t0 = Date.now();
  try {
    const url = `http://127.0.0.1:${port}`;
    await waitForHttp(`${url}/api/v2/sports`, child, 300_000);
    return { child, url, port, nodeFlags, listenSeconds: (Date.now() - t0) / 1000, startPeak, closes, probe };
  } catch (err) {
    await child.stop();
    throw err;
  } finally {
    clearInterval(sampler);
  }
}

interface Answer {
  status: number;
  ms: number;
  bytes: number;
  /** When it was sent, monotonic µs. */
  startUs: number;
}

/** One GET on a keep-alive agent; status 0 for a network error or a 60 s timeout. */
function get(agent: Agent, port: number, path: string, key: string): Promise<Answer> {
  const startUs = nowUs();
  const t0 = performance.now();
  return new Promise((resolve) => {
    const req = httpRequest(
      { agent, host: '127.0.0.1', port, path, headers: { 'X-Service-Key': key }, timeout: 60_000 },
      (res) => {
        let bytes = 0;
        res.on('data', (c: Buffer) => {
          bytes += c.length;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, ms: performance.now() - t0, bytes, startUs }));
        res.on('error', () => resolve({ status: 0, ms: performance.now() - t0, bytes, startUs }));
      },
    );
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', () => resolve({ status: 0, ms: performance.now() - t0, bytes: 0, startUs }));
    req.end();
  });
}

async function getJson<T>(server: Server, path: string, key: string): Promise<T> {
  const res = await fetch(server.url + path, {
    headers: { 'X-Service-Key': key },
    signal: AbortSignal.timeout(60_000),
  });
  if (res.status !== 200) throw new Error(`GET ${path} answered ${res.status}: ${(await res.text()).slice(0, 300)}`);
  return (await res.json()) as T;
}

/** RSS of the server every 250 ms until stopped; notes when the process is gone. */
class RssSampler {
  readonly samples: number[] = [];
  died = false;
  private readonly timer: NodeJS.Timeout;

  constructor(pid: number) {
    this.timer = setInterval(() => {
      const rss = rssOf(pid);
      if (rss === undefined) this.died = true;
      else this.samples.push(rss);
    }, SAMPLE_MS);
  }

  stop(): number[] {
    clearInterval(this.timer);
    return this.samples;
  }
}

/** The Ultra odds screen: the NBA snapshot, one request at a time, 8 a second, until `done()`. */
async function ultraPoller(server: Server, key: string, done: () => boolean): Promise<Answer[]> {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const path = `/api/v2/sports/4/events/${todayUtc()}`;
  const out: Answer[] = [];
  let next = Date.now();
  while (!done()) {
    next += ULTRA_INTERVAL_MS;
    out.push(await get(agent, server.port, path, key));
    await sleep(Math.max(0, next - Date.now()));
    // Behind schedule (a slow answer): start again from now rather than catch up in a burst.
    next = Math.max(next, Date.now() - ULTRA_INTERVAL_MS);
  }
  agent.destroy();
  return out;
}

interface LatencySummary {
  count: number;
  ok: number;
  p50: number;
  p99: number;
  max: number;
}

function summarise(answers: readonly Answer[]): LatencySummary {
  const ms = answers.map((a) => a.ms);
  return {
    count: answers.length,
    ok: answers.filter((a) => a.status === 200).length,
    p50: percentile(ms, 50),
    p99: percentile(ms, 99),
    max: ms.length ? Math.max(...ms) : Number.NaN,
  };
}

interface RssSummary {
  peak: number;
  median: number;
  last: number;
  /** One sample a second (every fourth), MB, for the record. */
  trace: number[];
}

function rssSummary(samples: readonly number[]): RssSummary {
  return {
    peak: samples.length ? Math.max(...samples) : Number.NaN,
    median: median(samples),
    last: samples[samples.length - 1] ?? Number.NaN,
    trace: samples.filter((_, i) => i % 4 === 0).map((x) => Math.round(x / 1024 / 1024)),
  };
}

// --- the server's loop (--probe, --cpu-prof) ----------------------------------------------------

/** What the server's event loop went through in a span of the run (bench/loop-probe.ts). */
export interface LoopSummary {
  seconds: number;
  /** Median and highest of the loop delay's per-second p99, and the highest delay, ms. */
  p99Median: number;
  p99Max: number;
  maxDelay: number;
  /** Stalls of the loop (no timer ran for over 25 ms): count, total and longest ms, CPU ms within. */
  stalls: number;
  stallMs: number;
  longestStall: number;
  stallCpuMs: number;
  /** Stalls with a major (mark-compact) collection inside, and their total ms. */
  stallsWithMajorGc: number;
  stallMsWithMajorGc: number;
  /** Collections by kind: count, total ms, longest ms. */
  gcs: Record<string, { count: number; ms: number; max: number }>;
}

const overlaps = (a: readonly number[], b: readonly number[]) => a[0]! < b[1]! && b[0]! < a[1]!;

function loopSummary(probe: readonly ProbeSecond[], span: readonly [number, number]): LoopSummary {
  const secs = probe.filter((p) => p.at > span[0] && p.at <= span[1] + 1_000_000);
  const stalls = secs.flatMap((p) => p.stalls).filter((w) => overlaps(w, span));
  const gcList = secs.flatMap((p) => p.gcs).filter(([, at]) => at >= span[0] && at <= span[1]);
  const majors = gcList.filter(([kind]) => kind === 'major').map(([, at, ms]) => [at, at + ms * 1000] as const);
  const withMajor = stalls.filter((w) => majors.some((g) => overlaps(w, g)));
  const gcs: LoopSummary['gcs'] = {};
  for (const [kind, , ms] of gcList) {
    const g = (gcs[kind] ??= { count: 0, ms: 0, max: 0 });
    g.count++;
    g.ms += ms;
    g.max = Math.max(g.max, ms);
  }
  const stallMs = (ws: readonly [number, number, number][]) => ws.reduce((t, [a, b]) => t + (b - a) / 1000, 0);
  return {
    seconds: secs.length,
    p99Median: median(secs.map((p) => p.loop.p99)),
    p99Max: Math.max(0, ...secs.map((p) => p.loop.p99)),
    maxDelay: Math.max(0, ...secs.map((p) => p.loop.max)),
    stalls: stalls.length,
    stallMs: stallMs(stalls),
    longestStall: Math.max(0, ...stalls.map(([a, b]) => (b - a) / 1000)),
    stallCpuMs: stalls.reduce((t, [, , c]) => t + c, 0),
    stallsWithMajorGc: withMajor.length,
    stallMsWithMajorGc: stallMs(withMajor),
    gcs,
  };
}

/** The Ultra requests under load slower than 1.5x the baseline's p99, and what the server was doing. */
export interface SlowSummary {
  threshold: number;
  slow: number;
  /** Of those, how many overlapped a stall of the server's loop, and one with a major collection. */
  overStall: number;
  overMajorGcStall: number;
  /** With --cpu-prof: the frames with the most self time within the load's stalls, and key functions. */
  stallProfile?: { totalMs: number; self: FrameTime[]; inclusive: FrameTime[] };
}

/** Functions whose inclusive time within the stalls the report gives (what the candidates run). */
const SUSPECTS = [
  'envelope',
  'event',
  'viewEvent',
  'readPayloadBytes',
  'readChanges',
  'compactChunk',
  'commit',
  'apply',
  'check',
];

function slowSummary(
  probe: readonly ProbeSecond[],
  answers: readonly Answer[],
  baselineP99: number,
  span: readonly [number, number],
): SlowSummary {
  const threshold = TARGET_P99_RATIO * baselineP99;
  const stalls = probe.flatMap((p) => p.stalls).filter((w) => overlaps(w, span));
  const majors = probe
    .flatMap((p) => p.gcs)
    .filter(([kind]) => kind === 'major')
    .map(([, at, ms]) => [at, at + ms * 1000] as const);
  const slow = answers.filter((a) => a.ms > threshold).map((a) => [a.startUs, a.startUs + a.ms * 1000] as const);
  const hit = slow.map((w) => stalls.filter((st) => overlaps(w, st)));
  return {
    threshold,
    slow: slow.length,
    overStall: hit.filter((h) => h.length > 0).length,
    overMajorGcStall: hit.filter((h) => h.some((st) => majors.some((g) => overlaps(st, g)))).length,
  };
}

/**
 * The profile of the main thread of process `pid` in `dir`, summarised within `windows`. node names
 * each thread's profile CPU.<date>.<time>.<pid>.<thread>.<n>.cpuprofile; the main thread is 0 (the
 * others are tsx's module loader and the checkpointer).
 */
function stallProfile(
  dir: string,
  pid: number,
  windows: readonly (readonly [number, number])[],
): SlowSummary['stallProfile'] {
  const file = readdirSync(dir).find((f) => f.endsWith('.cpuprofile') && f.includes(`.${pid}.0.`));
  if (!file) return undefined;
  return profileSummary(join(dir, file), { top: 20, windows, inclusive: SUSPECTS });
}

/** Ultra answers' span, monotonic µs. */
const spanOf = (answers: readonly Answer[]): [number, number] => [
  answers[0]?.startUs ?? 0,
  Math.max(0, ...answers.map((a) => a.startUs + a.ms * 1000)),
];

interface Diagnosis {
  loopBaseline?: LoopSummary;
  loopLoad?: LoopSummary;
  slow?: SlowSummary;
}

/** The loop's summaries and the slow requests' diagnosis, when the server ran the probe. */
function diagnose(
  server: Server,
  baseline: readonly Answer[],
  load: readonly Answer[],
  baselineP99: number,
): Diagnosis {
  if (server.probe.length === 0) return {};
  const loadSpan = spanOf(load);
  return {
    loopBaseline: loopSummary(server.probe, spanOf(baseline)),
    loopLoad: loopSummary(server.probe, loadSpan),
    slow: slowSummary(server.probe, load, baselineP99, loadSpan),
  };
}

/**
 * Adds the profile of the load's stalls, once the server has stopped and written its profile, and
 * keeps the probe's seconds and the Ultra answers beside it (probe-PID.json).
 */
function withStallProfile(d: Diagnosis, server: Server, load: readonly Answer[], dir: string | undefined): void {
  if (!dir || !d.slow) return;
  writeFileSync(join(dir, `probe-${server.child.pid}.json`), JSON.stringify({ probe: server.probe, ultra: load }));
  const span = spanOf(load);
  d.slow.stallProfile = stallProfile(
    dir,
    server.child.pid,
    server.probe
      .flatMap((p) => p.stalls)
      .filter((w) => overlaps(w, span))
      .map(([from, to]) => [from, to] as const),
  );
}

// --- filters -------------------------------------------------------------------------------------

/** Every 11-of-14 subset of the books, as sorted lists. */
function elevenBookSets(): number[][] {
  const books = AFFILIATES.map((a) => a.affiliate_id).sort((a, b) => a - b);
  const out: number[][] = [];
  for (let i = 0; i < books.length; i++)
    for (let j = i + 1; j < books.length; j++)
      for (let k = j + 1; k < books.length; k++) out.push(books.filter((_, x) => x !== i && x !== j && x !== k));
  return out;
}

/**
 * `count` distinct events-snapshot paths: every (sport, date) with events in turn, each time with
 * the next 11-book subset, 12 market ids priced for the sport, and price_delta.
 */
async function distinctFilters(server: Server, keys: Keys, count: number): Promise<{ paths: string[]; pairs: number }> {
  const ids = SPORTS.map((s) => s.sport_id);
  const dates = await getJson<Record<string, { dates: string[] }>>(
    server,
    `/api/v2/sports/dates?sport_ids=${ids.join(',')}`,
    keys.setup,
  );
  const pairs: { sport: number; date: string; markets: number[] }[] = [];
  for (const [sport, { dates: ds }] of Object.entries(dates)) {
    if (ds.length === 0) continue;
    // The markets priced for the sport, read from one of its events.
    const snap = await getJson<{ events: { event_id: string }[] }>(
      server,
      `/api/v2/sports/${sport}/events/${ds[Math.floor(ds.length / 2)]}`,
      keys.setup,
    );
    const markets = new Set<number>();
    for (const e of snap.events.slice(0, 3)) {
      // An array of market definitions: id is the market id.
      const m = await getJson<{ id: number }[]>(server, `/api/v2/events/${e.event_id}/markets`, keys.setup);
      for (const x of m) if (!isLiveVariant(x.id)) markets.add(x.id);
    }
    // Fewer than 12 priced: the rest are asked for and simply absent, as a client's would be.
    for (let id = 1; markets.size < 12; id++) if (!isLiveVariant(id)) markets.add(id);
    for (const date of ds) pairs.push({ sport: Number(sport), date, markets: [...markets].slice(0, 12) });
  }
  const books = elevenBookSets();
  if (pairs.length * books.length < count) throw new Error(`only ${pairs.length * books.length} distinct filters`);
  const paths: string[] = [];
  for (let i = 0; i < count; i++) {
    // Both lists are non-empty here: the check above needs pairs x books >= count > i.
    const p = pairs[i % pairs.length]!;
    const b = books[Math.floor(i / pairs.length) % books.length]!;
    paths.push(
      `/api/v2/sports/${p.sport}/events/${p.date}?affiliate_ids=${b.join(',')}` +
        `&market_ids=${p.markets.join(',')}&include=price_delta`,
    );
  }
  if (new Set(paths).size !== count) throw new Error('the filters are not all distinct');
  return { paths, pairs: pairs.length };
}

/**
 * Sends `paths` from the Max keys, each key at `rate` a second with at most 4 in flight; the keys'
 * schedules are staggered so that the requests arrive evenly rather than all keys at once.
 */
async function maxLoad(
  server: Server,
  keys: readonly string[],
  paths: readonly string[],
  rate: number,
): Promise<{ answers: Answer[]; seconds: number }> {
  const answers: Answer[] = [];
  const t0 = Date.now();
  await Promise.all(
    keys.map(async (key, k) => {
      const agent = new Agent({ keepAlive: true, maxSockets: 4 });
      const mine = paths.filter((_, i) => i % keys.length === k);
      const inflight = new Set<Promise<void>>();
      for (let j = 0; j < mine.length; j++) {
        await sleep(Math.max(0, t0 + ((j + k / keys.length) * 1000) / rate - Date.now()));
        while (inflight.size >= 4) await Promise.race(inflight);
        const p: Promise<void> = get(agent, server.port, mine[j]!, key).then((a) => {
          answers.push(a);
          inflight.delete(p);
        });
        inflight.add(p);
      }
      await Promise.all(inflight);
      agent.destroy();
    }),
  );
  return { answers, seconds: (Date.now() - t0) / 1000 };
}

export interface FiltersResult extends Diagnosis {
  requests: number;
  pairs: number;
  ratePerKey: number;
  seconds: number;
  statuses: Record<string, number>;
  bytes: number;
  /** Share of one CPU the server used during the load (user + system). */
  serverCpu: number;
  max: LatencySummary;
  ultraBaseline: LatencySummary;
  ultraLoad: LatencySummary;
  rssBaseline: RssSummary;
  rssLoad: RssSummary;
  /** Peak over every sample from the listen to the end. */
  peak: number;
  alive: boolean;
  listenSeconds: number;
  startPeak: number;
  met: boolean;
}

async function runFilters(dataDir: string, keys: Keys, opts: Required<BoundedOptions>): Promise<FiltersResult> {
  log('bounded/filters: starting the server');
  const server = await startServer(dataDir, await serverNodeFlags(opts), opts.serverCpus, opts.cpuProfDir || undefined);
  let r: FiltersResult;
  let ultraLoad: Answer[];
  try {
    const rss = new RssSampler(server.child.pid);
    const { paths, pairs } = await distinctFilters(server, keys, opts.requests);
    log(
      `bounded/filters: ${int(paths.length)} distinct filters over ${pairs} sport-dates; baseline ${opts.baselineS} s`,
    );
    const baseEnd = Date.now() + opts.baselineS * 1000;
    const baseline = await ultraPoller(server, keys.ultra, () => Date.now() >= baseEnd);
    const baseSamples = rss.samples.length;
    log(`bounded/filters: load at ${opts.ratePerKey}/s from each of ${MAX_KEYS} Max keys`);
    let loading = true;
    const cpu0 = cpuSeconds(server.child.pid) ?? 0;
    const during = ultraPoller(server, keys.ultra, () => !loading);
    const load = await maxLoad(server, keys.max, paths, opts.ratePerKey);
    loading = false;
    ultraLoad = await during;
    const serverCpu = ((cpuSeconds(server.child.pid) ?? 0) - cpu0) / load.seconds;
    const samples = rss.stop();
    const statuses: Record<string, number> = {};
    for (const a of load.answers) statuses[a.status] = (statuses[a.status] ?? 0) + 1;
    const alive = !rss.died && server.child.proc.exitCode === null && server.child.proc.signalCode === null;
    const peak = Math.max(...samples);
    const ultraBaseline = summarise(baseline);
    r = {
      ...diagnose(server, baseline, ultraLoad, ultraBaseline.p99),
      requests: paths.length,
      pairs,
      ratePerKey: opts.ratePerKey,
      seconds: load.seconds,
      statuses,
      bytes: load.answers.reduce((s, a) => s + a.bytes, 0),
      serverCpu,
      max: summarise(load.answers),
      ultraBaseline,
      ultraLoad: summarise(ultraLoad),
      rssBaseline: rssSummary(samples.slice(0, baseSamples)),
      rssLoad: rssSummary(samples.slice(baseSamples)),
      peak,
      alive,
      listenSeconds: server.listenSeconds,
      startPeak: server.startPeak,
      met: false,
    };
    r.met = alive && peak < TARGET_RSS && r.ultraLoad.p99 <= TARGET_P99_RATIO * r.ultraBaseline.p99;
  } finally {
    await server.child.stop();
  }
  withStallProfile(r, server, ultraLoad, opts.cpuProfDir);
  return r;
}

// --- unread --------------------------------------------------------------------------------------

/** Opens a connection that sends its GETs at once and never reads the answers. */
function unreadRequests(port: number, paths: readonly string[], key: string): Promise<Socket> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1', () => {
      socket.pause();
      socket.write(paths.map((p) => `GET ${p} HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Service-Key: ${key}\r\n\r\n`).join(''));
      resolve(socket);
    });
    socket.on('error', () => {});
  });
}

export interface UnreadResult extends Diagnosis {
  connections: number;
  pipeline: number;
  pageBytes: number;
  holdS: number;
  /** Connections the server closed, and after how long (s from the request), median and last. */
  closed: number;
  closedMedianS: number;
  closedLastS: number;
  ultraBaseline: LatencySummary;
  ultraLoad: LatencySummary;
  rssBaseline: RssSummary;
  rssLoad: RssSummary;
  /** RSS at the end of the hold, with the clients still connected. */
  rssEndOfHold: number;
  /** Share of one CPU the server used during the hold. */
  serverCpu: number;
  peak: number;
  alive: boolean;
  listenSeconds: number;
  startPeak: number;
  met: boolean;
}

async function runUnread(dataDir: string, keys: Keys, opts: Required<BoundedOptions>): Promise<UnreadResult> {
  log('bounded/unread: starting the server');
  const server = await startServer(dataDir, await serverNodeFlags(opts), opts.serverCpus, opts.cpuProfDir || undefined);
  const sockets: Socket[] = [];
  let r: UnreadResult;
  let ultraLoad: Answer[];
  try {
    const rss = new RssSampler(server.child.pid);
    const snap = await getJson<{ meta: { delta_last_id: string } }>(
      server,
      `/api/v2/sports/4/events/${todayUtc()}`,
      keys.setup,
    );
    const head = Number(snap.meta.delta_last_id);
    // Cursors spread over the log below the newest 50,000 rows: each page is read from the store.
    const pages = opts.unread * opts.pipeline;
    const step = Math.floor((head - 50_000) / pages);
    if (step < 1) throw new Error(`the log is too short (${head} rows) for ${pages} old cursors`);
    const pathOf = (i: number) => `/api/v2/markets/delta?last_id=${1 + i * step}&limit=5000`;
    const check = await fetch(server.url + pathOf(0), { headers: { 'X-Service-Key': keys.setup } });
    const pageBytes = (await check.arrayBuffer()).byteLength;
    log(`bounded/unread: pages of ${int(pageBytes)} bytes; baseline ${opts.baselineS} s`);
    const baseEnd = Date.now() + opts.baselineS * 1000;
    const baseline = await ultraPoller(server, keys.ultra, () => Date.now() >= baseEnd);
    const baseSamples = rss.samples.length;

    log(
      `bounded/unread: ${opts.unread} connections that never read (${opts.pipeline} requests each), ` +
        `held ${opts.holdS} s`,
    );
    const holdEnd = Date.now() + opts.holdS * 1000;
    const cpu0 = cpuSeconds(server.child.pid) ?? 0;
    const during = ultraPoller(server, keys.ultra, () => Date.now() >= holdEnd);
    const opened: number[] = [];
    const firstClose = server.closes.length;
    // OPEN_RATE new connections a second, spread over the Max keys (one a second each).
    const t0 = Date.now();
    for (let i = 0; i < opts.unread; i++) {
      await sleep(Math.max(0, t0 + (i * 1000) / OPEN_RATE - Date.now()));
      const key = keys.max[i % keys.max.length];
      if (key === undefined) throw new Error('no Max keys to open connections with');
      const paths = Array.from({ length: opts.pipeline }, (_, k) => pathOf(i * opts.pipeline + k));
      opened.push(Date.now());
      sockets.push(await unreadRequests(server.port, paths, key));
    }
    ultraLoad = await during;
    const serverCpu = ((cpuSeconds(server.child.pid) ?? 0) - cpu0) / opts.holdS;
    const rssEndOfHold = rssOf(server.child.pid) ?? 0;
    const samples = rss.stop();
    const closes = server.closes.slice(firstClose);
    // No connection opened: every time after it is NaN.
    const started = opened[0] ?? Number.NaN;
    const afterS = closes.map((t) => (t - started) / 1000);
    const alive = !rss.died && server.child.proc.exitCode === null && server.child.proc.signalCode === null;
    const peak = Math.max(...samples);
    const ultraBaseline = summarise(baseline);
    r = {
      ...diagnose(server, baseline, ultraLoad, ultraBaseline.p99),
      connections: opts.unread,
      pipeline: opts.pipeline,
      pageBytes,
      holdS: opts.holdS,
      closed: closes.length,
      closedMedianS: median(afterS),
      closedLastS: afterS.length ? Math.max(...afterS) : Number.NaN,
      ultraBaseline,
      ultraLoad: summarise(ultraLoad),
      rssBaseline: rssSummary(samples.slice(0, baseSamples)),
      rssLoad: rssSummary(samples.slice(baseSamples)),
      rssEndOfHold,
      serverCpu,
      peak,
      alive,
      listenSeconds: server.listenSeconds,
      startPeak: server.startPeak,
      met: false,
    };
    r.met = alive && peak < TARGET_RSS && r.ultraLoad.p99 <= TARGET_P99_RATIO * r.ultraBaseline.p99;
  } finally {
    for (const s of sockets) s.destroy();
    await server.child.stop();
  }
  withStallProfile(r, server, ultraLoad, opts.cpuProfDir);
  return r;
}

// --- both ----------------------------------------------------------------------------------------

export interface BoundedResult {
  dataDir: string;
  aged: string;
  nodeFlags: string[];
  serverCpus: string;
  filters?: FiltersResult;
  unread?: UnreadResult;
}

/** Fills a fresh data directory by running the server with its simulator for `ageS` seconds. */
async function ageDataDir(ageS: number): Promise<string> {
  const dir = makeTmpDir('bounded');
  log(`bounded: filling a data directory by running the server for ${ageS} s`);
  const server = await startServer(dir, startScriptNodeFlags(), SERVER_CPUS);
  await sleep(ageS * 1000);
  await server.child.stop(30_000);
  return dir;
}

export async function runBounded(options: BoundedOptions = {}): Promise<BoundedResult> {
  const opts: Required<BoundedOptions> = {
    only: options.only ?? ['filters', 'unread'],
    dataDir: options.dataDir ?? '',
    ageS: options.ageS ?? 300,
    requests: options.requests ?? 20_000,
    ratePerKey: options.ratePerKey ?? 10,
    unread: options.unread ?? 500,
    pipeline: options.pipeline ?? 1,
    holdS: options.holdS ?? 75,
    baselineS: options.baselineS ?? 75,
    probe: options.probe ?? false,
    cpuProfDir: options.cpuProfDir ?? '',
    nodeFlags: options.nodeFlags ?? [],
    serverCpus: options.serverCpus ?? SERVER_CPUS,
  };
  if (process.platform !== 'linux') throw new Error('bounded: reads /proc, so it runs on Linux only');
  if (opts.dataDir && !existsSync(opts.dataDir)) throw new Error(`no data directory ${opts.dataDir}`);
  let fresh: string | undefined;
  let restoreAffinity: string | undefined;
  const cleanup = async () => {
    if (fresh) removeDir(fresh);
    if (restoreAffinity) pinSelf(restoreAffinity);
  };
  const undoSignals = cleanupOnSignal(cleanup);
  try {
    restoreAffinity = canPin() ? currentAffinity() : undefined;
    if (restoreAffinity) pinSelf(CLIENT_CPU);
    const dataDir = opts.dataDir || (fresh = await ageDataDir(opts.ageS));
    const keys = await addKeys(dataDir);
    const result: BoundedResult = {
      dataDir,
      aged: opts.dataDir ? `given (${opts.dataDir})` : `fresh, filled by running the server for ${opts.ageS} s`,
      nodeFlags: await serverNodeFlags(opts),
      serverCpus: opts.serverCpus,
    };
    if (opts.only.includes('filters')) result.filters = await runFilters(dataDir, keys, opts);
    if (opts.only.includes('unread')) result.unread = await runUnread(dataDir, keys, opts);
    return result;
  } finally {
    undoSignals();
    await cleanup();
  }
}

const ms = (x: number) => x.toFixed(1);
const latencyRow = (name: string, s: LatencySummary) =>
  `| ${name} | ${int(s.count)} | ${int(s.ok)} | ${ms(s.p50)} | ${ms(s.p99)} | ${ms(s.max)} |`;

/** The probe's and the profile's findings, as list items and a table. */
function diagnosisLines(d: Diagnosis): string[] {
  if (!d.loopBaseline || !d.loopLoad || !d.slow) return [];
  const gcText = (l: LoopSummary) =>
    Object.entries(l.gcs)
      .map(([kind, g]) => `${kind} ${g.count} (${ms(g.ms)} ms, longest ${ms(g.max)})`)
      .join(', ') || 'none';
  const loopRow = (name: string, l: LoopSummary) =>
    `| ${name} | ${l.seconds} | ${ms(l.p99Median)} / ${ms(l.p99Max)} | ${ms(l.maxDelay)} | ` +
    `${l.stalls} (${ms(l.stallMs)} ms, longest ${ms(l.longestStall)}; CPU ${ms(l.stallCpuMs)} ms) | ` +
    `${l.stallsWithMajorGc} (${ms(l.stallMsWithMajorGc)} ms) | ${gcText(l)} |`;
  const s = d.slow;
  const lines = [
    '| server loop (--probe) | seconds | delay p99 median / max ms | max delay ms | stalls > 25 ms | stalls with a major GC | collections |',
    '|---|---:|---:|---:|---|---|---|',
    loopRow('baseline', d.loopBaseline),
    loopRow('under load', d.loopLoad),
    '',
    `- Ultra requests under load slower than ${ms(s.threshold)} ms: ${s.slow}; overlapping a stall of the ` +
      `server's loop: ${s.overStall}; a stall with a major collection: ${s.overMajorGcStall}`,
  ];
  const prof = s.stallProfile;
  if (prof) {
    const frames = (xs: readonly FrameTime[]) =>
      xs.map((f) => `${ms(f.ms)} ms (${(f.share * 100).toFixed(1)}%) ${f.frame}`).join('; ');
    lines.push(
      `- CPU profile within the load's stalls (${ms(prof.totalMs)} ms sampled): self time ${frames(prof.self.slice(0, 12))}`,
      `- inclusive: ${frames(prof.inclusive)}`,
    );
  }
  lines.push('');
  return lines;
}

export function boundedMarkdown(r: BoundedResult): string {
  const lines: string[] = [
    '### Bounded under load (`bench/bounded.ts`)',
    '',
    `- server: \`node ${r.nodeFlags.join(' ')} bin/oddsbase.js serve\`, default logging, pinned to CPU ${r.serverCpus}; ` +
      `clients on CPU ${CLIENT_CPU}; data directory ${r.aged}`,
    '',
  ];
  const ultra = (base: LatencySummary, load: LatencySummary) => [
    '| Ultra poller (NBA snapshot, 8/s) | requests | 200 | p50 ms | p99 ms | max ms |',
    '|---|---:|---:|---:|---:|---:|',
    latencyRow('baseline', base),
    latencyRow('under load', load),
  ];
  const f = r.filters;
  if (f) {
    lines.push(
      `#### ${int(f.requests)} events requests with distinct filters, ${MAX_KEYS} Max keys at ${f.ratePerKey}/s each`,
      '',
      ...ultra(f.ultraBaseline, f.ultraLoad),
      latencyRow('Max keys, distinct filters', f.max),
      '',
      `- ${int(f.requests)} requests over ${f.pairs} sport-dates in ${f.seconds.toFixed(0)} s ` +
        `(${int(f.requests / f.seconds)}/s); answers by status: ` +
        `${Object.entries(f.statuses)
          .map(([s, n]) => `${s === '0' ? 'network error' : s} ${int(n)}`)
          .join(', ')}; ${mb(f.bytes)} received; the server used ${(f.serverCpu * 100).toFixed(0)}% of a CPU`,
      `- RSS: baseline median ${mb(f.rssBaseline.median)}; under load median ${mb(f.rssLoad.median)}, ` +
        `peak ${mb(f.rssLoad.peak)}, last ${mb(f.rssLoad.last)}; peak from the listen on ${mb(f.peak)} ` +
        `(start-up peak before the listen ${mb(f.startPeak)}, listened after ${f.listenSeconds.toFixed(1)} s)`,
      `- RSS under load, MB, one a second: ${f.rssLoad.trace.join(' ')}`,
      `- server alive: ${f.alive ? 'yes' : '**no**'}; RSS < 400 MB: ${f.peak < TARGET_RSS ? 'met' : '**missed**'}; ` +
        `Ultra p99 ${ms(f.ultraLoad.p99)} ms vs ${ms(f.ultraBaseline.p99)} ms ` +
        `(${(f.ultraLoad.p99 / f.ultraBaseline.p99).toFixed(2)}x, target <= ${TARGET_P99_RATIO}x): ` +
        `${f.ultraLoad.p99 <= TARGET_P99_RATIO * f.ultraBaseline.p99 ? 'met' : '**missed**'}`,
      '',
      ...diagnosisLines(f),
    );
  }
  const u = r.unread;
  if (u) {
    lines.push(
      `#### ${u.connections} connections that ask for ${u.pipeline === 1 ? 'a' : `${u.pipeline} pipelined`} ` +
        `${mb(u.pageBytes)} delta page${u.pipeline === 1 ? '' : 's'} and never read`,
      '',
      ...ultra(u.ultraBaseline, u.ultraLoad),
      '',
      `- the server closed ${u.closed} of the ${u.connections} (its warnings)` +
        (u.closed > 0
          ? `, median ${ms(u.closedMedianS)} s and last ${ms(u.closedLastS)} s after the first request`
          : " (what the kernel took into its socket buffers is no longer the server's to time out)") +
        `; held ${u.holdS} s; the server used ${(u.serverCpu * 100).toFixed(0)}% of a CPU`,
      `- RSS: baseline median ${mb(u.rssBaseline.median)}; during median ${mb(u.rssLoad.median)}, ` +
        `peak ${mb(u.rssLoad.peak)}; at the end of the hold ${mb(u.rssEndOfHold)}; peak from the listen on ` +
        `${mb(u.peak)} (start-up peak before the listen ${mb(u.startPeak)})`,
      `- RSS during, MB, one a second: ${u.rssLoad.trace.join(' ')}`,
      `- server alive: ${u.alive ? 'yes' : '**no**'}; RSS < 400 MB: ${u.peak < TARGET_RSS ? 'met' : '**missed**'}; ` +
        `Ultra p99 ${ms(u.ultraLoad.p99)} ms vs ${ms(u.ultraBaseline.p99)} ms ` +
        `(${(u.ultraLoad.p99 / u.ultraBaseline.p99).toFixed(2)}x, target <= ${TARGET_P99_RATIO}x): ` +
        `${u.ultraLoad.p99 <= TARGET_P99_RATIO * u.ultraBaseline.p99 ? 'met' : '**missed**'}`,
      '',
      ...diagnosisLines(u),
    );
  }
  return lines.join('\n');
}

function parseArgs(argv: string[]): BoundedOptions {
  const opts: BoundedOptions = {};
  const num = (v: string | undefined, min: number, max: number) => Math.max(min, Math.min(max, Number(v)));
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--only') opts.only = (argv[++i] ?? '').split(',') as BoundedOptions['only'];
    else if (a === '--data-dir') opts.dataDir = argv[++i];
    else if (a === '--age') opts.ageS = num(argv[++i], 0, 86_400);
    else if (a === '--requests') opts.requests = num(argv[++i], 100, 1_000_000);
    else if (a === '--rate') opts.ratePerKey = num(argv[++i], 1, 49);
    else if (a === '--unread') opts.unread = num(argv[++i], 1, 5000);
    else if (a === '--pipeline') opts.pipeline = num(argv[++i], 1, 16);
    else if (a === '--hold') opts.holdS = num(argv[++i], 5, 600);
    else if (a === '--baseline') opts.baselineS = num(argv[++i], 5, 600);
    else if (a === '--probe') opts.probe = true;
    else if (a === '--cpu-prof') opts.cpuProfDir = resolve(argv[++i] ?? '');
    else if (a === '--server-cpus') opts.serverCpus = /^\d+(,\d+)*$/.test(argv[++i] ?? '') ? argv[i] : SERVER_CPUS;
    else if (a === '--node-flags') opts.nodeFlags = (argv[++i] ?? '').split(/\s+/).filter(Boolean);
    else throw new Error(`unknown argument ${a}`);
  }
  return opts;
}

if (isMain(import.meta.url)) {
  const r = await runBounded(parseArgs(process.argv.slice(2)));
  process.stdout.write(`${boundedMarkdown(r)}\n`);
}
