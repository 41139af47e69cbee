/**
 * A mixed clientele for many minutes: what the server's memory and latency do when keys of every
 * tier use it at once, as they do in production, rather than one benchmark's single kind of request.
 *
 *   node --import tsx bench/soak.ts [--minutes 10] [--data-dir DIR] [--age 300] [--sample 30]
 *     [--storm 60] [--env NAME=VALUE ...] [--node-flags='...']
 *
 * The server runs as `npm start` runs it (its node flags and logging, the live simulator), pinned to
 * CPU 0, on a data directory that has run a while: a copy of `--data-dir` (the original is left as it
 * was), or else a fresh one filled by running the server for `--age` seconds and stopping it. The
 * clients run in this process, on CPU 1:
 * - events pollers: four keys of each of Free, Starter, Pro, Ultra and Max, each asking for the events
 *   of one of the simulator's sports on yesterday, today or tomorrow, with one of a few filters, at
 *   a pace under its tier's ceiling;
 * - five markets-delta pollers (Ultra keys of their own) that follow their cursors from an events
 *   snapshot's `meta.delta_last_id`;
 * - three pollers of box scores, plays, history and best lines of events the snapshots returned;
 * - ten multiplexed stream clients (markets with a snapshot, live and futures channels) and ten on
 *   `/api/v2/ws/markets`, each on a Max key of its own;
 * - resume storms: six multiplexed clients following a sport's markets that all drop their
 *   connections together every `--storm` seconds and resume from the last position they hold, one
 *   of them from 20,000 changes further back (a replay), and two that subscribe to every market and
 *   never read (the server cuts them off; they come back a minute later).
 * Every `--sample` seconds: the server's RSS, malloc's main arena (`[heap]` in /proc/PID/smaps), its
 * other anonymous and its file-backed memory, the live heap and external memory from /metrics, the
 * requests over 100 ms since the sample before and the longest event-loop delay of the server and
 * of this process over the same time (whose loop a slow request waited on).
 * At the end: latency per class of request (p50, p99, max), statuses, requests over 100 ms, stream
 * messages. `--env` passes variables to the server only (an allocator's settings, for example).
 */
import { cpSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { WebSocket } from 'ws';
import { generateKey, newKeyRecord } from '../src/access/keys.ts';
import type { Tier } from '../src/catalog/tiers.ts';
import { openSqlite, STORE_FILE } from '../src/store/sqlite/database.ts';
import { SqliteKeyStore } from '../src/store/sqlite/sqlite-secrets.ts';
import {
  type Child,
  canPin,
  cleanupOnSignal,
  currentAffinity,
  freePort,
  int,
  isMain,
  log,
  machineInfo,
  makeTmpDir,
  mb,
  pinSelf,
  removeDir,
  sleep,
  spawnNode,
  startScriptNodeFlags,
  waitForHttp,
} from './lib.ts';

const SERVER_CPU = '0';
const CLIENT_CPU = '1';
const POLL_TIERS = ['free', 'starter', 'pro', 'ultra', 'max'] as const satisfies readonly Tier[];
const KEYS_PER_TIER = 4;
/** Milliseconds between two requests of one events poller: under each tier's ceiling, as a client paces itself. */
const PACE_MS: Record<(typeof POLL_TIERS)[number], number> = {
  free: 1500,
  starter: 800,
  pro: 400,
  ultra: 250,
  max: 250,
};
const FILTERS = ['', 'main_line=true', 'affiliate_ids=19,22,23', 'market_ids=1,2,3', 'include=price_delta'];
const DELTA_POLLERS = 5;
const DELTA_PACE_MS = 1000;
const STATS_POLLERS = 3;
const STATS_PACE_MS = 500;
const MULTIPLEX_CLIENTS = 10;
const MARKETS_CLIENTS = 10;
const RESUME_CLIENTS = 6;
const UNREAD_CLIENTS = 2;
/** How far back the storm's far resume starts: a replay of that many changes. */
const FAR_RESUME = 20_000;
const SLOW_MS = 100;

export interface SoakOptions {
  minutes?: number;
  dataDir?: string;
  ageS?: number;
  sampleS?: number;
  env?: Record<string, string>;
  nodeFlags?: string[];
  /** Seconds between two resume storms. */
  stormS?: number;
}

interface Sample {
  minute: number;
  rss: number;
  mallocHeap: number;
  otherAnon: number;
  file: number;
  heapUsed?: number;
  heapTotal?: number;
  external?: number;
  /** The server's longest event-loop delay since the sample before (prom-client resets it per scrape). */
  serverLoopMaxMs?: number;
  /** The same in the clients' process: a slow request beside a long client delay is the client's. */
  clientLoopMaxMs: number;
  /** Requests over SLOW_MS that ended since the sample before. */
  slow: number;
}

interface ClassStats {
  count: number;
  statuses: Record<string, number>;
  p50: number;
  p99: number;
  max: number;
  slow: number;
}

/** Garbage collections of one kind over the soak, from /metrics (prom-client's buckets). */
interface GcKind {
  count: number;
  seconds: number;
  over10ms: number;
  over100ms: number;
}

export interface SoakResult {
  minutes: number;
  dataDir: string;
  nodeFlags: string[];
  env: Record<string, string>;
  samples: Sample[];
  classes: Record<string, ClassStats>;
  streamMessages: { multiplex: number; markets: number; closed: number };
  storms: StormStats;
  gc: Record<string, GcKind>;
  errors: string[];
}

/** What the resume storms got back. */
interface StormStats {
  storms: number;
  resumes: number;
  completed: number;
  replayed: number;
  snapshotRequired: number;
  busy: number;
  /** Deltas whose sub_sequence or position did not follow the one before on their subscription. */
  outOfOrder: number;
  unreadCutOff: number;
}

/** RSS of `pid` by kind of mapping, from /proc/PID/smaps: malloc's main arena, other anonymous, file-backed. */
function memoryOf(pid: number): Pick<Sample, 'rss' | 'mallocHeap' | 'otherAnon' | 'file'> | undefined {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/smaps`, 'utf8');
  } catch {
    return undefined;
  }
  const out = { rss: 0, mallocHeap: 0, otherAnon: 0, file: 0 };
  let kind: 'mallocHeap' | 'otherAnon' | 'file' = 'otherAnon';
  for (const line of text.split('\n')) {
    const header = /^[0-9a-f]+-[0-9a-f]+ \S+ \S+ \S+ (\d+)\s*(.*)$/.exec(line);
    if (header) {
      const name = header[2]!; // the group always takes part, if only as ''
      kind = name === '[heap]' ? 'mallocHeap' : name === '' || name.startsWith('[') ? 'otherAnon' : 'file';
      continue;
    }
    const rss = /^Rss:\s+(\d+) kB/.exec(line);
    if (rss) {
      const bytes = Number(rss[1]) * 1024;
      out[kind] += bytes;
      out.rss += bytes;
    }
  }
  return out;
}

async function heapFromMetrics(
  metricsUrl: string,
): Promise<Pick<Sample, 'heapUsed' | 'heapTotal' | 'external' | 'serverLoopMaxMs'>> {
  try {
    const text = await (await fetch(metricsUrl, { signal: AbortSignal.timeout(5000) })).text();
    const value = (name: string) => {
      const m = new RegExp(`^${name} (\\S+)`, 'm').exec(text);
      return m ? Number(m[1]) : undefined;
    };
    const loopMax = value('nodejs_eventloop_lag_max_seconds');
    return {
      heapUsed: value('nodejs_heap_size_used_bytes'),
      heapTotal: value('nodejs_heap_size_total_bytes'),
      external: value('nodejs_external_memory_bytes'),
      serverLoopMaxMs: loopMax === undefined ? undefined : loopMax * 1000,
    };
  } catch {
    return {};
  }
}

/** The server's garbage collections by kind so far: count, seconds, and how many took over 10 and 100 ms. */
async function gcFromMetrics(metricsUrl: string): Promise<Record<string, GcKind>> {
  const out: Record<string, GcKind> = {};
  try {
    const text = await (await fetch(metricsUrl, { signal: AbortSignal.timeout(5000) })).text();
    const kind = (k: string) => (out[k] ??= { count: 0, seconds: 0, over10ms: 0, over100ms: 0 });
    const buckets = new Map<string, Map<string, number>>();
    for (const m of text.matchAll(/^nodejs_gc_duration_seconds_(bucket|count|sum)\{([^}]*)\} (\S+)$/gm)) {
      // Every group of the pattern is required, so a match has all three.
      const k = /kind="([^"]+)"/.exec(m[2]!)?.[1];
      if (!k) continue;
      const value = Number(m[3]);
      if (m[1] === 'count') kind(k).count = value;
      else if (m[1] === 'sum') kind(k).seconds = value;
      else {
        const le = /le="([^"]+)"/.exec(m[2]!)?.[1];
        if (le) (buckets.get(k) ?? buckets.set(k, new Map()).get(k)!).set(le, value);
      }
    }
    for (const [k, b] of buckets) {
      kind(k).over10ms = kind(k).count - (b.get('0.01') ?? kind(k).count);
      kind(k).over100ms = kind(k).count - (b.get('0.1') ?? kind(k).count);
    }
  } catch {
    // No figures rather than a failed soak: the table says so.
  }
  return out;
}

async function addKeys(dataDir: string): Promise<Record<string, string[]>> {
  const db = openSqlite(dataDir);
  try {
    const store = new SqliteKeyStore(db);
    const keys: Record<string, string[]> = {};
    const add = async (group: string, tier: Tier, n: number) => {
      keys[group] = [];
      for (let i = 0; i < n; i++) {
        const key = generateKey();
        await store.insert(newKeyRecord(key, tier, { label: 'bench-soak' }));
        keys[group].push(key);
      }
    };
    for (const tier of POLL_TIERS) await add(tier, tier, KEYS_PER_TIER);
    await add('delta', 'ultra', DELTA_POLLERS);
    await add('stats', 'max', STATS_POLLERS);
    await add('streams', 'max', MULTIPLEX_CLIENTS + MARKETS_CLIENTS);
    await add('storm', 'max', RESUME_CLIENTS + UNREAD_CLIENTS);
    return keys;
  } finally {
    db.close();
  }
}

async function startServer(dataDir: string, nodeFlags: string[], env: Record<string, string>) {
  const [port, metricsPort] = [await freePort(), await freePort()];
  const child = spawnNode(
    [
      ...nodeFlags,
      'bin/oddsbase.js',
      'serve',
      '--port',
      String(port),
      '--host',
      '127.0.0.1',
      '--data-dir',
      dataDir,
      '--metrics-port',
      String(metricsPort),
    ],
    { cpu: SERVER_CPU, env },
  );
  const url = `http://127.0.0.1:${port}`;
  try {
    await waitForHttp(`${url}/api/v2/sports`, child, 300_000);
  } catch (err) {
    await child.stop();
    throw err;
  }
  return { child, url, metricsUrl: `http://127.0.0.1:${metricsPort}/metrics` };
}

class Recorder {
  private readonly times = new Map<string, number[]>();
  private readonly statuses = new Map<string, Record<string, number>>();
  readonly errors: string[] = [];
  /** Requests over SLOW_MS since `takeSlow` was called last. */
  private slowSince = 0;

  takeSlow(): number {
    const n = this.slowSince;
    this.slowSince = 0;
    return n;
  }

  record(cls: string, ms: number, status: string): void {
    if (ms > SLOW_MS) this.slowSince++;
    let t = this.times.get(cls);
    if (!t) this.times.set(cls, (t = []));
    t.push(ms);
    let s = this.statuses.get(cls);
    if (!s) this.statuses.set(cls, (s = {}));
    s[status] = (s[status] ?? 0) + 1;
  }

  summary(): Record<string, ClassStats> {
    const out: Record<string, ClassStats> = {};
    for (const [cls, t] of this.times) {
      const sorted = [...t].sort((a, b) => a - b);
      const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
      out[cls] = {
        count: t.length,
        statuses: this.statuses.get(cls) ?? {},
        p50: at(0.5),
        p99: at(0.99),
        max: sorted.at(-1) ?? 0,
        slow: t.filter((ms) => ms > SLOW_MS).length,
      };
    }
    return out;
  }
}

/** One GET, timed to its last byte; the body parsed when it is JSON and the status is 200. */
async function get(rec: Recorder, cls: string, url: string, key: string): Promise<unknown> {
  const t0 = performance.now();
  try {
    const res = await fetch(url, { headers: { 'X-Service-Key': key }, signal: AbortSignal.timeout(30_000) });
    const body = await res.text();
    rec.record(cls, performance.now() - t0, String(res.status));
    if (res.status >= 500) rec.errors.push(`${res.status} ${url}: ${body.slice(0, 200)}`);
    return res.status === 200 ? (JSON.parse(body) as unknown) : undefined;
  } catch (err) {
    rec.record(cls, performance.now() - t0, 'error');
    rec.errors.push(`${url}: ${(err as Error).message}`);
    return undefined;
  }
}

const opt = (bytes: number | undefined): string => (bytes === undefined ? '?' : mb(bytes));
const ms = (value: number | undefined): string => (value === undefined ? '?' : `${value.toFixed(0)} ms`);

const pick = <T>(xs: readonly T[]): T => xs[Math.floor(Math.random() * xs.length)]!;

function isoDay(offsetDays: number): string {
  return new Date(Date.now() + offsetDays * 86_400_000).toISOString().slice(0, 10);
}

interface EventsBody {
  meta?: { delta_last_id?: string };
  events?: { event_id?: string }[];
}

export async function runSoak(options: SoakOptions = {}): Promise<SoakResult> {
  const minutes = options.minutes ?? 10;
  const sampleS = options.sampleS ?? 30;
  const env = options.env ?? {};
  const nodeFlags = [...startScriptNodeFlags(), ...(options.nodeFlags ?? [])];
  if (process.platform !== 'linux') throw new Error('soak: reads /proc, so it runs on Linux only');
  const dataDir = makeTmpDir('soak');
  let server: { child: Child; url: string; metricsUrl: string } | undefined;
  let restoreAffinity: string | undefined;
  const sockets: WebSocket[] = [];
  const cleanup = async () => {
    for (const ws of sockets) ws.terminate();
    await server?.child.stop(30_000);
    removeDir(dataDir);
    if (restoreAffinity) pinSelf(restoreAffinity);
  };
  const undoSignals = cleanupOnSignal(cleanup);
  try {
    restoreAffinity = canPin() ? currentAffinity() : undefined;
    if (restoreAffinity) pinSelf(CLIENT_CPU);
    if (options.dataDir) {
      log(`soak: copying ${options.dataDir}`);
      for (const suffix of ['', '-wal']) {
        try {
          cpSync(join(options.dataDir, STORE_FILE + suffix), join(dataDir, STORE_FILE + suffix));
        } catch (err) {
          if (suffix === '') throw err;
        }
      }
    } else {
      const ageS = options.ageS ?? 300;
      log(`soak: filling a data directory by running the server for ${ageS} s`);
      const filler = await startServer(dataDir, nodeFlags, {});
      await sleep(ageS * 1000);
      await filler.child.stop(30_000);
    }
    const keys = await addKeys(dataDir);
    log('soak: starting the server');
    server = await startServer(dataDir, nodeFlags, env);
    const { url, metricsUrl, child } = server;
    log(`soak: server pid ${child.pid} on ${url}`);
    const sports = (
      (await (await fetch(`${url}/api/v2/sports`)).json()) as { sports: { sport_id: number }[] }
    ).sports.map((s) => s.sport_id);
    const dates = [isoDay(-1), isoDay(0), isoDay(1)];
    const rec = new Recorder();
    const eventIds = new Set<string>();
    const deadline = Date.now() + minutes * 60_000;
    const running = () => Date.now() < deadline;
    const loops: Promise<void>[] = [];
    const paced = (paceMs: number, step: () => Promise<void>) =>
      loops.push(
        (async () => {
          await sleep(Math.random() * paceMs);
          while (running()) {
            const t0 = Date.now();
            await step();
            await sleep(Math.max(0, paceMs - (Date.now() - t0)));
          }
        })(),
      );

    for (const tier of POLL_TIERS) {
      for (const key of keys[tier]!) {
        paced(PACE_MS[tier], async () => {
          const filter = pick(FILTERS);
          const body = (await get(
            rec,
            `events ${tier}`,
            `${url}/api/v2/sports/${pick(sports)}/events/${pick(dates)}${filter ? `?${filter}` : ''}`,
            key,
          )) as EventsBody | undefined;
          for (const e of body?.events ?? []) if (e.event_id && eventIds.size < 2000) eventIds.add(e.event_id);
        });
      }
    }
    for (const key of keys.delta!) {
      let cursor: string | undefined;
      paced(DELTA_PACE_MS, async () => {
        if (cursor === undefined) {
          const body = (await get(
            rec,
            'delta bootstrap',
            `${url}/api/v2/sports/${pick(sports)}/events/${dates[1]}`,
            key,
          )) as EventsBody | undefined;
          cursor = body?.meta?.delta_last_id;
          return;
        }
        const body = (await get(
          rec,
          'markets delta',
          `${url}/api/v2/markets/delta?last_id=${cursor}&limit=5000`,
          key,
        )) as EventsBody | undefined;
        cursor = body?.meta?.delta_last_id ?? undefined;
      });
    }
    const statsRoutes = ['stats', 'players/stats', 'plays', 'markets/history?market_ids=1', 'best-line'];
    for (const key of keys.stats!) {
      paced(STATS_PACE_MS, async () => {
        if (eventIds.size === 0) return;
        const route = pick(statsRoutes);
        await get(rec, `event ${route.split('?')[0]}`, `${url}/api/v2/events/${pick([...eventIds])}/${route}`, key);
      });
    }

    const messages = { multiplex: 0, markets: 0, closed: 0 };
    const wsBase = url.replace('http', 'ws');
    keys.streams!.forEach((key, i) => {
      const multiplex = i < MULTIPLEX_CLIENTS;
      const sport = sports[i % sports.length]!;
      const ws = new WebSocket(multiplex ? `${wsBase}/api/v2/ws` : `${wsBase}/api/v2/ws/markets?sport_ids=${sport}`, {
        headers: { 'X-Service-Key': key },
      });
      sockets.push(ws);
      ws.on('open', () => {
        if (!multiplex) return;
        const subscribe = (id: string, channel: string, params: Record<string, unknown>) =>
          ws.send(JSON.stringify({ action: 'subscribe', id, channel, params }));
        subscribe('m', 'markets', { sport_ids: [sport], date: dates[1], snapshot: true });
        subscribe('l', 'live', { sport_ids: [sport] });
        subscribe('f', 'futures', { sport_ids: [sport] });
      });
      ws.on('message', () => {
        messages[multiplex ? 'multiplex' : 'markets']++;
      });
      ws.on('close', () => {
        if (running()) messages.closed++;
      });
      ws.on('error', (err) => rec.errors.push(`ws ${i}: ${err.message}`));
    });

    const storms: StormStats = {
      storms: 0,
      resumes: 0,
      completed: 0,
      replayed: 0,
      snapshotRequired: 0,
      busy: 0,
      outOfOrder: 0,
      unreadCutOff: 0,
    };
    const stormKeys = keys.storm!;
    type Position = { id: number; epoch: string };
    const resumers = stormKeys.slice(0, RESUME_CLIENTS).map((key, i) => {
      const sport = sports[(i * 3) % sports.length]!;
      const state: { ws?: WebSocket; last?: Position; seq: number } = { seq: 0 };
      const open = (resumeFrom?: Position) => {
        const ws = new WebSocket(`${wsBase}/api/v2/ws`, { headers: { 'X-Service-Key': key } });
        sockets.push(ws);
        state.ws = ws;
        state.seq = 0;
        ws.on('open', () => {
          ws.send(
            JSON.stringify({
              action: 'subscribe',
              id: 'r',
              channel: 'markets',
              params: { sport_ids: [sport], ...(resumeFrom ? { resume_from: resumeFrom } : {}) },
            }),
          );
          if (resumeFrom) storms.resumes++;
        });
        ws.on('message', (data) => {
          const m = JSON.parse(String(data)) as {
            type?: string;
            code?: string;
            sub_sequence?: number;
            position?: Position;
            replayed?: number;
          };
          if (m.type === 'delta' && m.position) {
            if (
              m.sub_sequence !== state.seq + 1 ||
              (state.last && m.position.epoch === state.last.epoch && m.position.id <= state.last.id)
            ) {
              storms.outOfOrder++;
            }
            state.seq = m.sub_sequence ?? state.seq;
            state.last = m.position;
          } else if (m.type === 'subscribed' && m.position && !state.last) {
            state.last = m.position;
          } else if (m.type === 'resume_complete') {
            storms.completed++;
            storms.replayed += m.replayed ?? 0;
          } else if (m.type === 'snapshot_error') {
            if (m.code === 'resume_busy') storms.busy++;
            else storms.snapshotRequired++;
          }
        });
        ws.on('error', (err) => rec.errors.push(`storm ws ${i}: ${err.message}`));
      };
      open();
      return {
        storm(far: boolean) {
          const last = state.last;
          state.ws?.terminate();
          const from = last && far ? { id: Math.max(0, last.id - FAR_RESUME), epoch: last.epoch } : last;
          state.last = from;
          open(from);
        },
      };
    });
    const stormTimer = setInterval(
      () => {
        storms.storms++;
        resumers.forEach((r, i) => r.storm(i === storms.storms % RESUME_CLIENTS));
      },
      (options.stormS ?? 60) * 1000,
    );
    const unread = stormKeys.slice(RESUME_CLIENTS).map((key) => {
      const open = () => {
        const ws = new WebSocket(`${wsBase}/api/v2/ws`, { headers: { 'X-Service-Key': key } });
        sockets.push(ws);
        ws.on('open', () => {
          ws.send(JSON.stringify({ action: 'subscribe', id: 'all', channel: 'markets', params: {} }));
          // Reads nothing from here on: the server must cut it off rather than hold what it misses.
          ws.pause();
        });
        ws.on('close', () => {
          if (running()) storms.unreadCutOff++;
        });
        ws.on('error', () => {});
        return ws;
      };
      let ws = open();
      return setInterval(() => {
        if (ws.readyState === WebSocket.CLOSED || ws.readyState === WebSocket.CLOSING) ws = open();
      }, 60_000);
    });

    const samples: Sample[] = [];
    const t0 = Date.now();
    const clientLoop = monitorEventLoopDelay({ resolution: 10 });
    clientLoop.enable();
    const sample = async () => {
      const mem = memoryOf(child.pid);
      if (!mem) return;
      const s: Sample = {
        minute: (Date.now() - t0) / 60_000,
        ...mem,
        ...(await heapFromMetrics(metricsUrl)),
        clientLoopMaxMs: clientLoop.max / 1e6,
        slow: rec.takeSlow(),
      };
      clientLoop.reset();
      samples.push(s);
      log(
        `soak: ${s.minute.toFixed(1)} min: RSS ${mb(s.rss)}, [heap] ${mb(s.mallocHeap)}, other anonymous ${mb(s.otherAnon)}, ` +
          `file ${mb(s.file)}, heap used ${opt(s.heapUsed)} of ${opt(s.heapTotal)}, external ${opt(s.external)}; ` +
          `${s.slow} requests over ${SLOW_MS} ms, longest loop delay ${ms(s.serverLoopMaxMs)} server, ${ms(s.clientLoopMaxMs)} clients`,
      );
    };
    await sample();
    while (running()) {
      await sleep(Math.min(sampleS * 1000, Math.max(0, deadline - Date.now())));
      await sample();
    }
    await Promise.all(loops);
    clearInterval(stormTimer);
    for (const t of unread) clearInterval(t);
    const gc = await gcFromMetrics(metricsUrl);
    return {
      minutes,
      dataDir: options.dataDir ? `a copy of ${options.dataDir}` : `fresh, aged ${options.ageS ?? 300} s`,
      nodeFlags,
      env,
      samples,
      classes: rec.summary(),
      streamMessages: messages,
      storms,
      gc,
      errors: rec.errors,
    };
  } finally {
    await cleanup();
    undoSignals();
  }
}

/** Least-squares slope of RSS against minutes, in MB a minute, over the samples given. */
function rssSlope(samples: readonly Sample[]): number | undefined {
  if (samples.length < 3) return undefined;
  const n = samples.length;
  const mx = samples.reduce((a, s) => a + s.minute, 0) / n;
  const my = samples.reduce((a, s) => a + s.rss, 0) / n;
  let num = 0;
  let den = 0;
  for (const s of samples) {
    num += (s.minute - mx) * (s.rss - my);
    den += (s.minute - mx) ** 2;
  }
  return den === 0 ? undefined : num / den / (1024 * 1024);
}

export function formatSoak(r: SoakResult): string {
  const m = machineInfo();
  const peak = r.samples.reduce((a, s) => Math.max(a, s.rss), 0);
  const half = r.minutes / 2;
  const slope = (xs: readonly Sample[]) => {
    const v = rssSlope(xs);
    return v === undefined ? 'too few samples' : `${v >= 0 ? '+' : ''}${v.toFixed(2)} MB a minute`;
  };
  const st = r.storms;
  const lines = [
    `## Soak: a mixed clientele for ${r.minutes} minutes`,
    '',
    `Machine: ${m.nproc} CPUs (${m.model}), ${m.memory}, Node ${m.node}; ${new Date().toISOString().slice(0, 16)} UTC; server on CPU ${SERVER_CPU}, clients on CPU ${CLIENT_CPU}.`,
    `Data directory: ${r.dataDir}. Server flags: \`${r.nodeFlags.join(' ') || '(none)'}\`` +
      (Object.keys(r.env).length
        ? `; environment ${Object.entries(r.env)
            .map(([k, v]) => `${k}=${v}`)
            .join(' ')}`
        : '') +
      '.',
    '',
    `| minute | RSS | malloc main arena | other anonymous | file-backed | heap used | heap committed | external | requests over ${SLOW_MS} ms | longest loop delay: server, clients |`,
    '|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|',
    ...r.samples.map(
      (s) =>
        `| ${s.minute.toFixed(1)} | ${mb(s.rss)} | ${mb(s.mallocHeap)} | ${mb(s.otherAnon)} | ${mb(s.file)} | ` +
        `${opt(s.heapUsed)} | ${opt(s.heapTotal)} | ${opt(s.external)} | ${s.slow} | ${ms(s.serverLoopMaxMs)}, ${ms(s.clientLoopMaxMs)} |`,
    ),
    '',
    `Peak RSS ${mb(peak)}. RSS trend (least squares): first half ${slope(r.samples.filter((s) => s.minute <= half))}, ` +
      `second half ${slope(r.samples.filter((s) => s.minute > half))}.`,
    '',
    `| requests | count | statuses | p50 ms | p99 ms | max ms | over ${SLOW_MS} ms |`,
    '|---|---:|---|---:|---:|---:|---:|',
    ...Object.entries(r.classes)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(
        ([cls, c]) =>
          `| ${cls} | ${int(c.count)} | ${Object.entries(c.statuses)
            .map(([s, n]) => `${s}: ${int(n)}`)
            .join(', ')} | ${c.p50.toFixed(1)} | ${c.p99.toFixed(1)} | ${c.max.toFixed(1)} | ${c.slow} |`,
      ),
    '',
    `Stream messages: ${int(r.streamMessages.multiplex)} multiplexed, ${int(r.streamMessages.markets)} on /api/v2/ws/markets; ` +
      `${r.streamMessages.closed} connections closed by the server during the soak.`,
    `Resume storms: ${st.storms}, ${int(st.resumes)} resumes, ${int(st.completed)} completed (${int(st.replayed)} deltas replayed), ` +
      `${st.snapshotRequired} snapshot_required, ${st.busy} resume_busy, ${st.outOfOrder} deltas out of order; ` +
      `never-reading clients cut off ${st.unreadCutOff} times.`,
    `Garbage collections (from the start): ${
      Object.entries(r.gc)
        .map(
          ([k, g]) =>
            `${k} ${int(g.count)} (${g.seconds.toFixed(1)} s; ${g.over10ms} over 10 ms, ${g.over100ms} over 100 ms)`,
        )
        .join(', ') || 'not read'
    }.`,
    `Errors (5xx, failed requests, stream errors): ${r.errors.length}${r.errors.length ? `; first: ${r.errors.slice(0, 3).join(' | ')}` : ''}.`,
  ];
  return lines.join('\n');
}

if (isMain(import.meta.url)) {
  const { values } = parseArgs({
    options: {
      minutes: { type: 'string' },
      'data-dir': { type: 'string' },
      age: { type: 'string' },
      sample: { type: 'string' },
      env: { type: 'string', multiple: true },
      'node-flags': { type: 'string' },
      storm: { type: 'string' },
    },
  });
  const env: Record<string, string> = {};
  for (const pair of values.env ?? []) {
    const eq = pair.indexOf('=');
    if (eq <= 0) throw new Error(`--env wants NAME=VALUE, got ${pair}`);
    env[pair.slice(0, eq)] = pair.slice(eq + 1);
  }
  const result = await runSoak({
    minutes: values.minutes === undefined ? undefined : Number(values.minutes),
    dataDir: values['data-dir'],
    ageS: values.age === undefined ? undefined : Number(values.age),
    sampleS: values.sample === undefined ? undefined : Number(values.sample),
    env,
    nodeFlags: values['node-flags']?.split(/\s+/).filter(Boolean),
    stormS: values.storm === undefined ? undefined : Number(values.storm),
  });
  console.log(formatSoak(result));
}
