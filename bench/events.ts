/**
 * GET /api/v2/sports/4/events/{today} (default markets, every book) on the real server, with the
 * live simulator on, against a bare node:http server that returns the same bytes.
 *
 *   node --import tsx bench/events.ts [--rounds 5] [--duration 10] [--query QS] [--cpu-prof DIR]
 *                                     [--no-start-flags] [--node-flags '--single-threaded-gc ...']
 *                                     [--heap-matched] [--server-cpu-quota PCT]
 *
 * Both servers are child processes pinned to CPU 0; this process (autocannon, in-process) pins
 * itself to CPU 1 while it runs. The key is an enterprise key with a custom per-second ceiling
 * (Ultra's is 10 requests a second); it sees exactly what an Ultra key sees. Runs alternate
 * oddsbase / bare, ROUNDS of each, after a short warm-up of each. The server gets the node flags
 * of `npm start` (e.g. its heap ceiling) unless --no-start-flags, then those of --node-flags. --cpu-prof DIR starts both
 * servers with `node --cpu-prof` (slower: for finding where the time goes, not for the numbers) and
 * prints the top frames of each over its own runs, per request too. --heap-matched adds a third
 * server to the rounds: the bare one again, holding as much heap as the oddsbase server uses after
 * its warm-up (bench/bare-server.ts HEAP_MB) and started with the oddsbase server's node flags, to
 * tell what holding that memory costs a request from what the server's own work costs.
 * --server-cpu-quota PCT holds every server to PCT% of one CPU (a cgroup; root only) for the
 * measured rounds: autocannon then keeps ahead of them, and req/s is each server's capacity.
 */
import { readdirSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import autocannon, { type Result } from 'autocannon';
import { bundle } from '../bin/bundle.js';
import {
  arg,
  type Child,
  type CpuQuota,
  canPin,
  cpuQuota,
  cleanupOnSignal,
  cpuSeconds,
  currentAffinity,
  freePort,
  int,
  isMain,
  log,
  makeTmpDir,
  median,
  onlyKnownArgs,
  pct,
  pinSelf,
  removeDir,
  type ServerChild,
  sleep,
  spawnNode,
  startOddsbase,
  todayUtc,
  waitForHttp,
} from './lib.ts';
import { type FrameTime, summarise } from './profile-top.ts';

/** Issue "the seams": the events snapshot keeps at least 90% of bare node:http sending the same bytes. */
export const TARGET_RATIO = 0.9;
/** Functions whose inclusive time the profile summary shows: the simulator, the ledger, access, routes. */
const PROFILED = [
  'step',
  'apply',
  'authenticate',
  'checkBurst',
  'checkCaps',
  'consume',
  'usageHeaders',
  'entitlementHeaders',
  'parseEventQuery',
  'envelope',
  'writev',
];
const CONNECTIONS = 50;
const SERVER_CPU = '0';
const CLIENT_CPU = '1';

/** Headers the bare server writes itself: node:http's own, and the body's. */
const NODE_HEADERS = new Set([
  'date',
  'connection',
  'keep-alive',
  'transfer-encoding',
  'content-length',
  'content-type',
]);

export interface EventsOptions {
  /** The snapshot path without its query; the V2 NBA events of today by default. */
  path?: string;
  /** Finds the path on the started server (a route about one event or team); `path` when absent. */
  pathOn?: (base: string, key: string) => Promise<string>;
  /** Events and prices of a captured body; the V2 envelope's by default. */
  count?: (body: unknown) => { events: number; prices: number };
  rounds?: number;
  durationS?: number;
  /** Query string to add (without '?'), e.g. 'affiliate_ids=19,23&main_line=true'; none by default. */
  query?: string;
  /** Directory for a CPU profile of the oddsbase server; the numbers are then not comparable. */
  cpuProfDir?: string;
  /** false: run the server without the node flags of `npm start`. */
  startFlags?: boolean;
  /** Node flags of your own for the oddsbase server, after `npm start`'s (to try one before adopting it). */
  nodeFlags?: string[];
  /** The ratio to reach (the events snapshot's 90% by default). */
  target?: number;
  /** Also measure the bare server holding as much heap as the oddsbase server. */
  heapMatched?: boolean;
  /** Hold the servers to this percentage of one CPU during the measured rounds (a cgroup). */
  serverCpuQuota?: number;
}

export interface RunStats {
  rps: number;
  /** Requests answered (medians: the total over the runs). */
  requests: number;
  p50: number;
  p99: number;
  bytesPerResponse: number;
  errors: number;
  /** Share of one CPU the server process used during the run (user + system), and per request. */
  serverCpu: number;
  cpuUsPerRequest: number;
  /** Share of one CPU this process (autocannon) used. */
  clientCpu: number;
}

export interface EventsResult {
  path: string;
  rounds: number;
  durationS: number;
  connections: number;
  pinned: boolean;
  /** The node flags of the oddsbase server (those of `npm start`). */
  nodeFlags: string[];
  bodyBytes: number;
  events: number;
  prices: number;
  contentType: string;
  /** How far the ledger head moved during the runs: the board was changing under the load. */
  headAdvance: number;
  /** Share of a CPU the oddsbase server uses with no requests (the simulator's ticks). */
  idleCpu: number;
  /** The servers' CPU quota in the measured rounds, as a percentage of one CPU (none when absent). */
  serverCpuQuota?: number;
  oddsbase: RunStats[];
  bare: RunStats[];
  /** The bare server holding `heapMb` of heap (--heap-matched). */
  heapBare?: RunStats[];
  heapMb?: number;
  med: { oddsbase: RunStats; bare: RunStats; heapBare?: RunStats };
  ratio: number;
  target: number;
  /**
   * bare CPU per request / oddsbase CPU per request: the req/s ratio to expect where the server's
   * CPU, not the client or the loopback, is the bottleneck. Far steadier than req/s on a noisy box.
   */
  cpuRatio: number;
  met: boolean;
  profile?: Profiled;
  /** The bare server's profile over its runs, beside oddsbase's: where the difference per request is. */
  bareProfile?: Profiled;
}

interface Profiled {
  file: string;
  totalMs: number;
  top: FrameTime[];
  inclusive: FrameTime[];
  /** Requests answered within the profiled runs, to read the samples per request. */
  requests: number;
}

/** The largest `.cpuprofile` in `dir` (one per thread; the main thread's is the largest), summarised over `windows`. */
function profiled(dir: string, windows: [number, number][], requests: number): Profiled | undefined {
  const file = readdirSync(dir)
    .filter((f) => f.endsWith('.cpuprofile'))
    .map((f) => ({ f, size: statSync(join(dir, f)).size }))
    .sort((a, b) => b.size - a.size)[0]?.f;
  if (!file) return undefined;
  const s = summarise(join(dir, file), { top: 25, windows, inclusive: PROFILED });
  return { file: join(dir, file), totalMs: s.totalMs, top: s.self, inclusive: s.inclusive, requests };
}

export function medianStats(xs: RunStats[]): RunStats {
  const med = (f: (x: RunStats) => number) => median(xs.map(f));
  return {
    rps: med((x) => x.rps),
    requests: xs.reduce((s, x) => s + x.requests, 0),
    p50: med((x) => x.p50),
    p99: med((x) => x.p99),
    bytesPerResponse: med((x) => x.bytesPerResponse),
    errors: xs.reduce((s, x) => s + x.errors, 0),
    serverCpu: med((x) => x.serverCpu),
    cpuUsPerRequest: med((x) => x.cpuUsPerRequest),
    clientCpu: med((x) => x.clientCpu),
  };
}

/**
 * The heap the oddsbase server uses now, from its /metrics (prom-client's default
 * nodejs_heap_size_used_bytes); the listener's address is in the line the server logs at its start.
 */
async function heapUsedBytes(output: string): Promise<number> {
  const url = /metrics: (http:\/\/[^\s)"]+)/.exec(output)?.[1];
  if (!url) throw new Error('the server did not say where its /metrics listens');
  const text = await (await fetch(url, { signal: AbortSignal.timeout(10_000) })).text();
  const used = /^nodejs_heap_size_used_bytes (\d+(?:\.\d+)?)$/m.exec(text)?.[1];
  if (!used) throw new Error('no nodejs_heap_size_used_bytes in /metrics');
  return Number(used);
}

/** One autocannon run against `url`, with the CPU time the server `pid` and this process used. */
export async function cannon(
  url: string,
  headers: Record<string, string>,
  durationS: number,
  pid: number,
  /** Paced requests per second over all connections; as fast as the servers go when absent. */
  rate?: number,
): Promise<RunStats> {
  const cpu0 = cpuSeconds(pid) ?? 0;
  const self0 = process.cpuUsage();
  const t0 = process.hrtime.bigint();
  const paced = rate === undefined ? {} : { overallRate: rate };
  const instance = autocannon({ url, connections: CONNECTIONS, duration: durationS, headers, timeout: 10, ...paced });
  // A hard stop in case the run does not end by itself.
  const guard = setTimeout(() => instance.stop(), (durationS + 30) * 1000);
  let r: Result;
  try {
    r = await instance;
  } finally {
    clearTimeout(guard);
  }
  const wall = Number(process.hrtime.bigint() - t0) / 1e9;
  const server = (cpuSeconds(pid) ?? 0) - cpu0;
  const self = process.cpuUsage(self0);
  return {
    rps: r.requests.average,
    requests: r.requests.total,
    p50: r.latency.p50,
    p99: r.latency.p99,
    bytesPerResponse: r.requests.total > 0 ? r.throughput.total / r.requests.total : 0,
    errors: r.errors + r.timeouts + r.non2xx,
    serverCpu: server / wall,
    cpuUsPerRequest: r.requests.total > 0 ? (server * 1e6) / r.requests.total : 0,
    clientCpu: (self.user + self.system) / 1e6 / wall,
  };
}

export const line = (s: RunStats) =>
  `${int(s.rps)} req/s, p50 ${s.p50} ms, p99 ${s.p99} ms, server CPU ${pct(s.serverCpu)} ` +
  `(${s.cpuUsPerRequest.toFixed(0)} µs/request), client CPU ${pct(s.clientCpu)}`;

/**
 * The head an answer was read at. Plain, as the runs ask: a kept answer's gzip bytes are reused
 * while nothing it shows changes (src/http/encoding.ts), so a compressed one names an earlier head.
 */
async function headOf(url: string, key: string): Promise<number> {
  const res = await fetch(url, {
    headers: { 'X-Service-Key': key, 'Accept-Encoding': 'identity' },
    signal: AbortSignal.timeout(10_000),
  });
  const body = (await res.json()) as { meta?: { delta_last_id?: string } };
  return Number(body.meta?.delta_last_id ?? 0);
}

/** Events and prices of a V2 events envelope. */
function countV2(body: unknown): { events: number; prices: number } {
  const parsed = body as { events: { markets: { participants: { lines: { prices: object }[] }[] }[] }[] };
  let prices = 0;
  for (const e of parsed.events)
    for (const m of e.markets)
      for (const p of m.participants) for (const l of p.lines) prices += Object.keys(l.prices).length;
  return { events: parsed.events.length, prices };
}

export async function runEvents(opts: EventsOptions = {}): Promise<EventsResult> {
  const rounds = opts.rounds ?? 5;
  const durationS = opts.durationS ?? 10;
  let path = `${opts.path ?? `/api/v2/sports/4/events/${todayUtc()}`}${opts.query ? `?${opts.query}` : ''}`;
  let server: ServerChild | undefined;
  let bare: Child | undefined;
  let heapBare: Child | undefined;
  const scratch = makeTmpDir('events');
  let restoreAffinity: string | undefined;
  let quota: CpuQuota | undefined;
  const cleanup = async () => {
    quota?.close();
    await bare?.stop();
    await heapBare?.stop();
    await server?.close();
    removeDir(scratch);
    if (restoreAffinity) pinSelf(restoreAffinity);
  };
  const undoSignals = cleanupOnSignal(cleanup);
  try {
    if (!canPin()) log('events: taskset is not available; nothing is pinned');
    log('events: starting oddsbase with the live simulator (it fills its history first)');
    const started = Date.now();
    server = await startOddsbase({
      port: await freePort(),
      cpu: SERVER_CPU,
      startFlags: opts.startFlags,
      // Ultra allows 10 requests a second per key; an enterprise key with a custom ceiling sees
      // the same data (every book, period and live market) without being throttled.
      tier: 'enterprise',
      burstPerSecond: 1_000_000_000,
      nodeArgs: [
        ...(opts.nodeFlags ?? []),
        ...(opts.cpuProfDir ? ['--cpu-prof', `--cpu-prof-dir=${opts.cpuProfDir}`] : []),
      ],
    });
    log(`events: oddsbase listens on ${server.url} after ${((Date.now() - started) / 1000).toFixed(1)} s`);
    restoreAffinity = canPin() ? currentAffinity() : undefined;
    if (restoreAffinity) pinSelf(CLIENT_CPU);
    if (opts.pathOn) path = await opts.pathOn(server.url, server.key);
    /** The oddsbase server's node flags: `npm start`'s, then --node-flags. */
    const nodeFlags = [...server.nodeFlags, ...(opts.nodeFlags ?? [])];

    const url = server.url + path;
    const headers = { 'X-Service-Key': server.key };
    // The plain answer, as autocannon (which sends no Accept-Encoding) receives it.
    const res = await fetch(url, {
      headers: { ...headers, 'Accept-Encoding': 'identity' },
      signal: AbortSignal.timeout(10_000),
    });
    const body = Buffer.from(await res.arrayBuffer());
    if (res.status !== 200) throw new Error(`GET ${path} answered ${res.status}: ${body.toString()}`);
    const contentType = res.headers.get('content-type') ?? 'application/json';
    const { events, prices } = (opts.count ?? countV2)(JSON.parse(body.toString()));
    log(`events: ${path} -> ${int(body.length)} bytes, ${events} events, ` + `${int(prices)} prices (${contentType})`);
    if (events === 0) throw new Error(`no events in ${path}: the simulator did not fill the board`);

    const bodyFile = join(scratch, 'body.json');
    writeFileSync(bodyFile, body);
    // The same bytes: the answer's headers too (the plan's, the usage counts), but for those node adds
    // itself to every answer and those of the body, which the bare server sets.
    const headersFile = join(scratch, 'headers.json');
    writeFileSync(
      headersFile,
      JSON.stringify(Object.fromEntries([...res.headers].filter(([n]) => !NODE_HEADERS.has(n)))),
    );
    const barePort = await freePort();
    const bareProfDir = opts.cpuProfDir && join(opts.cpuProfDir, 'bare');
    bare = spawnNode(
      [
        ...(bareProfDir ? ['--cpu-prof', `--cpu-prof-dir=${bareProfDir}`] : []),
        await bundle('bench/bare-server.ts'),
        bodyFile,
        String(barePort),
        contentType,
        headersFile,
      ],
      { cpu: SERVER_CPU },
    );
    const bareUrl = `http://127.0.0.1:${barePort}${path}`;
    await waitForHttp(bareUrl, bare, 60_000);
    const check = Buffer.from(
      await (await fetch(bareUrl, { headers: { 'Accept-Encoding': 'identity' } })).arrayBuffer(),
    );
    if (!check.equals(body)) throw new Error('the bare server does not return the captured bytes');

    log('events: warm-up (3 s each)');
    const warm = await cannon(url, headers, 3, server.child.pid);
    await cannon(bareUrl, headers, 3, bare.pid);
    if (warm.errors > 0) {
      const probe = await fetch(url, { headers, signal: AbortSignal.timeout(10_000) });
      throw new Error(
        `oddsbase answered ${warm.errors} requests of the warm-up with an error or non-2xx ` +
          `(now: ${probe.status} ${(await probe.text()).slice(0, 300)})`,
      );
    }

    let heapMb: number | undefined;
    let heapBareUrl: string | undefined;
    if (opts.heapMatched) {
      heapMb = Math.round((await heapUsedBytes(server.child.output())) / (1024 * 1024));
      const port = await freePort();
      // With the oddsbase server's node flags: its young generation's size sets how often a
      // collection walks the old generation's pages, which is what this server is here to price.
      heapBare = spawnNode(
        [
          '--expose-gc',
          ...nodeFlags,
          await bundle('bench/bare-server.ts'),
          bodyFile,
          String(port),
          contentType,
          headersFile,
          String(heapMb),
        ],
        { cpu: SERVER_CPU },
      );
      heapBareUrl = `http://127.0.0.1:${port}${path}`;
      await waitForHttp(heapBareUrl, heapBare, 180_000);
      log(`events: a bare server holding ${heapMb} MB of heap listens`);
      await cannon(heapBareUrl, headers, 3, heapBare.pid);
    }

    // What the server uses with no requests (the simulator's live ticks), for reading the CPU numbers.
    const idle0 = cpuSeconds(server.child.pid) ?? 0;
    await sleep(5000);
    const idleCpu = ((cpuSeconds(server.child.pid) ?? 0) - idle0) / 5;
    if (opts.serverCpuQuota !== undefined) {
      quota = cpuQuota(opts.serverCpuQuota);
      for (const pid of [server.child.pid, bare.pid, ...(heapBare ? [heapBare.pid] : [])]) quota.add(pid);
    }
    const headBefore = await headOf(url, server.key);
    const odds: RunStats[] = [];
    const base: RunStats[] = [];
    // The spans of the oddsbase runs on the monotonic clock, to cut the server's CPU profile to them.
    const windows: [number, number][] = [];
    const bareWindows: [number, number][] = [];
    const heapRuns: RunStats[] = [];
    const monoUs = () => Number(process.hrtime.bigint() / 1000n);
    for (let i = 0; i < rounds; i++) {
      const from = monoUs();
      const o = await cannon(url, headers, durationS, server.child.pid);
      windows.push([from, monoUs()]);
      odds.push(o);
      log(`  round ${i + 1}: oddsbase ${line(o)}`);
      const bareFrom = monoUs();
      const b = await cannon(bareUrl, headers, durationS, bare.pid);
      bareWindows.push([bareFrom, monoUs()]);
      base.push(b);
      log(`  round ${i + 1}: bare     ${line(b)}`);
      if (heapBare && heapBareUrl) {
        const h = await cannon(heapBareUrl, headers, durationS, heapBare.pid);
        heapRuns.push(h);
        log(`  round ${i + 1}: bare+heap ${line(h)}`);
      }
    }
    const headAfter = await headOf(url, server.key);
    const heapRunsMeasured = heapBare ? heapRuns : undefined;
    const med = {
      oddsbase: medianStats(odds),
      bare: medianStats(base),
      heapBare: heapRunsMeasured && medianStats(heapRunsMeasured),
    };
    const ratio = med.oddsbase.rps / med.bare.rps;

    const result: EventsResult = {
      path,
      rounds,
      durationS,
      connections: CONNECTIONS,
      pinned: restoreAffinity !== undefined,
      nodeFlags,
      bodyBytes: body.length,
      events,
      prices,
      contentType,
      headAdvance: headAfter - headBefore,
      idleCpu,
      serverCpuQuota: opts.serverCpuQuota,
      oddsbase: odds,
      bare: base,
      heapBare: heapRunsMeasured,
      heapMb,
      med,
      ratio,
      cpuRatio: med.bare.cpuUsPerRequest / med.oddsbase.cpuUsPerRequest,
      target: opts.target ?? TARGET_RATIO,
      met: ratio >= (opts.target ?? TARGET_RATIO),
    };
    if (opts.cpuProfDir) {
      // The profiles are written when the servers exit.
      await server.child.stop(30_000);
      await bare.stop();
      result.profile = profiled(opts.cpuProfDir, windows, med.oddsbase.requests);
      result.bareProfile = profiled(join(opts.cpuProfDir, 'bare'), bareWindows, med.bare.requests);
    }
    return result;
  } finally {
    undoSignals();
    await cleanup();
  }
}

const usList = (runs: RunStats[]) => runs.map((s) => s.cpuUsPerRequest.toFixed(1)).join(', ');

/** Both medians came with the client near a full CPU: their req/s measure autocannon, not the servers. */
const CLIENT_BOUND_CPU = 0.9;
const clientBound = (r: EventsResult) =>
  r.med.oddsbase.clientCpu >= CLIENT_BOUND_CPU && r.med.bare.clientCpu >= CLIENT_BOUND_CPU;

export function eventsMarkdown(r: EventsResult): string {
  const row = (name: string, s: RunStats) =>
    `| ${name} | ${int(s.rps)} | ${s.p50} | ${s.p99} | ${int(s.bytesPerResponse)} | ${pct(s.serverCpu)} | ` +
    `${s.cpuUsPerRequest.toFixed(0)} | ${pct(s.clientCpu)} |`;
  const lines = [
    `### Events snapshot (\`GET ${r.path}\`, ${r.connections} connections, ` +
      `${r.rounds} x ${r.durationS} s each, medians)`,
    '',
    '| server | req/s | p50 ms | p99 ms | bytes/response | server CPU | server CPU µs/req | client CPU |',
    '|---|---:|---:|---:|---:|---:|---:|---:|',
    row('oddsbase (live simulator)', r.med.oddsbase),
    row('bare node:http, same bytes', r.med.bare),
    ...(r.med.heapBare
      ? [row(`bare node:http, same bytes, holding ${r.heapMb} MB of heap, oddsbase's node flags`, r.med.heapBare)]
      : []),
    '',
    `- response captured once: ${int(r.bodyBytes)} bytes, ${r.events} events, ${int(r.prices)} prices`,
    `- the ledger head moved by ${int(r.headAdvance)} changes during the measured runs; with no requests ` +
      `the oddsbase process uses ${pct(r.idleCpu)} of a CPU (simulator ticks), included in its CPU numbers`,
    '- CPU: user + system time of the process over the run, as a share of one CPU; µs/req divides it by ' +
      'the requests served',
    `- runs (req/s): oddsbase ${r.oddsbase.map((s) => int(s.rps)).join(', ')}; ` +
      `bare ${r.bare.map((s) => int(s.rps)).join(', ')}`,
    `- errors, timeouts and non-2xx: oddsbase ${r.med.oddsbase.errors}, bare ${r.med.bare.errors} ` +
      '(enterprise key with a custom per-second ceiling, so nothing is throttled)',
    `- servers pinned to CPU ${SERVER_CPU}, client to CPU ${CLIENT_CPU}: ${r.pinned ? 'yes' : 'no'}; ` +
      `oddsbase node flags (\`npm start\`'s, then --node-flags): ${r.nodeFlags.join(' ') || 'none'}`,
    ...(r.serverCpuQuota !== undefined
      ? [
          `- every server held to ${r.serverCpuQuota}% of one CPU in the measured rounds (a cgroup quota), so that ` +
            "the client keeps ahead of it: req/s is each server's capacity at that share",
        ]
      : []),
    `- oddsbase / bare: ${pct(r.ratio)}, target >= ${pct(r.target)}: ${r.met ? 'met' : '**missed**'}` +
      (clientBound(r)
        ? ` (the client at ${pct(Math.min(r.med.oddsbase.clientCpu, r.med.bare.clientCpu))} of its CPU or more in ` +
          "both: these req/s are the client's, not the servers'; read the CPU ratio, or hold the servers with --server-cpu-quota)"
        : ''),
    `- server CPU per request, bare / oddsbase: ${pct(r.cpuRatio)} (the req/s ratio to expect when the ` +
      `server's CPU is the bottleneck; ` +
      `${r.cpuRatio >= r.target ? 'at or above' : '**below**'} the target)`,
    ...(r.med.heapBare && r.heapBare
      ? [
          `- runs (server CPU µs/req): oddsbase ${usList(r.oddsbase)}; bare ${usList(r.bare)}; bare holding ` +
            `${r.heapMb} MB ${usList(r.heapBare)}`,
          `- server CPU per request, bare / bare holding the heap: ` +
            `${pct(r.med.bare.cpuUsPerRequest / r.med.heapBare.cpuUsPerRequest)} (what holding that memory costs); ` +
            `bare holding the heap / oddsbase: ${pct(r.med.heapBare.cpuUsPerRequest / r.med.oddsbase.cpuUsPerRequest)} ` +
            '(what the server does per request besides)',
        ]
      : []),
    '',
  ];
  for (const [name, p] of [
    ['oddsbase', r.profile],
    ['bare', r.bareProfile],
  ] as const) {
    if (!p) continue;
    // Per request as well as in total: the two servers answer different numbers of requests.
    const perRequest = (ms: number) => `${((ms * 1000) / Math.max(1, p.requests)).toFixed(2).padStart(6)} µs/req`;
    const show = (f: FrameTime) =>
      `${f.ms.toFixed(0).padStart(7)} ms ${perRequest(f.ms)} ${pct(f.share).padStart(6)}  ${f.frame}`;
    lines.push(
      `CPU profile of the ${name} server during its runs (${p.file}), ${(p.totalMs / 1000).toFixed(1)} s sampled ` +
        `over ${int(p.requests)} requests, top self time:`,
      '',
      '```text',
      ...p.top.map(show),
      '```',
      '',
    );
    if (name === 'oddsbase')
      lines.push('Inclusive time of selected functions:', '', '```text', ...p.inclusive.map(show), '```', '');
  }
  return lines.join('\n');
}

export function parseEventsArgs(argv: string[]): EventsOptions {
  onlyKnownArgs(
    argv,
    ['--rounds', '--duration', '--query', '--cpu-prof', '--server-cpu-quota', '--node-flags'],
    ['--no-start-flags', '--heap-matched'],
  );
  const value = (name: string) => arg(name, argv);
  const opts: EventsOptions = {};
  const rounds = value('--rounds');
  if (rounds !== undefined) opts.rounds = Math.max(1, Math.min(20, Number(rounds)));
  const duration = value('--duration');
  if (duration !== undefined) opts.durationS = Math.max(1, Math.min(120, Number(duration)));
  const query = value('--query');
  if (query !== undefined) opts.query = query;
  if (argv.includes('--no-start-flags')) opts.startFlags = false;
  const prof = value('--cpu-prof');
  if (prof !== undefined) opts.cpuProfDir = resolve(prof);
  if (argv.includes('--heap-matched')) opts.heapMatched = true;
  const quota = value('--server-cpu-quota');
  if (quota !== undefined) opts.serverCpuQuota = Number(quota);
  const nodeFlags = value('--node-flags');
  if (nodeFlags !== undefined) opts.nodeFlags = nodeFlags.split(/\s+/).filter(Boolean);
  return opts;
}

if (isMain(import.meta.url)) {
  const r = await runEvents(parseEventsArgs(process.argv.slice(2)));
  process.stdout.write(`${eventsMarkdown(r)}\n`);
}
