/**
 * Issue 40's performance targets, measured on real processes: `oddsbase serve --role writer|api`
 * on a PostgreSQL and a Redis of the benchmark's own (started as the cluster tests start them,
 * test/cluster/services: loopback ports, temporary directories, PostgreSQL with fsync off).
 *
 *   npm run bench:cluster                          # every part (~10 min)
 *   npm run bench:cluster -- --short               # every part, shorter (~4 min)
 *   npm run bench:cluster -- --only commit,events  # some parts: commit, stream, events, start
 *   npm run bench:cluster -- --only events --rate 1000  # every server's rounds paced to 1,000 requests a second
 *   npm run bench:cluster -- --only commit --before DIR --writer-flags "--max-semi-space-size=32"
 *     (several sets of writer flags separated by ';', each measured as a writer of its own)
 *   npm run bench:cluster -- --only commit --before DIR --batch-rows 100  # the same updates, 100 a POST
 *   npm run bench:cluster -- --only start --before DIR --day-store DIR2  # the start, DIR's node and this one's in turn
 *
 * - commit: a writer (`--feed ingest`) takes BATCHES batches of 2,000 price updates over
 *   POST /admin/v1/ingest (bench/ingest.ts's rows, two in flight, the bodies made before the clock
 *   starts) and commits each into PostgreSQL; its rate is taken from the first POST to the last
 *   answer. The rows it wrote are then read back, grouped by the transaction each was committed in
 *   (the batches' heads), and written by two bare `pg` loops into fresh databases of the same
 *   schema (bench/pg-commit.ts's loops: multi-row INSERTs, the issue's reference, and COPYs).
 *   Runs alternate writer / bare loops. `--before DIR` (another checkout
 *   of oddsbase with its node_modules) and `--writer-flags "FLAGS"` (this checkout with node flags
 *   added after npm start's) add writers, measured in each run beside this one, before the bare
 *   loop; CPU a row is given with the PostgreSQL server processes and for the writer alone.
 * - stream: one writer, two API nodes, 1,000 clients of /api/v2/ws/markets (half on each node,
 *   each filtered to one of 250 events, four clients an event), 2,000 price changes a second
 *   POSTed to the writer every 50 ms. Latency: a delivery's arrival minus its batch's time
 *   (`X-Batch-At`, set as the POST leaves, so it also counts the ingest's own work before the
 *   commit). Every delivery is counted and checked against what each client's filter asks for.
 * - events: an embedded server (`serve`, SQLite) and an API node get the same 10 events of 200
 *   prices through the ingest API; GET /api/v2/sports/4/events/{today} is loaded on each in
 *   turn, round after round (autocannon, bench/events.ts's `cannon`), every server pinned to CPU 0
 *   and the client to CPU 1; CPU per request from /proc. Two more API nodes in the same rounds
 *   send their counter changes as before the far gap (20 ms apart) and before any gap.
 * - start: a writer with the simulator fills a day of history into a database once (its first
 *   start, every sport unless `--sports`); what it leaves short of `--day-rows` (1,300,000 by
 *   default, the issue's day; 0: none) is topped up with price moves of 100 more events through
 *   the ingest API, described over the 12 hours before; then API nodes are started against it, one
 *   at a time: spawn to /readyz 200. `--day-store DIR` keeps both days for the next run.
 *
 * Servers run with `npm start`'s node flags. Progress goes to stderr, a markdown summary to stdout.
 */
import { execFileSync } from 'node:child_process';
import { loadavg } from 'node:os';
import { Redis } from 'ioredis';
import pg from 'pg';
import { WebSocket } from 'ws';
import { generateAdminToken, newAdminTokenRecord } from '../src/access/admin-tokens.ts';
import { generateKey, newKeyRecord } from '../src/access/keys.ts';
import { openAccounts, type StoreTarget } from '../src/compose.ts';
import type { PriceUpdate, Update } from '../src/ledger/updates.ts';
import { PgStore } from '../src/store/postgres/pg-store.ts';
import type { ChangeRecord } from '../src/store/store.ts';
import { type PostgresService, startPostgres } from '../test/cluster/services/postgres.ts';
import { type RedisService, startRedis } from '../test/cluster/services/redis.ts';
import { nbaEvent, price } from '../test/helpers/fixtures.ts';
import { serveChild } from '../test/helpers/serve-child.ts';
import { cannon, type RunStats } from './events.ts';
import { BATCH_SIZE, buildWorkload } from './ingest.ts';
import { bareLoop } from './pg-commit.ts';
import {
  arg,
  canPin,
  cleanupOnSignal,
  cpuSeconds,
  int,
  isMain,
  log,
  makeTmpDir,
  median,
  pct,
  pinSelf,
  removeDir,
  sleep,
  startScriptNodeFlags,
  TASKSET,
  todayUtc,
} from './lib.ts';

/** Issue 40's targets. */
export const TARGETS = {
  commitPerS: 30_000,
  commitRatio: 0.6,
  streamP99Ms: 150,
  eventsCpuRatio: 1.05,
  startS: 60,
};

const PARTS = ['commit', 'stream', 'events', 'start'] as const;
type Part = (typeof PARTS)[number];

export interface ClusterOptions {
  only: Part[];
  /** Rounds of each side (commit, events) or API node starts (start). */
  runs: number;
  /** commit: timed batches of 2,000 a run. */
  batches: number;
  /**
   * commit: the updates a POST carries (2,000 by default): the same updates of a run sent as
   * smaller batches weigh what a batch costs beside its rows (its request, token and name).
   */
  batchRows?: number;
  /** stream: measured seconds after a warm-up. */
  seconds: number;
  /** events: seconds of each autocannon round. */
  duration: number;
  /**
   * events: requests a second each round is paced to (all servers alike, so that each answers as
   * many and the CPU of what runs per second, not per request, weighs alike); as fast as they go
   * when undefined.
   */
  rate?: number;
  /** start: the simulator's sports for the day of log (every sport when undefined). */
  sports?: string;
  /**
   * start: the rows the day of log holds at least: what the simulator's day leaves short (it
   * fills from three and a half days back to the time of day it runs) is made up with price moves
   * of bench/ingest.ts's events through the ingest API (`topUp`). None: the simulator's day alone.
   */
  dayRows?: number;
  /** commit: where the writer writes a CPU profile (`--cpu-prof`), if anywhere; events: both servers'. */
  cpuProfDir?: string;
  /**
   * commit: the writers measured in each run, side by side, before the one bare loop: this
   * checkout as `npm start` runs it by default; `--before DIR` adds another checkout's first, and
   * `--writer-flags "FLAGS"` this checkout with node flags added after npm start's.
   */
  writers?: WriterSide[];
  /**
   * start: a directory that keeps PostgreSQL's files between runs, so that the day of log is filled
   * once (a fill of every sport takes minutes, tens of minutes on a loaded machine) and reused.
   */
  dayStore?: string;
}

/** Issue 40's day of log: about 1.3 million rows. */
const DAY_ROWS = 1_300_000;
const DEFAULTS: ClusterOptions = {
  only: [...PARTS],
  runs: 3,
  batches: 60,
  seconds: 20,
  duration: 8,
  dayRows: DAY_ROWS,
};
const SHORT: ClusterOptions = { only: [...PARTS], runs: 1, batches: 20, seconds: 8, duration: 4, sports: '4' };

/** A writer the commit part measures: the code of `checkout` (this one when undefined), with `flags`. */
export interface WriterSide {
  name: string;
  checkout?: string;
  flags: string[];
}

const THIS_WRITER: WriterSide = { name: 'writer', flags: [] };

// --- the processes -----------------------------------------------------------------------------

interface Node {
  url: string;
  pid: number;
  /** Where its /metrics listens, when started with --metrics-port. */
  metricsUrl?: string;
  stop(): Promise<void>;
}

interface Cluster {
  postgres: PostgresService;
  redis: RedisService;
  /** The data directory the cluster's processes are given (unused with a database URL). */
  scratch: string;
  nodes: Set<Node>;
}

/** `oddsbase serve` as `npm start` runs it: `role` on `databaseUrl`, or embedded on `dataDir` when `role` is all. */
async function serve(
  c: Cluster,
  role: 'writer' | 'api' | 'all',
  where: string,
  args: string[] = [],
  nodeFlags: string[] = [],
  env: Record<string, string> = {},
  checkout?: string,
): Promise<Node> {
  const backend =
    role === 'all'
      ? ['--data-dir', where]
      : ['--database-url', where, '--redis-url', c.redis.url, '--data-dir', c.scratch];
  const s = await serveChild(['--role', role, ...backend, '--log-level', 'warn', ...args], {
    nodeFlags: [...startScriptNodeFlags(), ...nodeFlags],
    env,
    timeoutMs: 600_000,
    ...(checkout === undefined ? {} : { cwd: checkout }),
  });
  const listener = /metrics: (http[^\s)]+)/.exec(s.output())?.[1];
  const metrics = listener && new URL('/metrics', listener).href;
  const node: Node = {
    url: s.url,
    pid: s.child.pid!,
    ...(metrics ? { metricsUrl: metrics } : {}),
    async stop() {
      c.nodes.delete(node);
      if (s.child.exitCode !== null || s.child.signalCode !== null) return;
      s.child.kill('SIGTERM');
      const timer = setTimeout(() => s.child.kill('SIGKILL'), 10_000);
      await s.exited;
      clearTimeout(timer);
    },
  };
  c.nodes.add(node);
  return node;
}

/** Polls `/readyz` until it answers 200; returns when, by performance.now(). */
async function ready(url: string, timeoutMs: number): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const ok = await fetch(`${url}/readyz`, { signal: AbortSignal.timeout(2000) }).then(
      async (r) => (await r.arrayBuffer(), r.status === 200),
      () => false,
    );
    if (ok) return performance.now();
    await sleep(100);
  }
  throw new Error(`${url} was not ready within ${timeoutMs / 1000} s`);
}

/** An admin token for the ingest API and `keys` Enterprise keys without a per-second ceiling. */
async function accounts(target: StoreTarget, keys: number): Promise<{ token: string; keys: string[] }> {
  const a = await openAccounts(target, { create: true });
  try {
    const token = generateAdminToken();
    await a.adminTokens.insert(newAdminTokenRecord(token));
    const made: string[] = [];
    for (let i = 0; i < keys; i++) {
      const k = generateKey();
      await a.keys.insert(
        newKeyRecord(k, 'enterprise', { label: 'bench', custom: JSON.stringify({ burstPerSecond: 1_000_000_000 }) }),
      );
      made.push(k);
    }
    return { token, keys: made };
  } finally {
    await a.close();
  }
}

/** An ingest batch ready to send: its id, time and NDJSON body. */
interface Post {
  id: string;
  at: string;
  body: string;
}

const post = (id: string, at: string, records: readonly Update[]): Post => ({
  id,
  at,
  body: records.map((r) => JSON.stringify(r)).join('\n'),
});

/** POSTs a batch to /admin/v1/ingest until it is taken (a 503 is the ledger's "again later"); returns the head. */
async function ingest(url: string, token: string, p: Post): Promise<number> {
  for (;;) {
    const res = await fetch(`${url}/admin/v1/ingest`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': 'application/x-ndjson',
        'idempotency-key': p.id,
        'x-batch-at': p.at,
      },
      body: p.body,
    });
    const text = await res.text();
    if (res.status === 503) {
      await sleep(5);
      continue;
    }
    if (res.status !== 200) throw new Error(`batch ${p.id}: ${res.status} ${text}`);
    return (JSON.parse(text) as { head_id: number }).head_id;
  }
}

const loadNow = () => loadavg()[0]!.toFixed(1);

// --- commit: the writer against a bare pg loop ---------------------------------------------------

/** One writer side's figures over the runs. */
export interface WriterFigures {
  name: string;
  rate: number[];
  inCommit: number[];
  writerCpu: number[];
  cpuPerK: number[];
  /** The writer process's own CPU µs a row, without its PostgreSQL server processes. */
  ownCpuPerK: number[];
}

export interface CommitResult {
  updates: number;
  /** The updates a POST carried. */
  batchRows: number;
  writers: WriterFigures[];
  /** The bare loop of multi-row INSERTs (the issue's reference), rows/s and CPU µs a row. */
  bare: number[];
  bareCpuPerK: number[];
  /** The bare loop of COPYs, the same rows and transactions. */
  bareCopy: number[];
  bareCopyCpuPerK: number[];
  load: [string, string];
}

/** The changes the batches wrote, a transaction each, read back from the database of `url`. */
async function committedBatches(url: string, heads: number[], after: number): Promise<ChangeRecord[][]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<ChangeRecord>(
      `SELECT id, kind, event_id, sport_id, at, committed_ms, price_id, affiliate_id, market_id, payload, detail
         FROM changes WHERE id > $1 AND id <= $2 ORDER BY id`,
      [after, heads.at(-1)],
    );
    const out: ChangeRecord[][] = [];
    let i = 0;
    for (const head of heads) {
      const batch: ChangeRecord[] = [];
      while (i < rows.length && rows[i]!.id <= head) batch.push(rows[i++]!);
      out.push(batch);
    }
    return out;
  } finally {
    await client.end();
  }
}

/** The CPU seconds the processes `pids` used so far (the ones that have ended count nothing). */
const sumCpu = (pids: number[]) => pids.reduce((sum, pid) => sum + (cpuSeconds(pid) ?? 0), 0);

/** The seconds the writer's ledger spent inside Store.commit so far (its commit histogram's sum). */
async function commitSeconds(node: Node): Promise<number> {
  if (!node.metricsUrl) throw new Error('the writer did not say where its /metrics listens');
  const text = await (await fetch(node.metricsUrl)).text();
  const sum = /^oddsbase_ledger_commit_duration_seconds_sum (\S+)$/m.exec(text)?.[1];
  if (sum === undefined) throw new Error('no oddsbase_ledger_commit_duration_seconds_sum in /metrics');
  return Number(sum);
}

interface WriterRun {
  rate: number;
  /** CPU µs a row: the writer process and its PostgreSQL connections' server processes. */
  cpuPerK: number;
  /** The writer process's alone. */
  ownCpuPerK: number;
  updates: number;
  /** The share of the writer's wall time inside Store.commit, and its CPU (1 = one core). */
  inCommit: number;
  writerCpu: number;
  /** The rows it committed, a transaction each. */
  rows: ChangeRecord[][];
}

async function writerRun(c: Cluster, o: ClusterOptions, side: WriterSide): Promise<WriterRun> {
  const w = buildWorkload();
  const setup = w.setup.map((b, i) => post(`setup-${i}`, b.at, b.updates));
  // Without --batch-rows each batch goes whole, in one POST.
  const timed = w.timed
    .slice(0, o.batches)
    .flatMap((b) => {
      const size = o.batchRows ?? b.updates.length;
      return Array.from({ length: Math.ceil(b.updates.length / size) }, (_, j) =>
        b.updates.slice(j * size, (j + 1) * size),
      ).map((updates) => ({ at: b.at, updates }));
    })
    .map((b, i) => post(`timed-${i}`, b.at, b.updates));
  const updates = w.timed.slice(0, o.batches).reduce((n, b) => n + b.updates.length, 0);
  const db = await c.postgres.createDatabase();
  const prof = o.cpuProfDir ? ['--cpu-prof', `--cpu-prof-dir=${o.cpuProfDir}`] : [];
  const writer = await serve(
    c,
    'writer',
    db,
    ['--feed', 'ingest', '--metrics-port', '0'],
    [...side.flags, ...prof],
    {},
    side.checkout,
  );
  let heads: number[] = [];
  let setupHead = 0;
  let writerMs: number;
  let inCommitS: number;
  let writerCpuS: number;
  let serverCpuS: number;
  try {
    const { token } = await accounts({ dataDir: c.scratch, databaseUrl: db }, 0);
    for (const p of setup) setupHead = await ingest(writer.url, token, p);
    heads = new Array<number>(timed.length);
    let next = 0;
    // Two in flight: the writer reads and checks one batch while the other commits.
    const sender = async () => {
      while (next < timed.length) {
        const k = next++;
        heads[k] = await ingest(writer.url, token, timed[k]!);
      }
    };
    const commit0 = await commitSeconds(writer);
    const backends = await c.postgres.backends(db);
    const cpu0 = cpuSeconds(writer.pid) ?? 0;
    const server0 = sumCpu(backends);
    const began = performance.now();
    await Promise.all([sender(), sender()]);
    writerMs = performance.now() - began;
    writerCpuS = (cpuSeconds(writer.pid) ?? 0) - cpu0;
    serverCpuS = sumCpu(backends) - server0;
    inCommitS = (await commitSeconds(writer)) - commit0;
  } finally {
    await writer.stop();
  }
  heads.sort((a, b) => a - b);
  if (heads.at(-1)! - setupHead !== updates) {
    throw new Error(`${side.name} wrote ${heads.at(-1)! - setupHead} rows for ${updates} updates`);
  }
  const rows = await committedBatches(db, heads, setupHead);
  await c.postgres.dropDatabase(db);
  return {
    rate: updates / (writerMs / 1000),
    cpuPerK: ((writerCpuS + serverCpuS) * 1e6) / updates,
    ownCpuPerK: (writerCpuS * 1e6) / updates,
    updates,
    inCommit: inCommitS / (writerMs / 1000),
    writerCpu: writerCpuS / (writerMs / 1000),
    rows,
  };
}

export async function runCommit(c: Cluster, o: ClusterOptions): Promise<CommitResult> {
  const load0 = loadNow();
  const sides = o.writers ?? [THIS_WRITER];
  const writers: WriterFigures[] = sides.map((s) => ({
    name: s.name,
    rate: [],
    inCommit: [],
    writerCpu: [],
    cpuPerK: [],
    ownCpuPerK: [],
  }));
  const bare: number[] = [];
  const bareCpuPerK: number[] = [];
  const bareCopy: number[] = [];
  const bareCopyCpuPerK: number[] = [];
  let updates = 0;
  for (let r = 0; r < o.runs; r++) {
    let rows: ChangeRecord[][] = [];
    for (const [i, side] of sides.entries()) {
      const run = await writerRun(c, o, side);
      const f = writers[i]!;
      f.rate.push(run.rate);
      f.inCommit.push(run.inCommit);
      f.writerCpu.push(run.writerCpu);
      f.cpuPerK.push(run.cpuPerK);
      f.ownCpuPerK.push(run.ownCpuPerK);
      updates = run.updates;
      rows = run.rows;
      log(
        `commit run ${r + 1}, ${side.name}: ${int(run.rate)} updates/s (${pct(run.inCommit)} of it in Store.commit, CPU ${pct(run.writerCpu)}), ${run.cpuPerK.toFixed(1)} CPU µs a row (the process alone ${run.ownCpuPerK.toFixed(1)}); load ${loadNow()}`,
      );
    }
    // The bare loops write the rows the last writer committed, in the same transactions.
    for (const how of ['insert', 'copy'] as const) {
      const bareDb = await c.postgres.createDatabase();
      // The same schema: a store opened once migrates it.
      await (await PgStore.open(bareDb)).close();
      const b = await bareLoop(bareDb, rows, how);
      await c.postgres.dropDatabase(bareDb);
      const [rate, cpu] = how === 'insert' ? [bare, bareCpuPerK] : [bareCopy, bareCopyCpuPerK];
      rate.push(updates / (b.ms / 1000));
      cpu.push((b.cpuS * 1e6) / updates);
      log(
        `commit run ${r + 1}, bare pg ${how} loop: ${int(rate.at(-1)!)} rows/s, ${cpu.at(-1)!.toFixed(1)} CPU µs a row`,
      );
    }
  }
  const batchRows = Math.min(o.batchRows ?? Infinity, BATCH_SIZE);
  return { updates, batchRows, writers, bare, bareCpuPerK, bareCopy, bareCopyCpuPerK, load: [load0, loadNow()] };
}

// --- stream: commit to a client of another node --------------------------------------------------

const STREAM_EVENTS = 250;
const STREAM_CLIENTS = 1000;
const STREAM_RATE = 2000;
const STREAM_BOOKS = [19, 23, 24, 25];
/** Enterprise keys take 100 connections each. */
const PER_KEY = 100;

const streamEvent = (e: number) => `clusterbench${String(e).padStart(20, '0')}`;
const LINES_PER_EVENT = STREAM_BOOKS.length * 2;
const LINES = STREAM_EVENTS * LINES_PER_EVENT;

/** The nth change of the stream workload: the lines in turn, each one's price moving every round. */
function streamUpdate(n: number): PriceUpdate {
  const k = n % LINES;
  const round = Math.floor(n / LINES);
  const line = k % LINES_PER_EVENT;
  const home = line % 2 === 1;
  return price(streamEvent(Math.floor(k / LINES_PER_EVENT)), {
    market_id: 1,
    participant_id: home ? 2014 : 2002,
    participant_name: home ? 'Los Angeles' : 'Boston',
    affiliate_id: STREAM_BOOKS[line >> 1]!,
    price: (home ? -120 : 110) - (round % 2) - (k % 5),
  });
}

const eventOfUpdate = (n: number) => Math.floor((n % LINES) / LINES_PER_EVENT);

export interface StreamResult {
  clients: number;
  sent: number;
  expected: number;
  delivered: number;
  /** Deliveries a client did not get, and ones it got beyond what it asked for. */
  missing: number;
  extra: number;
  p50: number;
  p99: number;
  max: number;
  timed: number;
  rate: number;
  load: [string, string];
}

export async function runStream(c: Cluster, o: ClusterOptions): Promise<StreamResult> {
  const load0 = loadNow();
  const db = await c.postgres.createDatabase();
  const writer = await serve(c, 'writer', db, ['--feed', 'ingest']);
  const sockets: WebSocket[] = [];
  try {
    const { token, keys } = await accounts(
      { dataDir: c.scratch, databaseUrl: db },
      Math.ceil(STREAM_CLIENTS / PER_KEY),
    );
    const at0 = new Date().toISOString();
    const events = Array.from({ length: STREAM_EVENTS }, (_, e) => ({
      kind: 'event' as const,
      event: nbaEvent(streamEvent(e), todayUtc()),
    }));
    // Every line once before the clients connect, so each measured change is a price move.
    await ingest(
      writer.url,
      token,
      post('setup', at0, [...events, ...Array.from({ length: LINES }, (_, n) => streamUpdate(n))]),
    );
    const nodes = [await serve(c, 'api', db), await serve(c, 'api', db)];
    await Promise.all(nodes.map((n) => ready(n.url, 120_000)));
    log(`stream: writer and two API nodes up; connecting ${STREAM_CLIENTS} clients`);
    const received = new Array<number>(STREAM_CLIENTS).fill(0);
    const latencies: number[] = [];
    let timeFrom = Infinity;
    for (let i = 0; i < STREAM_CLIENTS; i += 50) {
      await Promise.all(
        Array.from({ length: Math.min(50, STREAM_CLIENTS - i) }, async (_, j) => {
          const client = i + j;
          const node = nodes[client % 2]!;
          const ws = new WebSocket(
            `${node.url.replace('http', 'ws')}/api/v2/ws/markets?event_ids=${streamEvent((client >> 1) % STREAM_EVENTS)}`,
            { headers: { 'X-Service-Key': keys[Math.floor(client / PER_KEY)]! } },
          );
          ws.on('message', (data) => {
            const s = String(data);
            // Price moves only (a snapshot at connect, heartbeats and the like are not changes).
            if (!s.includes('"snapshot":false')) return;
            received[client]!++;
            const at = s.indexOf('"updated_at":"');
            if (at < 0) return;
            const sentAt = Date.parse(s.slice(at + 14, s.indexOf('"', at + 14)));
            if (sentAt >= timeFrom) latencies.push(Date.now() - sentAt);
          });
          await new Promise<void>((resolve, reject) => {
            ws.once('open', () => resolve());
            ws.once('error', (err) => reject(new Error(`client ${client}: ${String(err)}`)));
          });
          sockets.push(ws);
        }),
      );
    }
    await sleep(1000);
    received.fill(0);
    log(`stream: ${STREAM_CLIENTS} clients connected; sending ${STREAM_RATE} changes a second`);
    const perEvent = new Array<number>(STREAM_EVENTS).fill(0);
    let sent = 0;
    const warmMs = 2000;
    const began = Date.now();
    timeFrom = began + warmMs;
    let batch = 0;
    while (Date.now() - began < warmMs + o.seconds * 1000) {
      const due = Math.floor(((Date.now() - began) / 1000) * STREAM_RATE);
      // A writer that falls behind gets what is due in batches of at most 2,000, one after another.
      while (due > sent) {
        const upto = Math.min(due, sent + 2000);
        const ups: PriceUpdate[] = [];
        for (let n = sent; n < upto; n++) {
          ups.push(streamUpdate(LINES + n));
          perEvent[eventOfUpdate(LINES + n)]!++;
        }
        sent = upto;
        await ingest(writer.url, token, post(`s-${batch++}`, new Date().toISOString(), ups));
      }
      await sleep(50);
    }
    const rate = sent / ((Date.now() - began) / 1000);
    const expected = received.map((_, i) => perEvent[(i >> 1) % STREAM_EVENTS]!);
    const total = expected.reduce((a, b) => a + b, 0);
    const sum = () => received.reduce((a, b) => a + b, 0);
    // What is still on its way: until every delivery is in, or nothing more came for 5 s.
    for (let last = -1, quiet = 0; sum() < total && quiet < 5000; quiet = sum() === last ? quiet + 250 : 0) {
      last = sum();
      await sleep(250);
    }
    let missing = 0;
    let extra = 0;
    received.forEach((got, i) => {
      if (got < expected[i]!) missing += expected[i]! - got;
      else extra += got - expected[i]!;
    });
    const sorted = latencies.sort((a, b) => a - b);
    const q = (p: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? Number.NaN;
    return {
      clients: STREAM_CLIENTS,
      sent,
      expected: total,
      delivered: sum(),
      missing,
      extra,
      p50: q(0.5),
      p99: q(0.99),
      max: sorted.at(-1) ?? Number.NaN,
      timed: sorted.length,
      rate,
      load: [load0, loadNow()],
    };
  } finally {
    for (const ws of sockets) ws.terminate();
    for (const n of [...c.nodes]) await n.stop();
    await c.postgres.dropDatabase(db);
  }
}

// --- events: an API node's snapshot against the embedded server's ----------------------------------

/** An API node's rounds. */
export interface ApiNodeRuns {
  name: string;
  runs: RunStats[];
  /** Each round's Lua script calls Redis ran per request of the node: the counters' sends. */
  scriptCallsPerRequest: number[];
}

export interface EventsCpuResult {
  bytes: { embedded: number; api: number; same: boolean };
  embedded: RunStats[];
  /** The API node as configured by default, then `API_VARIANTS` in their order. */
  api: ApiNodeRuns[];
  /** Requests a second each round was paced to, if it was. */
  rate?: number;
  load: [string, string];
}

/**
 * API nodes loaded beside the default one, in the same rounds: the counters' sends as they were
 * before the far gap (every 20 ms whatever the limits) and before any gap.
 */
const API_VARIANTS: { name: string; env: Record<string, string> }[] = [
  {
    name: 'API node, counter changes sent 20 ms apart whatever the limits (`COUNTER_FAR_SEND_GAP_MS=20`)',
    env: { COUNTER_FAR_SEND_GAP_MS: '20' },
  },
  {
    name: 'API node, counter changes sent without a gap (`COUNTER_SEND_GAP_MS=0 COUNTER_FAR_SEND_GAP_MS=0`)',
    env: { COUNTER_SEND_GAP_MS: '0', COUNTER_FAR_SEND_GAP_MS: '0' },
  },
];

/** Calls of Lua scripts Redis has run so far, as its command statistics count them. */
async function scriptCalls(redis: Redis): Promise<number> {
  const text = await redis.info('commandstats');
  let calls = 0;
  for (const m of text.matchAll(/^cmdstat_(?:eval|evalsha):calls=(\d+)/gm)) calls += Number(m[1]);
  return calls;
}

const pin = (pid: number, cpu: string) => {
  if (canPin()) execFileSync(TASKSET, ['-a', '-cp', cpu, String(pid)], { stdio: 'ignore' });
};

/** The answer's text with its cursor left out: the two logs' ids begin apart. */
const withoutCursor = (text: string) => text.replace(/"delta_last_id":"?\d+"?/g, '');

/** Events of the events part: about as large an answer (210 KB) as the simulator's NBA day. */
const SNAPSHOT_EVENTS = 10;

export async function runEventsCpu(c: Cluster, o: ClusterOptions): Promise<EventsCpuResult> {
  const load0 = loadNow();
  const w = buildWorkload();
  const setup = w.setup.slice(0, SNAPSHOT_EVENTS).map((b, i) => post(`setup-${i}`, b.at, b.updates));
  const path = `/api/v2/sports/4/events/${todayUtc()}`;
  const dataDir = makeTmpDir('cluster-embedded');
  const db = await c.postgres.createDatabase();
  let restore: string | undefined;
  let redis: Redis | undefined;
  try {
    const embeddedAccounts = await accounts({ dataDir }, 1);
    const prof = o.cpuProfDir ? ['--cpu-prof', `--cpu-prof-dir=${o.cpuProfDir}`] : [];
    const embedded = await serve(c, 'all', dataDir, ['--feed', 'ingest'], prof);
    const writer = await serve(c, 'writer', db, ['--feed', 'ingest']);
    const clusterAccounts = await accounts({ dataDir: c.scratch, databaseUrl: db }, 1);
    for (const p of setup) {
      await ingest(embedded.url, embeddedAccounts.token, p);
      await ingest(writer.url, clusterAccounts.token, p);
    }
    const apiNodes = [await serve(c, 'api', db, [], prof)];
    for (const v of API_VARIANTS) apiNodes.push(await serve(c, 'api', db, [], prof, v.env));
    for (const node of apiNodes) await ready(node.url, 120_000);
    const get = async (url: string, key: string) =>
      (await fetch(url + path, { headers: { 'X-Service-Key': key } })).text();
    const reference = await get(writer.url, clusterAccounts.keys[0]!);
    // The node has caught up when it serves what the writer serves.
    for (const node of apiNodes) {
      for (let t = 0; (await get(node.url, clusterAccounts.keys[0]!)) !== reference; t++) {
        if (t > 200) throw new Error('the API node did not catch up with the writer within 20 s');
        await sleep(100);
      }
    }
    const e = await get(embedded.url, embeddedAccounts.keys[0]!);
    const bytes = {
      embedded: Buffer.byteLength(e),
      api: Buffer.byteLength(reference),
      same: withoutCursor(e) === withoutCursor(reference),
    };
    log(`events: ${bytes.embedded} and ${bytes.api} bytes, the same but for the cursor: ${bytes.same}`);
    for (const node of [embedded, ...apiNodes]) pin(node.pid, '0');
    restore = pinSelf('1');
    const embeddedRuns: RunStats[] = [];
    const api: ApiNodeRuns[] = [
      { name: 'API node (`serve --role api`)', runs: [], scriptCallsPerRequest: [] },
      ...API_VARIANTS.map((v) => ({ name: v.name, runs: [], scriptCallsPerRequest: [] })),
    ];
    redis = new Redis(c.redis.url);
    const sides = [
      { which: 'embedded', node: embedded, key: embeddedAccounts.keys[0]!, out: embeddedRuns, calls: undefined },
      ...apiNodes.map((node, i) => ({
        which: i === 0 ? 'api node' : `api node ${JSON.stringify(API_VARIANTS[i - 1]!.env)}`,
        node,
        key: clusterAccounts.keys[0]!,
        out: api[i]!.runs,
        calls: api[i]!.scriptCallsPerRequest,
      })),
    ];
    // Unmeasured: each server's caches and code warm before the first round.
    for (const side of sides) await cannon(side.node.url + path, { 'X-Service-Key': side.key }, 2, side.node.pid);
    for (let r = 0; r < o.runs; r++) {
      for (const { which, node, key, out, calls } of sides) {
        const calls0 = await scriptCalls(redis);
        const s = await cannon(node.url + path, { 'X-Service-Key': key }, o.duration, node.pid, o.rate);
        if (s.errors > 0) throw new Error(`${which}: ${s.errors} errors`);
        out.push(s);
        calls?.push(((await scriptCalls(redis)) - calls0) / s.requests);
        log(`events round ${r + 1}, ${which}: ${int(s.rps)} req/s, ${s.cpuUsPerRequest.toFixed(0)} µs CPU a request`);
      }
    }
    return { bytes, embedded: embeddedRuns, api, rate: o.rate, load: [load0, loadNow()] };
  } finally {
    redis?.disconnect();
    if (restore) pinSelf(restore);
    for (const n of [...c.nodes]) await n.stop();
    await c.postgres.dropDatabase(db);
    removeDir(dataDir);
  }
}

// --- start: an API node on a day of log ------------------------------------------------------------

/** The starts of one checkout's API nodes. */
export interface StartSide {
  name: string;
  startsS: number[];
  /** Each node's CPU seconds from spawn to ready. */
  cpuS: number[];
}

export interface StartResult {
  rows: number;
  /** How the day of log was made (the simulator's rows and fill, the top-up's). */
  day: Omit<DayOfLog, 'url'>;
  /** This checkout's starts, after another checkout's when `--before` named one (taken in turn). */
  sides: StartSide[];
  load: [string, string];
}

/** The rows of the change log of the database at `url`. */
async function countRows(url: string): Promise<number> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return Number((await client.query<{ n: string }>('SELECT count(*) AS n FROM changes')).rows[0]!.n);
  } finally {
    await client.end();
  }
}

/** Whether the cluster's PostgreSQL holds the database `name`. */
async function databaseKept(c: Cluster, name: string): Promise<boolean> {
  const admin = new pg.Client({ connectionString: c.postgres.url() });
  await admin.connect();
  try {
    return (await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [name])).rows.length > 0;
  } finally {
    await admin.end();
  }
}

/** Names the database at `url` `name`: only once whole, so that a run stopped meanwhile leaves no half day to reuse. */
async function nameDatabase(c: Cluster, url: string, name: string): Promise<string> {
  const admin = new pg.Client({ connectionString: c.postgres.url() });
  await admin.connect();
  try {
    await admin.query(`ALTER DATABASE ${pg.escapeIdentifier(new URL(url).pathname.slice(1))} RENAME TO ${name}`);
  } finally {
    await admin.end();
  }
  return c.postgres.url(name);
}

/** How the day of log was made: the simulator's day, and what topped it up; absent parts were kept. */
export interface DayOfLog {
  url: string;
  /** The simulator's day: its rows, and its fill's seconds when made by this run. */
  simulatorRows: number;
  fillS?: number;
  /** Rows of price moves added to reach `dayRows`, and the seconds it took, when made by this run. */
  topUpRows: number;
  topUpS?: number;
}

/** The simulator's day of log: made by a writer's first start with the simulator, or found made. */
async function simulatorDay(c: Cluster, o: ClusterOptions): Promise<{ url: string; fillS?: number }> {
  const name = `day_${(o.sports ?? 'all').replace(/,/g, '_')}`;
  if (await databaseKept(c, name)) {
    log(`start: the day of log ${name} is kept from an earlier run`);
    return { url: c.postgres.url(name) };
  }
  log(`start: filling a day of log with the simulator (${o.sports ? `sports ${o.sports}` : 'every sport'})`);
  const db = await c.postgres.createDatabase();
  const t0 = performance.now();
  const writer = await serve(c, 'writer', db, o.sports ? ['--sports', o.sports] : []);
  // The writer serves while the back part of its first fill runs: wait for the whole day.
  for (;;) {
    const body = (await (await fetch(`${writer.url}/readyz`)).json()) as { history?: string };
    if (body.history === 'complete') break;
    await sleep(1000);
  }
  await writer.stop();
  const fillS = (performance.now() - t0) / 1000;
  return { url: await nameDatabase(c, db, name), fillS };
}

/**
 * Adds price moves to the log of `url` until it holds `target` rows: a writer (`--feed ingest`)
 * takes bench/ingest.ts's 100 events (20,000 prices) and then its rounds of 2,000 moves, each
 * batch described at a time spread over the 12 hours before the top-up began, so that a start
 * replays none of them (its replay takes rows described within the longest delay, 5 minutes).
 */
async function topUp(c: Cluster, url: string, rows: number, target: number): Promise<void> {
  const w = buildWorkload();
  const batches = [...w.setup, ...w.timed];
  const writer = await serve(c, 'writer', url, ['--feed', 'ingest']);
  try {
    const { token } = await accounts({ dataDir: c.scratch, databaseUrl: url }, 0);
    const begun = Date.now() - 12 * 3_600_000;
    let head = 0;
    let first: number | undefined;
    for (let i = 0; i < batches.length; i++) {
      const b = batches[i]!;
      const at = new Date(begun + (i * 12 * 3_600_000) / batches.length).toISOString();
      const taken = await ingest(writer.url, token, post(`top-up-${i}`, at, b.updates));
      // The ids are dense: the first batch's head less its updates is where the top-up began.
      first ??= taken - b.updates.length;
      head = taken;
      if (rows + head - first >= target) return;
      if (i % 50 === 0) log(`start: topped up ${int(head - first)} rows`);
    }
    throw new Error(`the top-up's ${int(head - first!)} rows leave the log short of ${int(target)} rows`);
  } finally {
    await writer.stop();
  }
}

/** The database of the day of log: the simulator's day, topped up to `o.dayRows` when it holds fewer. */
async function dayOfLog(c: Cluster, o: ClusterOptions): Promise<DayOfLog> {
  const sim = await simulatorDay(c, o);
  const simulatorRows = await countRows(sim.url);
  const kept = { simulatorRows, ...(sim.fillS === undefined ? {} : { fillS: sim.fillS }) };
  if (o.dayRows === undefined || simulatorRows >= o.dayRows) return { url: sim.url, ...kept, topUpRows: 0 };
  const name = `${new URL(sim.url).pathname.slice(1)}_${o.dayRows}`;
  if (await databaseKept(c, name)) {
    const url = c.postgres.url(name);
    log(`start: the day of log topped up to ${int(o.dayRows)} rows, ${name}, is kept from an earlier run`);
    return { url, ...kept, topUpRows: (await countRows(url)) - simulatorRows };
  }
  log(`start: the simulator's day holds ${int(simulatorRows)} rows; topping it up to ${int(o.dayRows)}`);
  const db = await c.postgres.createDatabase(sim.url);
  const t0 = performance.now();
  await topUp(c, db, simulatorRows, o.dayRows);
  const topUpS = (performance.now() - t0) / 1000;
  const url = await nameDatabase(c, db, name);
  return { url, ...kept, topUpRows: (await countRows(url)) - simulatorRows, topUpS };
}

export async function runStart(c: Cluster, o: ClusterOptions): Promise<StartResult> {
  const { url, ...day } = await dayOfLog(c, o);
  const rows = await countRows(url);
  log(`start: ${int(rows)} rows; starting API nodes on them`);
  const load0 = loadNow();
  // With --before, that checkout's node and this one's start in turn, one at a time.
  const before = o.writers?.find((w) => w.checkout !== undefined)?.checkout;
  const checkouts = before === undefined ? [undefined] : [before, undefined];
  const sides: StartSide[] = checkouts.map((checkout) => ({
    name: checkout === undefined ? 'this checkout' : `before (${checkout})`,
    startsS: [],
    cpuS: [],
  }));
  try {
    for (let r = 0; r < o.runs; r++) {
      for (const [i, side] of sides.entries()) {
        const began = performance.now();
        const node = await serve(c, 'api', url, [], [], {}, checkouts[i]);
        const at = await ready(node.url, 300_000);
        side.startsS.push((at - began) / 1000);
        side.cpuS.push(cpuSeconds(node.pid) ?? Number.NaN);
        await node.stop();
        log(
          `start ${r + 1}, ${side.name}: ready after ${side.startsS.at(-1)!.toFixed(1)} s (${side.cpuS.at(-1)!.toFixed(1)} CPU s, load ${loadNow()})`,
        );
      }
    }
  } finally {
    for (const n of [...c.nodes]) await n.stop();
  }
  return { rows, day, sides, load: [load0, loadNow()] };
}

// --- the report ------------------------------------------------------------------------------------

const met = (ok: boolean) => (ok ? 'met' : '**missed**');
const loadText = (l: [string, string]) => `load average ${l[0]} before, ${l[1]} after, on 2 cores`;

export function commitMarkdown(r: CommitResult): string {
  const b = median(r.bare);
  const bCpu = median(r.bareCpuPerK);
  const k = median(r.bareCopy);
  const kCpu = median(r.bareCopyCpuPerK);
  const fixed = (xs: number[]) => xs.map((x) => x.toFixed(1)).join(', ');
  const lines = [
    `### commit: the writer into PostgreSQL (${int(r.updates)} price updates a run, batches of ${int(r.batchRows)}; ${loadText(r.load)})`,
    '',
    '| | updates/s (median) | runs | CPU µs a row, with its PostgreSQL processes (median) | runs | the process alone (median) | runs |',
    '|---|---:|---|---:|---|---:|---|',
    ...r.writers.map(
      (w) =>
        `| ${w.name} (\`serve --role writer --feed ingest\`) | ${int(median(w.rate))} | ${w.rate.map(int).join(', ')} | ${median(w.cpuPerK).toFixed(1)} | ${fixed(w.cpuPerK)} | ${median(w.ownCpuPerK).toFixed(1)} | ${fixed(w.ownCpuPerK)} |`,
    ),
    `| bare \`pg\` loop, the same rows and transactions, multi-row INSERT | ${int(b)} | ${r.bare.map(int).join(', ')} | ${bCpu.toFixed(1)} | ${fixed(r.bareCpuPerK)} | | |`,
    `| bare \`pg\` loop, the same rows and transactions, COPY | ${int(k)} | ${r.bareCopy.map(int).join(', ')} | ${kCpu.toFixed(1)} | ${fixed(r.bareCopyCpuPerK)} | | |`,
    '',
  ];
  for (const w of r.writers) {
    const rate = median(w.rate);
    lines.push(
      `- ${w.name}: ${int(rate)}/s, target >= ${int(TARGETS.commitPerS)}/s: ${met(rate >= TARGETS.commitPerS)}; / bare INSERT loop ${pct(rate / b)}, target >= ${pct(TARGETS.commitRatio)}: ${met(rate / b >= TARGETS.commitRatio)}; / bare COPY loop ${pct(rate / k)}; bare / writer by CPU a row ${pct(bCpu / median(w.cpuPerK))} (INSERT), ${pct(kCpu / median(w.cpuPerK))} (COPY); wall time inside Store.commit ${w.inCommit.map(pct).join(', ')}, its CPU (1 = a core) ${w.writerCpu.map(pct).join(', ')}`,
    );
  }
  lines.push('');
  return lines.join('\n');
}

export function streamMarkdown(r: StreamResult): string {
  return [
    `### stream: commit to a client of an API node (${r.clients} clients over two API nodes; ${loadText(r.load)})`,
    '',
    `- sent ${int(r.sent)} price changes at ${int(r.rate)}/s; deliveries asked by the filters ${int(r.expected)}, delivered ${int(r.delivered)} (missing ${int(r.missing)}, beyond ${int(r.extra)})`,
    `- latency, batch time to arrival, ${int(r.timed)} deliveries after a 2 s warm-up: p50 ${r.p50} ms, p99 ${r.p99} ms, max ${r.max} ms`,
    `- p99 target < ${TARGETS.streamP99Ms} ms: ${met(r.p99 < TARGETS.streamP99Ms)}; nothing dropped: ${met(r.missing === 0 && r.extra === 0)}`,
    '',
  ].join('\n');
}

export function eventsCpuMarkdown(r: EventsCpuResult): string {
  const cpu = (xs: RunStats[]) => median(xs.map((s) => s.cpuUsPerRequest));
  const e = cpu(r.embedded);
  const a = cpu(r.api[0]!.runs);
  const row = (name: string, xs: RunStats[]) =>
    `| ${name} | ${cpu(xs).toFixed(0)} | ${xs.map((s) => s.cpuUsPerRequest.toFixed(0)).join(', ')} | ${int(median(xs.map((s) => s.rps)))} |`;
  const calls = (n: ApiNodeRuns) => n.scriptCallsPerRequest.map((x) => x.toFixed(3)).join(', ');
  return [
    `### events: CPU per snapshot request${r.rate === undefined ? '' : `, paced to ${int(r.rate)} a second`} (${loadText(r.load)})`,
    '',
    `Answers of ${int(r.bytes.embedded)} (embedded) and ${int(r.bytes.api)} bytes (API node), the same but for the cursor: ${r.bytes.same ? 'yes' : '**no**'}.`,
    '',
    '| server | µs CPU a request (median) | rounds | req/s (median) |',
    '|---|---:|---|---:|',
    row('embedded (`serve`, SQLite)', r.embedded),
    ...r.api.map((n) => row(n.name, n.runs)),
    '',
    `- API node / embedded: ${pct(a / e)}, target <= ${pct(TARGETS.eventsCpuRatio)}: ${met(a / e <= TARGETS.eventsCpuRatio)}`,
    ...r.api.slice(1).map((n) => `- ${n.name} / embedded: ${pct(cpu(n.runs) / e)}`),
    "- Redis script calls a request (the counters' sends), rounds:",
    ...r.api.map((n) => `  - ${n.name}: ${calls(n)}`),
    '',
  ].join('\n');
}

export function startMarkdown(r: StartResult): string {
  const d = r.day;
  const made = (seconds: number | undefined) =>
    seconds === undefined ? 'kept from an earlier run' : `made in ${seconds.toFixed(0)} s`;
  const topUp =
    d.topUpRows > 0
      ? `, topped up with ${int(d.topUpRows)} rows of price moves of 100 more events (${made(d.topUpS)})`
      : '';
  const mine = median(r.sides.at(-1)!.startsS);
  return [
    `### start: an API node on a day of log (${int(r.rows)} rows; ${loadText(r.load)})`,
    '',
    `- the day: the simulator's first fill, ${int(d.simulatorRows)} rows (${made(d.fillS)})${topUp}`,
    ...r.sides.map(
      (side) =>
        `- ${side.name}, spawn to /readyz 200: ${side.startsS.map((x) => `${x.toFixed(1)} s`).join(', ')} (CPU ${side.cpuS.map((x) => `${x.toFixed(1)} s`).join(', ')}); median ${median(side.startsS).toFixed(1)} s`,
    ),
    `- target < ${TARGETS.startS} s: ${met(mine < TARGETS.startS)}`,
    '',
  ].join('\n');
}

// --- the command -----------------------------------------------------------------------------------

export function parseClusterArgs(argv: string[]): ClusterOptions {
  const o: ClusterOptions = { ...(argv.includes('--short') ? SHORT : DEFAULTS) };
  const value = (name: string) => arg(name, argv);
  const count = (name: string, fallback: number) => {
    const v = value(name);
    if (v === undefined) return fallback;
    const n = Number(v);
    if (!Number.isInteger(n) || n < 1) throw new Error(`${name} is a whole number above 0, not ${v}`);
    return n;
  };
  const only = value('--only');
  if (only !== undefined) {
    const asked = only.split(',');
    const unknown = asked.filter((p) => !(PARTS as readonly string[]).includes(p));
    if (unknown.length > 0) throw new Error(`--only takes ${PARTS.join(', ')}; not ${unknown.join(', ')}`);
    o.only = asked as Part[];
  }
  o.runs = count('--runs', o.runs);
  o.batches = count('--batches', o.batches);
  if (value('--batch-rows') !== undefined) o.batchRows = count('--batch-rows', 1);
  o.seconds = count('--seconds', o.seconds);
  o.duration = count('--duration', o.duration);
  if (value('--rate') !== undefined) o.rate = count('--rate', 1);
  const dayStore = value('--day-store');
  if (dayStore !== undefined) o.dayStore = dayStore;
  const prof = value('--cpu-prof');
  if (prof !== undefined) o.cpuProfDir = prof;
  const before = value('--before');
  const flags = value('--writer-flags');
  if (before !== undefined || flags !== undefined) {
    o.writers = [
      ...(before === undefined ? [] : [{ name: 'before', checkout: before, flags: [] }]),
      THIS_WRITER,
      // Several sets of flags, each a writer of its own, are separated by ';'.
      ...(flags === undefined
        ? []
        : flags.split(';').map((f) => ({ name: `writer ${f.trim()}`, flags: f.trim().split(/\s+/) }))),
    ];
  }
  const dayRows = value('--day-rows');
  if (dayRows === '0') delete o.dayRows;
  else if (dayRows !== undefined) o.dayRows = count('--day-rows', 0);
  const sports = value('--sports');
  if (sports === 'all') delete o.sports;
  else if (sports !== undefined) o.sports = sports;
  return o;
}

export async function runCluster(o: ClusterOptions): Promise<{ markdown: string; failed: boolean }> {
  const [postgres, redis] = await Promise.all([
    startPostgres(o.dayStore === undefined ? {} : { keepIn: o.dayStore }),
    startRedis(),
  ]);
  const c: Cluster = { postgres, redis, scratch: makeTmpDir('cluster'), nodes: new Set() };
  const cleanup = async () => {
    for (const n of [...c.nodes]) await n.stop();
    await postgres.stop();
    await redis.close();
    removeDir(c.scratch);
  };
  const undoSignals = cleanupOnSignal(cleanup);
  const out: string[] = [];
  let failed = false;
  try {
    for (const part of o.only) {
      log(`cluster: ${part} (load average ${loadNow()})`);
      // A part that fails is reported as failed; the others still run.
      try {
        if (part === 'commit') out.push(commitMarkdown(await runCommit(c, o)));
        if (part === 'stream') out.push(streamMarkdown(await runStream(c, o)));
        if (part === 'events') out.push(eventsCpuMarkdown(await runEventsCpu(c, o)));
        if (part === 'start') out.push(startMarkdown(await runStart(c, o)));
      } catch (err) {
        failed = true;
        log(`cluster: ${part} failed: ${(err as Error).stack ?? String(err)}`);
        out.push(`### ${part}: **failed**\n\n${(err as Error).message}\n`);
      }
    }
  } finally {
    await cleanup();
    undoSignals();
  }
  return { markdown: out.join('\n'), failed };
}

if (isMain(import.meta.url)) {
  const { markdown, failed } = await runCluster(parseClusterArgs(process.argv.slice(2)));
  process.stdout.write(`${markdown}\n`);
  if (failed) process.exitCode = 1;
}
