/**
 * The WebSocket markets stream against a bare `ws` server sending the same precomputed messages to
 * the same recipients, in the same run: deliveries per server CPU-second (issue target: at least
 * 80% of bare), and commit-to-client latency on oddsbase.
 *
 *   node --import tsx bench/streams.ts [--clients 1000] [--rate 100] [--seconds 8] [--rounds 3]
 *   node --import tsx bench/streams.ts --stalled 0.05 [...]   oddsbase with and without stalled clients
 *   node --import tsx bench/streams.ts --idle 10000 [--seconds 30]   idle connections: memory and CPU
 *
 * Workload: 48 events in four sports; `rate` price changes a second from one seeded sequence, pushed
 * every 50 ms (one ledger batch per tick, as the simulator commits its steps). Clients hold mixed filters on /api/v2/ws/markets: a third by sport, a
 * third by two events, a third by market_ids=2 (which brings 42). oddsbase runs in a child process
 * (compose, no simulator, the access layer on: ten Enterprise keys, as a key's connection cap is
 * 100) and commits every change through the ledger and SQLite; the bare server (a child too) has
 * each message's text and recipient list made before it starts and only loops ws.send. The server
 * child is pinned to CPU 0 and this process (the clients) to CPU 1 when taskset exists; CPU is read
 * from /proc over the measured window after a warm-up.
 */
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { WebSocket, WebSocketServer } from 'ws';
import { generateKey, newKeyRecord } from '../src/access/keys.ts';
import { compose } from '../src/compose.ts';
import { resolveServeConfig } from '../src/config.ts';
import type { PriceUpdate } from '../src/ledger/updates.ts';
import { nbaEvent, price, today } from '../test/helpers/fixtures.ts';
import {
  arg,
  canPin,
  cpuSeconds,
  freePort,
  int,
  isMain,
  log,
  machineInfo,
  makeTmpDir,
  median,
  pct,
  pinSelf,
  removeDir,
  sleep,
  spawnNode,
} from './lib.ts';

const SPORTS = [4, 3, 6, 2];
const EVENTS = Array.from({ length: 48 }, (_, i) => ({
  id: `b${String(i).padStart(2, '0')}`.repeat(11).slice(0, 32),
  sport: SPORTS[i % 4]!,
}));
const MARKETS = [1, 2, 3, 41, 42, 43];
const BOOKS = [19, 23, 24, 25];
/** Connections per Enterprise key (its cap): the child makes as many keys as the clients need. */
const PER_KEY = 100;

/** A deterministic generator (mulberry32). */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The nth price change of the workload: the same sequence for both servers. */
function workload(n: number): PriceUpdate[] {
  const r = rng(42);
  const out: PriceUpdate[] = [];
  for (let i = 0; i < n; i++) {
    const ev = EVENTS[Math.floor(r() * EVENTS.length)]!;
    const market = MARKETS[Math.floor(r() * MARKETS.length)]!;
    const book = BOOKS[Math.floor(r() * BOOKS.length)]!;
    const side = r() < 0.5 ? 0 : 1;
    const base = market % 10 === 1 ? 120 : -110;
    // Never the same price twice in a row on a line: every change is a price move.
    const p = base + (i % 2 === 0 ? 1 : -1) * (1 + Math.floor(r() * 40));
    const total = market % 10 === 3;
    out.push(
      price(ev.id, {
        market_id: market,
        participant_id: total ? side : side === 0 ? 2002 : 2014,
        affiliate_id: book,
        line: total ? '221.5' : market % 10 === 2 ? (side === 0 ? '3.5' : '-3.5') : '',
        price: p === 0 ? 1 : p,
      }),
    );
  }
  return out;
}

interface Filter {
  query: string;
  matches(u: PriceUpdate, sport: number): boolean;
}

function filterOf(i: number): Filter {
  if (i % 3 === 0) {
    const sport = SPORTS[i % 4]!;
    return { query: `sport_ids=${sport}`, matches: (_u, s) => s === sport };
  }
  if (i % 3 === 1) {
    const a = EVENTS[i % 48]!.id;
    const b = EVENTS[(i * 7 + 3) % 48]!.id;
    return { query: `event_ids=${a},${b}`, matches: (u) => u.event_id === a || u.event_id === b };
  }
  return { query: 'market_ids=2', matches: (u) => u.market_id === 2 || u.market_id === 42 };
}

const sportOf = new Map(EVENTS.map((e) => [e.id, e.sport]));

// --- the oddsbase child ------------------------------------------------------------------------

async function oursChild(port: number, rate: number, total: number, clients: number): Promise<void> {
  const dataDir = makeTmpDir('streams');
  const config = resolveServeConfig(
    { port, host: '127.0.0.1', dataDir, simulator: false, logLevel: 'silent', metricsPort: 0 },
    {},
  );
  const services = await compose(config);
  const keys: string[] = [];
  for (let i = 0; i < Math.ceil(clients / PER_KEY); i++) {
    const k = generateKey();
    await services.keys.insert(
      newKeyRecord(k, 'enterprise', { label: 'bench', custom: JSON.stringify({ burstPerSecond: 1_000_000 }) }),
    );
    keys.push(k);
  }
  const at = new Date().toISOString();
  await services.ledger.apply({
    at,
    updates: EVENTS.flatMap((e) => [
      { kind: 'event' as const, event: { ...nbaEvent(e.id, today()), sport_id: e.sport } },
    ]),
  });
  const updates = workload(total);
  // Every line once before the clock starts, so the measured changes are all price moves.
  await services.ledger.apply({ at, updates: updates.slice(0, 2000) });
  await services.app.listen({ port, host: '127.0.0.1' });
  process.stdout.write(`READY ${JSON.stringify({ keys })}\n`);
  // The streams' drop counter, as /metrics shows it, for the parent to read at the end of a round.
  const drops = services.metrics.registry.getSingleMetric('oddsbase_ws_dropped_messages_total');
  const report = setInterval(async () => {
    const value = (await drops?.get())?.values[0]?.value ?? 0;
    process.stdout.write(`DROPPED ${value}\n`);
  }, 500);
  report.unref();
  await pushAtRate(rate, updates, async (due) => {
    await services.ledger.apply({ at: new Date().toISOString(), updates: due });
  });
  await services.close();
  removeDir(dataDir);
}

/** Hands `each` the updates due, `rate` a second, every 50 ms (one ledger batch a tick, as the simulator's steps), until they run out. */
async function pushAtRate(
  rate: number,
  updates: PriceUpdate[],
  each: (due: PriceUpdate[]) => Promise<void> | void,
): Promise<void> {
  const start = Date.now();
  let sent = 2000;
  while (sent < updates.length) {
    const due = Math.min(updates.length, 2000 + Math.floor(((Date.now() - start) / 1000) * rate));
    if (due > sent) await each(updates.slice(sent, due));
    sent = Math.max(sent, due);
    await sleep(50);
  }
}

// --- the bare child ----------------------------------------------------------------------------

async function bareChild(port: number, rate: number, total: number, clients: number): Promise<void> {
  const wss = new WebSocketServer({ port, host: '127.0.0.1' });
  const sockets: WebSocket[] = new Array(clients);
  let connected = 0;
  const allConnected = new Promise<void>((resolve) => {
    wss.on('connection', (ws, req) => {
      const i = Number(new URL(req.url ?? '/', 'http://x').searchParams.get('c'));
      sockets[i] = ws;
      if (++connected === clients) resolve();
    });
  });
  // READY only once it listens: the parent connects its clients as soon as it reads it.
  await once(wss, 'listening');
  process.stdout.write(`READY ${JSON.stringify({ keys: [] })}\n`);
  await allConnected;
  const updates = workload(total);
  const filters = Array.from({ length: clients }, (_, i) => filterOf(i));
  const ts = Math.floor(Date.now() / 1000);
  // Made before the clock starts: each message's text and who receives it.
  const messages = updates.map((u, n) => {
    const sport = sportOf.get(u.event_id)!;
    const text = JSON.stringify({
      meta: { type: 'market_price', version: 'v2', timestamp: ts },
      data: {
        id: n + 1,
        event_id: u.event_id,
        affiliate_id: u.affiliate_id,
        market_id: u.market_id,
        market_participant_id: u.participant_id,
        normalized_market_participant_id: u.participant_id,
        normalized_market_participant_type: u.participant_type === 'TYPE_RESULT' ? 3 : 1,
        line: u.line,
        price: String(u.price),
        previous_price: String(u.price + 1),
        price_delta: -1,
        is_main_line: false,
        sport_id: sport,
        updated_at: new Date().toISOString(),
        closed_at: '',
        snapshot: false,
      },
    });
    const to: WebSocket[] = [];
    for (let i = 0; i < clients; i++) if (filters[i]!.matches(u, sport)) to.push(sockets[i]!);
    return { text, to };
  });
  let n = 2000;
  await pushAtRate(rate, updates, (due) => {
    for (let k = 0; k < due.length; k++) {
      const m = messages[n++]!;
      for (const ws of m.to) ws.send(m.text);
    }
  });
  wss.close();
}

// --- the clients and the rounds ----------------------------------------------------------------

interface Round {
  deliveries: number;
  cpu: number;
  perCpuSecond: number;
  perSecond: number;
  p50?: number;
  p99?: number;
  /** Connection attempts reset before the handshake (and retried). */
  resets: number;
  /** oddsbase: messages its streams dropped for slow clients by the end of the round. */
  dropped?: number;
}

/**
 * One round against a fresh server child. `stalled`: the share of clients that stop reading;
 * `uncounted`: the share whose deliveries are not counted (the same clients), so that a run
 * without stalled clients measures the same reading clients as a run with them.
 */
async function round(which: 'ours' | 'bare', o: Options, stalled = 0, uncounted = stalled): Promise<Round> {
  const port = await freePort();
  const total = 2000 + o.rate * (o.seconds + 30);
  const child = spawnNode(
    [
      '--import',
      'tsx',
      'bench/streams.ts',
      '--role',
      which,
      '--port',
      String(port),
      '--rate',
      String(o.rate),
      '--total',
      String(total),
      '--clients',
      String(o.clients),
    ],
    { cpu: '0' },
  );
  try {
    const ready = await readyOf(child);
    if (!ready) throw new Error(`the ${which} server did not start:\n${child.output()}`);
    let deliveries = 0;
    const latencies: number[] = [];
    const sockets: WebSocket[] = [];
    let resets = 0;
    for (let i = 0; i < o.clients; i++) {
      const f = filterOf(i);
      const url =
        which === 'ours'
          ? `ws://127.0.0.1:${port}/api/v2/ws/markets?${f.query}`
          : `ws://127.0.0.1:${port}/?c=${i}&${f.query}`;
      const ws = new WebSocket(
        url,
        which === 'ours' ? { headers: { 'X-Service-Key': ready.keys[Math.floor(i / PER_KEY)]! } } : {},
      );
      const opened = new Promise<boolean>((resolve, reject) => {
        ws.once('open', () => resolve(true));
        ws.once('error', (err: NodeJS.ErrnoException) => {
          // A connection reset while a loaded machine accepts: try that client again, a few times.
          if (err.code === 'ECONNRESET' && resets < 20) resolve(false);
          else reject(new Error(`client ${i}: ${String(err)}; the server said:\n${child.output()}`));
        });
      });
      // Every 1/stalled-th client stops reading once open: its socket fills, the server must not wait for it.
      const stalls = stalled > 0 && i % Math.round(1 / stalled) === 0;
      const counted = !(uncounted > 0 && i % Math.round(1 / uncounted) === 0);
      ws.on('message', (data) => {
        if (!counted) return;
        deliveries++;
        // One message in 16 is timed: the text is scanned, not parsed, to keep this process light.
        if (which === 'ours' && (deliveries & 15) === 0) {
          const s = String(data);
          const at = s.indexOf('"updated_at":"');
          if (at > 0) latencies.push(Date.now() - Date.parse(s.slice(at + 14, s.indexOf('"', at + 14))));
        }
      });
      if (!(await opened)) {
        resets++;
        i--;
        continue;
      }
      if (stalls) ws.pause();
      sockets.push(ws);
    }
    await sleep(2000);
    const d0 = deliveries;
    const c0 = cpuSeconds(child.pid) ?? 0;
    latencies.length = 0;
    const t0 = Date.now();
    await sleep(o.seconds * 1000);
    const d1 = deliveries;
    const c1 = cpuSeconds(child.pid) ?? 0;
    const elapsed = (Date.now() - t0) / 1000;
    const counted = [...child.output().matchAll(/DROPPED (\d+)/g)].at(-1);
    for (const ws of sockets) ws.terminate();
    const sorted = latencies.sort((a, b) => a - b);
    const cpu = c1 - c0;
    return {
      deliveries: d1 - d0,
      cpu,
      perCpuSecond: (d1 - d0) / Math.max(cpu, 0.01),
      perSecond: (d1 - d0) / elapsed,
      resets,
      ...(counted ? { dropped: Number(counted[1]) } : {}),
      ...(which === 'ours' && sorted.length > 0
        ? { p50: sorted[Math.floor(sorted.length / 2)], p99: sorted[Math.floor(sorted.length * 0.99)] }
        : {}),
    };
  } finally {
    await child.stop();
  }
}

/** The keys a server child prints once it listens, or undefined after a minute without it. */
async function readyOf(child: { output(): string }): Promise<{ keys: string[] } | undefined> {
  for (let t = 0; t < 600; t++) {
    const line = /READY (.*)/.exec(child.output());
    if (line) return JSON.parse(line[1]!) as { keys: string[] };
    await sleep(100);
  }
  return undefined;
}

/** Resident memory of a process, from /proc, in bytes. */
function rssOf(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) * 1024 : Number.NaN;
}

/**
 * Idle connections on heartbeats: oddsbase's resident memory per connection and its CPU share over
 * `seconds` (covering heartbeats at the default 15 s), nothing else streaming.
 */
export async function runIdle(clients: number, seconds: number): Promise<string> {
  const port = await freePort();
  const child = spawnNode(
    [
      '--import',
      'tsx',
      'bench/streams.ts',
      '--role',
      'ours',
      '--port',
      String(port),
      '--rate',
      '0',
      '--total',
      '2001',
      '--clients',
      String(clients),
    ],
    { cpu: '0' },
  );
  const sockets: WebSocket[] = [];
  try {
    const ready = await readyOf(child);
    if (!ready) throw new Error(`the server did not start:\n${child.output()}`);
    await sleep(2000);
    const rss0 = rssOf(child.pid);
    let beats = 0;
    for (let i = 0; i < clients; i++) {
      const ws = new WebSocket(`ws://127.0.0.1:${port}/api/v2/ws/markets?event_ids=none`, {
        headers: { 'X-Service-Key': ready.keys[Math.floor(i / PER_KEY)]! },
      });
      ws.on('message', () => beats++);
      await new Promise<void>((resolve, reject) => {
        ws.once('open', () => resolve());
        ws.once('error', reject);
      });
      sockets.push(ws);
    }
    await sleep(3000);
    const c0 = cpuSeconds(child.pid) ?? 0;
    const t0 = Date.now();
    await sleep(seconds * 1000);
    const cpu = (cpuSeconds(child.pid) ?? 0) - c0;
    const rss1 = rssOf(child.pid);
    const wall = (Date.now() - t0) / 1000;
    const m = machineInfo();
    return [
      `### ${int(clients)} idle WebSocket connections (${new Date().toISOString().slice(0, 10)})`,
      '',
      `${m.model}, ${m.nproc} CPUs, Node ${m.node}; dedicated markets streams filtered to nothing, heartbeats every 15 s, ${seconds} s measured.`,
      '',
      `- resident memory: ${(rss0 / 1024 ** 2).toFixed(0)} MB before, ${(rss1 / 1024 ** 2).toFixed(0)} MB with the connections: ` +
        `${((rss1 - rss0) / clients / 1024).toFixed(1)} KB per connection`,
      `- CPU: ${cpu.toFixed(2)} s in ${wall.toFixed(0)} s, ${pct(cpu / wall)} of a core; ${int(beats)} heartbeats delivered`,
    ].join('\n');
  } finally {
    for (const ws of sockets) ws.terminate();
    await child.stop();
  }
}

/**
 * oddsbase alone, with and without a share of clients that stop reading: the others' delivered rate
 * and latency should hold (issue: at least 95% of the rate, p99 within 1.2x).
 */
export async function runStalled(o: Options, stalled: number): Promise<string> {
  const restore = canPin() ? pinSelf('1') : undefined;
  const base: Round[] = [];
  const withStalled: Round[] = [];
  try {
    for (let r = 0; r < o.rounds; r++) {
      base.push(await round('ours', o, 0, stalled));
      log(`streams stalled round ${r + 1} none: ${JSON.stringify(base.at(-1))}`);
      withStalled.push(await round('ours', o, stalled));
      log(`streams stalled round ${r + 1} ${pct(stalled)}: ${JSON.stringify(withStalled.at(-1))}`);
    }
  } finally {
    if (restore) pinSelf(restore);
  }
  const row = (name: string, rs: Round[]) =>
    `| ${name} | ${int(median(rs.map((x) => x.perSecond)))} | ${median(rs.map((x) => x.p50 ?? Number.NaN))} ms / ${median(rs.map((x) => x.p99 ?? Number.NaN))} ms |`;
  return [
    `### Stalled clients (${new Date().toISOString().slice(0, 10)}): ${o.clients} clients, ${o.rate} changes a second, ${o.rounds} rounds of ${o.seconds} s`,
    '',
    '| run | deliveries/s to reading clients (median) | p50 / p99 |',
    '|---|---|---|',
    row('no client stalled', base),
    row(`${pct(stalled)} of clients stalled`, withStalled),
  ].join('\n');
}

interface Options {
  clients: number;
  rate: number;
  seconds: number;
  rounds: number;
}

function parseArgs(
  argv: string[],
): Options & { role?: string; port: number; total: number; idle: number; stalled: number } {
  const get = (name: string, fallback: number) => Number(arg(`--${name}`, argv) ?? fallback);
  return {
    role: arg('--role', argv),
    clients: get('clients', 1000),
    rate: get('rate', 100),
    seconds: get('seconds', 8),
    rounds: get('rounds', 3),
    port: get('port', 0),
    total: get('total', 0),
    idle: get('idle', 0),
    stalled: get('stalled', 0),
  };
}

export async function runStreams(o: Options): Promise<string> {
  const restore = canPin() ? pinSelf('1') : undefined;
  const ours: Round[] = [];
  const bare: Round[] = [];
  try {
    for (let r = 0; r < o.rounds; r++) {
      ours.push(await round('ours', o));
      log(`streams round ${r + 1} oddsbase: ${JSON.stringify(ours.at(-1))}`);
      bare.push(await round('bare', o));
      log(`streams round ${r + 1} bare: ${JSON.stringify(bare.at(-1))}`);
    }
  } finally {
    if (restore) pinSelf(restore);
  }
  const m = machineInfo();
  const ratio = median(ours.map((x) => x.perCpuSecond)) / median(bare.map((x) => x.perCpuSecond));
  return [
    `### WebSocket markets stream vs bare ws (${new Date().toISOString().slice(0, 10)})`,
    '',
    `${m.model}, ${m.nproc} CPUs, ${m.memory}, Node ${m.node}; ${o.clients} clients with mixed filters, ` +
      `${o.rate} price changes a second, ${o.rounds} rounds of ${o.seconds} s; server pinned to CPU 0, clients to CPU 1: ${restore !== undefined ? 'yes' : 'no'}.`,
    '',
    '| server | deliveries/s (median) | deliveries per CPU-second (median) | CPU-seconds per round | p50 / p99 commit-to-client |',
    '|---|---|---|---|---|',
    `| oddsbase | ${int(median(ours.map((x) => x.perSecond)))} | ${int(median(ours.map((x) => x.perCpuSecond)))} | ${ours.map((x) => x.cpu.toFixed(2)).join(', ')} | ${median(ours.map((x) => x.p50 ?? Number.NaN))} ms / ${median(ours.map((x) => x.p99 ?? Number.NaN))} ms |`,
    `| bare ws | ${int(median(bare.map((x) => x.perSecond)))} | ${int(median(bare.map((x) => x.perCpuSecond)))} | ${bare.map((x) => x.cpu.toFixed(2)).join(', ')} | |`,
    '',
    `oddsbase / bare, deliveries per CPU-second: ${pct(ratio)}.`,
    `oddsbase messages dropped for slow clients, per round: ${ours.map((x) => x.dropped ?? 'not reported').join(', ')}.`,
  ].join('\n');
}

if (isMain(import.meta.url)) {
  const o = parseArgs(process.argv.slice(2));
  if (o.role === 'ours') await oursChild(o.port, o.rate, o.total, o.clients);
  else if (o.role === 'bare') await bareChild(o.port, o.rate, o.total, o.clients);
  else if (o.idle > 0) process.stdout.write(`${await runIdle(o.idle, o.seconds)}\n`);
  else if (o.stalled > 0) process.stdout.write(`${await runStalled(o, o.stalled)}\n`);
  else process.stdout.write(`${await runStreams(o)}\n`);
}
