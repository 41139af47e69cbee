/**
 * Ledger ingest into SQLite against a bare better-sqlite3 loop that inserts the same change rows
 * into the same schema, with the same INSERT statement, one transaction per batch of the same size.
 *
 *   node --import tsx bench/ingest.ts
 *
 * The data set: EVENTS events with 200 prices each (10 BOOKS x moneyline, four spreads and five
 * totals per side). Setting it up is not timed. The timed part applies BATCHES batches of
 * BATCH_SIZE price updates that each change a price, so every update writes exactly one change
 * row. A warm-up run captures the ledger's change rows through a bus subscriber (and its whole
 * commits through a wrapper of Store.commit); the bare loop re-inserts the rows, with fresh ids,
 * into a fresh file, binding them to the INSERT text read from SqliteStore's own statement.
 * A third, diagnostic loop replays the captured commits through SqliteStore.commit alone.
 * Runs alternate ledger / replay / bare, RUNS of each; the medians are reported. The ledger's and
 * the replay's store are opened as `serve` opens it, with the checkpoints on their own thread.
 */
import { join } from 'node:path';
import { PerformanceObserver, performance } from 'node:perf_hooks';
import Database from 'better-sqlite3';
import { entitlementsFor } from '../src/access/entitlements.ts';
import { DEFAULT_LIMITS } from '../src/config.ts';
import { TIERS } from '../src/catalog/tiers.ts';
import { Board } from '../src/board/board.ts';
import { DelayedViews } from '../src/board/delayed-views.ts';
import { MemoryBus } from '../src/bus/memory-bus.ts';
import type { EventInfo } from '../src/domain/types.ts';
import { Ledger } from '../src/ledger/ledger.ts';
import type { PriceUpdate, UpdateBatch } from '../src/ledger/updates.ts';
import { openSqlite } from '../src/store/sqlite/database.ts';
import { migrateRetention, SCHEMA } from '../src/store/sqlite/schema.ts';
import { SqliteStore } from '../src/store/sqlite/sqlite-store.ts';
import type { ChangeRecord, Commit } from '../src/store/store.ts';
import { int, isMain, log, makeTmpDir, median, pct, removeDir, sleep } from './lib.ts';

const BOOKS = [3, 4, 6, 11, 14, 19, 22, 23, 24, 28];
const EVENTS = 100;
export const BATCH_SIZE = 2_000;
const BATCHES = 250;
const RUNS = 3;
/** A run that takes longer than this stops early (and says so). */
const RUN_TIME_LIMIT_MS = 120_000;

/** Issue "the seams": at least 100,000 updates a second. */
export const TARGET_UPDATES_PER_S = 100_000;
export const TARGET_RATIO = 0.5;

/**
 * The store as `serve` opens it (src/compose.ts): checkpoints on a thread of their own, not inside the
 * writer's commits.
 */
const SERVER_STORE = { checkpointMs: DEFAULT_LIMITS.checkpointMs };

/** One price slot: everything of a PriceUpdate but the price. */
type Slot = Omit<PriceUpdate, 'price'>;

function eventHeader(i: number, date: string): Omit<EventInfo, 'score' | 'live_game_state'> {
  const id = `bench${String(i).padStart(27, '0')}`;
  const hour = String(i % 24).padStart(2, '0');
  return {
    event_id: id,
    sport_id: 4,
    event_uuid: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
    event_date: `${date}T${hour}:00:00Z`,
    rotation_number_away: 501 + 2 * i,
    rotation_number_home: 502 + 2 * i,
    teams: [
      {
        team_id: 2002,
        name: 'Boston',
        mascot: 'Celtics',
        abbreviation: 'BOS',
        record: '10-5',
        is_away: true,
        is_home: false,
      },
      {
        team_id: 2014,
        name: 'Los Angeles',
        mascot: 'Lakers',
        abbreviation: 'LAL',
        record: '9-6',
        is_away: false,
        is_home: true,
      },
    ],
    schedule: {
      season_type: 'Regular Season',
      season_year: 2026,
      event_name: 'Boston at Los Angeles',
      league_name: 'NBA',
    },
  };
}

/** The 20 price slots of one event at one book; main lines are flagged on creation. */
function bookSlots(eventId: string, affiliateId: number): Slot[] {
  const base = { kind: 'price' as const, event_id: eventId, period_id: 0, affiliate_id: affiliateId };
  const out: Slot[] = [];
  for (const [pid, name] of [
    [2002, 'Boston'],
    [2014, 'Los Angeles'],
  ] as const) {
    out.push({
      ...base,
      market_id: 1,
      participant_id: pid,
      participant_type: 'TYPE_TEAM',
      participant_name: name,
      line: '',
    });
    for (const v of [1.5, 2.5, 3.5, 4.5]) {
      out.push({
        ...base,
        market_id: 2,
        participant_id: pid,
        participant_type: 'TYPE_TEAM',
        participant_name: name,
        line: String(pid === 2002 ? v : -v),
        is_main_line: v === 3.5,
      });
    }
  }
  for (const [pid, name] of [
    [0, 'Over'],
    [1, 'Under'],
  ] as const) {
    for (const v of [219.5, 220.5, 221.5, 222.5, 223.5]) {
      out.push({
        ...base,
        market_id: 3,
        participant_id: pid,
        participant_type: 'TYPE_RESULT',
        participant_name: name,
        line: String(v),
        is_main_line: v === 221.5,
      });
    }
  }
  return out;
}

/**
 * Price of slot `k` in round `r` (round -1 is the setup): American odds outside (-100, 100) that
 * differ from one round to the next, so every update is a change.
 */
function priceAt(k: number, r: number): number {
  const v = (k + r + 1) % 40;
  return v < 20 ? -101 - v * 3 : 100 + (v - 20) * 3;
}

/**
 * An update as a feed makes one (the simulator's PricingModel.send): an object literal, so updates
 * share a few hidden classes. Copies made with rest and spread gave each update a class of its
 * own, and every property read of them in the ledger went the slow way (a benchmark artefact: the
 * ledger run cost about 1 µs more per update).
 */
function priceUpdate(s: Slot, price: number, isMainLine?: boolean): PriceUpdate {
  const u: PriceUpdate = {
    kind: 'price',
    event_id: s.event_id,
    market_id: s.market_id,
    period_id: s.period_id,
    participant_id: s.participant_id,
    participant_type: s.participant_type,
    participant_name: s.participant_name,
    line: s.line,
    affiliate_id: s.affiliate_id,
    price,
  };
  if (isMainLine !== undefined) u.is_main_line = isMainLine;
  return u;
}

interface Workload {
  setup: UpdateBatch[];
  timed: UpdateBatch[];
  updates: number;
}

/** Builds every batch once; the ledger only reads them, so each run reuses the same objects. */
export function buildWorkload(): Workload {
  const date = new Date().toISOString().slice(0, 10);
  const t0 = Date.parse(`${date}T00:00:00Z`);
  const slots: Slot[] = [];
  const setup: UpdateBatch[] = [];
  for (let e = 0; e < EVENTS; e++) {
    const header = eventHeader(e, date);
    const eventSlots = BOOKS.flatMap((b) => bookSlots(header.event_id, b));
    const first = slots.length;
    slots.push(...eventSlots);
    setup.push({
      at: new Date(t0 + e).toISOString(),
      updates: [
        { kind: 'event', event: header },
        ...eventSlots.map((s, i) => priceUpdate(s, priceAt(first + i, -1), s.is_main_line ?? false)),
      ],
    });
  }
  const timed: UpdateBatch[] = [];
  let n = 0;
  for (let b = 0; b < BATCHES; b++) {
    const updates: PriceUpdate[] = [];
    for (let i = 0; i < BATCH_SIZE; i++, n++) {
      const k = n % slots.length;
      const r = Math.floor(n / slots.length);
      // is_main_line is left out: the price keeps its flag, and one update writes one row.
      updates.push(priceUpdate(slots[k]!, priceAt(k, r)));
    }
    timed.push({ at: new Date(t0 + 60_000 + b * 1000).toISOString(), updates });
  }
  return { setup, timed, updates: n };
}

interface RunResult {
  updates: number;
  seconds: number;
  perSecond: number;
  /** Ledger runs: time inside Store.commit (the SQLite transaction), and in garbage collection. */
  storeSeconds?: number;
  gcSeconds?: number;
  /** Ledger runs: CPU time of the whole run and of Store.commit (robust to other processes' load). */
  cpuSeconds?: number;
  storeCpuSeconds?: number;
}

/** Sums the duration of the garbage collections that started within [from, to] (performance.now()). */
function gcTimer(): { seconds(from: number, to: number): Promise<number>; stop(): void } {
  const entries: { start: number; ms: number }[] = [];
  const obs = new PerformanceObserver((list) => {
    for (const e of list.getEntries()) entries.push({ start: e.startTime, ms: e.duration });
  });
  obs.observe({ entryTypes: ['gc'] });
  return {
    async seconds(from, to) {
      // GC entries are delivered some time after a synchronous loop ends.
      await sleep(100);
      return entries.filter((e) => e.start >= from && e.start <= to).reduce((s, e) => s + e.ms, 0) / 1000;
    },
    stop() {
      obs.disconnect();
    },
  };
}

/** Applies the setup (untimed) then the timed batches to a fresh ledger on a fresh file. */
export async function ledgerRun(
  w: Workload,
  capture?: { changes: ChangeRecord[][]; commits: Commit[] },
): Promise<RunResult> {
  const dir = makeTmpDir('ingest');
  const store = new SqliteStore(openSqlite(dir), SERVER_STORE);
  const gc = gcTimer();
  let views: DelayedViews | undefined;
  try {
    // Time spent in the store's transaction, to tell the ledger's own work from SQLite's.
    let storeNs = 0n;
    let storeCpuUs = 0;
    let timing = false;
    const commit = store.commit.bind(store);
    store.commit = async (c) => {
      if (!timing) return commit(c);
      capture?.commits.push(c);
      const t = process.hrtime.bigint();
      const cpu = process.cpuUsage();
      try {
        await commit(c);
      } finally {
        storeNs += process.hrtime.bigint() - t;
        const used = process.cpuUsage(cpu);
        storeCpuUs += used.user + used.system;
      }
    };
    const bus = new MemoryBus();
    // As the server runs it: the delayed views observe every applied change.
    const board = new Board();
    views = new DelayedViews(
      board,
      TIERS.map((t) => entitlementsFor(t).delaySeconds),
    );
    const ledger = await Ledger.open(store, board, bus, { observe: views.observe });
    for (const b of w.setup) await ledger.apply(b);
    if (capture) bus.subscribe((c) => capture.changes.push(c.changes));
    let updates = 0;
    timing = true;
    const from = performance.now();
    const cpuStart = process.cpuUsage();
    const start = process.hrtime.bigint();
    const deadline = Date.now() + RUN_TIME_LIMIT_MS;
    for (const b of w.timed) {
      await ledger.apply(b);
      updates += b.updates.length;
      if (Date.now() > deadline) {
        log(`  ledger run stopped at its time limit after ${int(updates)} updates`);
        break;
      }
    }
    const seconds = Number(process.hrtime.bigint() - start) / 1e9;
    const cpu = process.cpuUsage(cpuStart);
    if (ledger.headId !== w.setup.reduce((s, b) => s + b.updates.length, 0) + updates) {
      throw new Error('the ledger did not write one row per update: the workload is wrong');
    }
    const gcSeconds = await gc.seconds(from, performance.now());
    return {
      updates,
      seconds,
      perSecond: updates / seconds,
      storeSeconds: Number(storeNs) / 1e9,
      gcSeconds,
      cpuSeconds: (cpu.user + cpu.system) / 1e6,
      storeCpuSeconds: storeCpuUs / 1e6,
    };
  } finally {
    gc.stop();
    views?.close();
    await store.close();
    removeDir(dir);
  }
}

/**
 * Diagnostic: the ledger's own commits (change rows, new markets, event upserts) replayed through
 * SqliteStore.commit on a fresh file, without the ledger. Tells the store's cost from the ledger's.
 */
async function storeReplayRun(commits: readonly Commit[]): Promise<RunResult> {
  const dir = makeTmpDir('replay');
  const store = new SqliteStore(openSqlite(dir), SERVER_STORE);
  try {
    let updates = 0;
    const start = process.hrtime.bigint();
    const deadline = Date.now() + RUN_TIME_LIMIT_MS;
    for (const c of commits) {
      await store.commit(c);
      updates += c.changes.length;
      if (Date.now() > deadline) break;
    }
    const seconds = Number(process.hrtime.bigint() - start) / 1e9;
    return { updates, seconds, perSecond: updates / seconds };
  } finally {
    await store.close();
    removeDir(dir);
  }
}

/** A column of the INSERT: a record field, or the event's key the store stands for its id. */
type Column = keyof ChangeRecord | 'event_key';

/**
 * The INSERT of SqliteStore, read from the store's own prepared statement so that the bare loop
 * always runs the same SQL text, and the record fields its placeholders take, in order.
 */
function storeInsert(): { sql: string; columns: Column[] } {
  const db = new Database(':memory:');
  try {
    db.exec(SCHEMA);
    migrateRetention(db);
    const store = new SqliteStore(db) as unknown as { insertChange?: { source?: string } };
    const sql = store.insertChange?.source;
    const cols = sql ? /INSERT INTO changes\s*\(([^)]*)\)/i.exec(sql)?.[1] : undefined;
    if (!sql || !cols) throw new Error('could not read the INSERT statement of SqliteStore');
    return { sql, columns: cols.split(',').map((c) => c.trim() as Column) };
  } finally {
    db.close();
  }
}

type Row = unknown[];

/** Same pragmas, schema, indexes and INSERT text as openSqlite and SqliteStore; nothing else. */
function bareRun(sql: string, batches: readonly Row[][]): RunResult {
  const dir = makeTmpDir('bare');
  const db = new Database(join(dir, 'oddsbase.db'));
  try {
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    db.pragma('busy_timeout = 5000');
    db.exec(SCHEMA);
    const insert = db.prepare(sql);
    const tx = db.transaction((rows: readonly Row[]) => {
      for (const r of rows) insert.run(r);
    });
    let updates = 0;
    const start = process.hrtime.bigint();
    const deadline = Date.now() + RUN_TIME_LIMIT_MS;
    for (const rows of batches) {
      tx(rows);
      updates += rows.length;
      if (Date.now() > deadline) {
        log(`  bare run stopped at its time limit after ${int(updates)} rows`);
        break;
      }
    }
    const seconds = Number(process.hrtime.bigint() - start) / 1e9;
    return { updates, seconds, perSecond: updates / seconds };
  } finally {
    db.close();
    removeDir(dir);
  }
}

export interface IngestResult {
  updates: number;
  batchSize: number;
  events: number;
  pricesPerEvent: number;
  payloadBytes: number;
  ledger: number[];
  bare: number[];
  /** Diagnostic: the ledger's commits replayed through SqliteStore.commit alone. */
  replay: number[];
  ledgerMedian: number;
  bareMedian: number;
  replayMedian: number;
  /** Median share of the ledger's time spent inside Store.commit, and in GC. */
  storeShare: number;
  gcShare: number;
  ratio: number;
  metRate: boolean;
  metRatio: boolean;
}

export async function runIngest(): Promise<IngestResult> {
  log('ingest: building the workload');
  const w = buildWorkload();
  const firstEvent = w.setup[0];
  if (!firstEvent) throw new Error('the workload has no events');
  // The setup batch of an event holds its header and then its prices.
  const pricesPerEvent = firstEvent.updates.length - 1;
  log(`ingest: ${EVENTS} events x ${pricesPerEvent} prices, ${int(w.updates)} updates`);

  log('ingest: warm-up ledger run (captures the change rows)');
  const captured = { changes: [] as ChangeRecord[][], commits: [] as Commit[] };
  await ledgerRun(w, captured);
  const { sql, columns } = storeInsert();
  let id = 0;
  let payloadBytes = 0;
  // Event keys as the store hands them out: in the order the events first appear.
  const keys = new Map<string, number>();
  const keyOf = (eventId: string) => keys.get(eventId) ?? keys.set(eventId, keys.size + 1).size;
  // The bound values of each row, in the statement's column order, with fresh ids from 1.
  const rows = captured.changes.map((batch) =>
    batch.map((r): Row => {
      const fresh: ChangeRecord = { ...r, id: ++id };
      payloadBytes += Buffer.byteLength(r.payload) + (r.detail ? Buffer.byteLength(r.detail) : 0);
      return columns.map((c) => (c === 'event_key' ? keyOf(r.event_id) : fresh[c]));
    }),
  );
  const rowCount = id;
  log(
    `ingest: captured ${int(rowCount)} rows in ${rows.length} batches, ` +
      `mean payload + detail ${Math.round(payloadBytes / rowCount)} B`,
  );
  bareRun(sql, rows.slice(0, 25));

  const ledger: number[] = [];
  const bare: number[] = [];
  const replay: number[] = [];
  const storeShare: number[] = [];
  const gcShare: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const l = await ledgerRun(w);
    ledger.push(l.perSecond);
    storeShare.push(l.storeSeconds! / l.seconds);
    gcShare.push(l.gcSeconds! / l.seconds);
    log(
      `  run ${i + 1}: ledger ${int(l.perSecond)} updates/s (${l.seconds.toFixed(2)} s, ` +
        `store.commit ${l.storeSeconds!.toFixed(2)} s, GC ${l.gcSeconds!.toFixed(2)} s; ` +
        `CPU ${l.cpuSeconds!.toFixed(2)} s, of it store.commit ${l.storeCpuSeconds!.toFixed(2)} s)`,
    );
    const s = await storeReplayRun(captured.commits);
    replay.push(s.perSecond);
    log(`  run ${i + 1}: store  ${int(s.perSecond)} rows/s (${s.seconds.toFixed(2)} s)`);
    const b = bareRun(sql, rows);
    bare.push(b.perSecond);
    log(`  run ${i + 1}: bare   ${int(b.perSecond)} rows/s (${b.seconds.toFixed(2)} s)`);
  }
  const ledgerMedian = median(ledger);
  const bareMedian = median(bare);
  const ratio = ledgerMedian / bareMedian;
  return {
    updates: w.updates,
    batchSize: BATCH_SIZE,
    events: EVENTS,
    pricesPerEvent,
    payloadBytes: Math.round(payloadBytes / rowCount),
    ledger,
    bare,
    replay,
    ledgerMedian,
    bareMedian,
    replayMedian: median(replay),
    storeShare: median(storeShare),
    gcShare: median(gcShare),
    ratio,
    metRate: ledgerMedian >= TARGET_UPDATES_PER_S,
    metRatio: ratio >= TARGET_RATIO,
  };
}

export function ingestMarkdown(r: IngestResult): string {
  const yes = (b: boolean) => (b ? 'met' : '**missed**');
  return [
    `### Ingest (${int(r.updates)} price changes, batches of ${int(r.batchSize)}, median of ${RUNS} runs)`,
    '',
    '| | updates/s (median) | runs |',
    '|---|---:|---|',
    `| ledger -> SQLite | ${int(r.ledgerMedian)} | ${r.ledger.map(int).join(', ')} |`,
    `| bare better-sqlite3 | ${int(r.bareMedian)} | ${r.bare.map(int).join(', ')} |`,
    `| (diagnostic) SqliteStore.commit replay | ${int(r.replayMedian)} | ${r.replay.map(int).join(', ')} |`,
    '',
    `- ${r.events} events x ${r.pricesPerEvent} prices; ` + `mean payload + detail ${r.payloadBytes} bytes per row`,
    `- of the ledger's time, ${pct(r.storeShare)} is inside Store.commit (the SQLite transaction) ` +
      `and ${pct(r.gcShare)} in garbage collection`,
    `- ledger rate: ${int(r.ledgerMedian)}/s, target >= ${int(TARGET_UPDATES_PER_S)}/s: ${yes(r.metRate)}`,
    `- ledger / bare: ${pct(r.ratio)}, target >= ${pct(TARGET_RATIO)}: ${yes(r.metRatio)}`,
    '',
  ].join('\n');
}

if (isMain(import.meta.url)) {
  const r = await runIngest();
  process.stdout.write(`${ingestMarkdown(r)}\n`);
}
