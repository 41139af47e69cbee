/**
 * Latency of the history, chart, openers and closing routes on one event with 100,000 recorded
 * price changes.
 *
 *   node --import tsx bench/history.ts
 *
 * The data set is written through the real Ledger into a temporary directory: 10 books x
 * (moneyline, five spreads and five totals per side, six player props with three lines each) =
 * 400 prices, moved at random in batches of 100, one second apart, with an occasional main-line
 * move. The event starts when 90% of the changes are written, so closing has rows after the
 * start to step over. The app (buildApp) listens on 127.0.0.1; each case is requested
 * sequentially, after a warm-up, and its latency is measured at the client. The client runs in the
 * server's process, so the event loop's longest delay during a case is the longest time one step of
 * the server (or the client) held it: what every other request would have waited behind.
 */
import type { AddressInfo } from 'node:net';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { generateKey, newKeyRecord } from '../src/access/keys.ts';
import type { Board } from '../src/board/board.ts';
import { compose } from '../src/compose.ts';
import { resolveServeConfig } from '../src/config.ts';
import type { EventInfo } from '../src/domain/types.ts';
import type { Ledger } from '../src/ledger/ledger.ts';
import type { PriceUpdate } from '../src/ledger/updates.ts';
import { int, isMain, log, makeTmpDir, removeDir } from './lib.ts';

const CHANGES = 100_000;
const BATCH = 100;
const BOOKS = [3, 4, 6, 11, 14, 19, 22, 23, 24, 28];
const REQUESTS = 500;
const WARMUP = 30;
export const TARGET_P99_MS = 50;
const EVENT_ID = 'hist'.padEnd(32, '0');

type Slot = Omit<PriceUpdate, 'price' | 'is_main_line'> & { group: string };

function header(date: string): Omit<EventInfo, 'score' | 'live_game_state'> {
  return {
    event_id: EVENT_ID,
    sport_id: 4,
    event_uuid: '00000000-0000-4000-8000-000000000001',
    event_date: date,
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

/** Every price of the event; `group` names the lines among which one is the main line. */
function slots(): Slot[] {
  const out: Slot[] = [];
  for (const aff of BOOKS) {
    const base = { kind: 'price' as const, event_id: EVENT_ID, period_id: 0, affiliate_id: aff };
    for (const [pid, name, sign] of [
      [2002, 'Boston', 1],
      [2014, 'Los Angeles', -1],
    ] as const) {
      const team = {
        ...base,
        participant_id: pid,
        participant_type: 'TYPE_TEAM' as const,
        participant_name: name,
      };
      out.push({ ...team, market_id: 1, line: '', group: `${aff}:1:${pid}` });
      for (const v of [1.5, 2.5, 3.5, 4.5, 5.5]) {
        out.push({ ...team, market_id: 2, line: String(sign * v), group: `${aff}:2:${pid}` });
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
          group: `${aff}:3:${pid}`,
        });
      }
    }
    for (let player = 0; player < 6; player++) {
      for (const v of [18.5, 22.5, 26.5]) {
        out.push({
          ...base,
          market_id: 29,
          participant_id: 90_000 + player,
          participant_type: 'TYPE_PLAYER',
          participant_name: `Player ${player}`,
          line: String(v),
          group: `${aff}:29:${player}`,
        });
      }
    }
  }
  return out;
}

/** A small deterministic generator, so every run writes the same history. */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Writes the event and CHANGES price changes; returns the time of the first row and the event's start. */
async function fill(ledger: Ledger, board: Board): Promise<{ first: number; start: string; written: number }> {
  const all = slots();
  // Ids need not start at 1 (a store's first id follows its epoch): the changes written are counted from the head.
  const before = board.head;
  const t0 = Date.now() - 30 * 86_400_000;
  const batches = CHANGES / BATCH;
  const startMs = t0 + Math.floor(batches * 0.9) * 1000;
  const start = new Date(startMs).toISOString();
  const random = rng(42);
  const prices = all.map(() => -110);
  const main = new Map<string, Slot>();
  const first: PriceUpdate[] = all.map((s, i) => {
    const isMain = ['', '3.5', '-3.5', '221.5', '22.5'].includes(s.line);
    if (isMain) main.set(s.group, s);
    const { group: _g, ...rest } = s;
    return { ...rest, price: prices[i]!, is_main_line: isMain };
  });
  await ledger.apply({
    at: new Date(t0).toISOString(),
    updates: [{ kind: 'event', event: header(start) }, ...first],
  });
  let written = board.head - before;
  for (let b = 1; written < CHANGES; b++) {
    const updates: PriceUpdate[] = [];
    for (let k = 0; k < BATCH; k++) {
      // random() < 1, so i < all.length (and prices has one entry per slot).
      const i = Math.floor(random() * all.length);
      const picked = all[i]!;
      const { group, ...slot } = picked;
      // Keep each price a valid American price that differs from its previous one.
      let next = prices[i]! + (random() < 0.5 ? -5 : 5);
      if (next > -100 && next < 100) next = next < 0 ? 100 : -100;
      prices[i] = next;
      const moveMain = slot.market_id !== 1 && random() < 0.02 && main.get(group) !== picked;
      if (moveMain) main.set(group, picked);
      updates.push({ ...slot, price: next, ...(moveMain ? { is_main_line: true } : {}) });
    }
    await ledger.apply({ at: new Date(t0 + b * 1000).toISOString(), updates });
    written = board.head - before;
  }
  return { first: t0, start, written };
}

function percentile(sorted: readonly number[], p: number): number {
  // An empty list, or p = 0, points before the first: NaN.
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;
}

interface Case {
  name: string;
  path: string;
  /** What one response holds, for the table. */
  size: (body: any) => number;
  /** Shown for information; the p99 target covers the other cases. */
  informative?: boolean;
}

export interface HistoryCaseResult {
  name: string;
  items: number;
  p50: number;
  p99: number;
  max: number;
  /** The event loop's longest delay during the case's requests, ms. */
  loopMax: number;
  informative: boolean;
}

export interface HistoryResult {
  changes: number;
  start: string;
  cases: HistoryCaseResult[];
  met: boolean;
}

const rows = (b: any) => b.history.length;
const points = (b: any) => Object.values(b.series as Record<string, unknown[]>).reduce((n, s) => n + s.length, 0);
const prices = (b: any) => {
  let n = 0;
  for (const e of b.events)
    for (const m of e.markets)
      for (const p of m.participants) for (const l of p.lines) n += Object.keys(l.prices).length;
  return n;
};

function cases(board: Board, first: number): Case[] {
  const state = board.getEvent(EVENT_ID)!;
  const spreadsAndTotals: number[] = [];
  for (const m of state.markets.values()) {
    if (m.market_id !== 2 && m.market_id !== 3) continue;
    for (const p of m.participants.values())
      for (const l of p.lines.values()) for (const x of l.prices.values()) spreadsAndTotals.push(x.id);
  }
  const fifty = spreadsAndTotals.filter((_, i) => i % 4 === 0).slice(0, 50);
  const ev = `/api/v2/events/${EVENT_ID}`;
  return [
    { name: 'event history, limit 1000', path: `${ev}/markets/history?limit=1000`, size: rows },
    {
      name: 'event history, market 2 at book 19',
      path: `${ev}/markets/history?market_ids=2&affiliate_ids=19`,
      size: rows,
    },
    {
      name: 'markets/history, 50 ids',
      path: `/api/v2/markets/history?market_line_price_ids=${fifty.join(',')}`,
      size: rows,
    },
    { name: 'line chart, market 2', path: `${ev}/markets/2/history`, size: points },
    {
      name: 'line chart, market 2, main_line=true',
      path: `${ev}/markets/2/history?main_line=true`,
      size: points,
    },
    { name: 'openers (markets 1,2,3,29)', path: `${ev}/openers?market_ids=1,2,3,29`, size: prices },
    { name: 'closing (markets 1,2,3,29)', path: `${ev}/closing?market_ids=1,2,3,29`, size: prices },
    {
      // The worst case of a time window: the newest 94% of the event's rows lie after it.
      name: 'event history, to = the first minute',
      path: `${ev}/markets/history?to=${new Date(first + 60_000).toISOString()}`,
      size: rows,
      informative: true,
    },
  ];
}

export async function runHistory(): Promise<HistoryResult> {
  const dir = makeTmpDir('history');
  const services = await compose(resolveServeConfig({ dataDir: dir, simulator: false, logLevel: 'silent' }, {}));
  const { ledger, board, keys, app } = services;
  const key = generateKey();
  // Sequential requests as fast as they come: a burst ceiling the bench cannot reach.
  await keys.insert(
    newKeyRecord(key, 'enterprise', { label: 'bench', custom: JSON.stringify({ burstPerSecond: 1e9 }) }),
  );
  try {
    const filled = performance.now();
    const { first, start, written } = await fill(ledger, board);
    log(`history: wrote ${int(written)} changes in ${((performance.now() - filled) / 1000).toFixed(1)} s`);
    try {
      await app.listen({ port: 0, host: '127.0.0.1' });
      const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
      const results: HistoryCaseResult[] = [];
      for (const c of cases(board, first)) {
        const get = async () => {
          const res = await fetch(base + c.path, { headers: { 'X-Service-Key': key } });
          const body = await res.json();
          if (res.status !== 200) throw new Error(`${c.path}: ${res.status} ${JSON.stringify(body)}`);
          return body;
        };
        let items = 0;
        for (let i = 0; i < WARMUP; i++) items = c.size(await get());
        const times: number[] = [];
        const loop = monitorEventLoopDelay({ resolution: 1 });
        loop.enable();
        for (let i = 0; i < REQUESTS; i++) {
          const t = performance.now();
          await get();
          times.push(performance.now() - t);
        }
        loop.disable();
        times.sort((a, b) => a - b);
        results.push({
          name: c.name,
          items,
          p50: percentile(times, 50),
          p99: percentile(times, 99),
          max: times.at(-1) ?? Number.NaN,
          loopMax: loop.max / 1e6,
          informative: c.informative === true,
        });
        log(`history: ${c.name} done`);
      }
      const met = results.every((r) => r.informative || r.p99 < TARGET_P99_MS);
      return { changes: written, start, cases: results, met };
    } finally {
      await app.close();
    }
  } finally {
    await services.close();
    removeDir(dir);
  }
}

export function historyMarkdown(r: HistoryResult): string {
  return [
    `### History, chart, openers and closing (one event, ${int(r.changes)} recorded changes)`,
    '',
    '| Case | Items per response | p50 ms | p99 ms | max ms | event loop held, max ms |',
    '|---|---:|---:|---:|---:|---:|',
    ...r.cases.map(
      (c) =>
        `| ${c.name}${c.informative ? ' (informative)' : ''} | ${int(c.items)} | ${c.p50.toFixed(2)} | ` +
        `${c.p99.toFixed(2)} | ${c.max.toFixed(2)} | ${c.loopMax.toFixed(2)} |`,
    ),
    '',
    `- 400 prices (10 books), event start ${r.start}; ${REQUESTS} sequential requests per case after ` +
      `${WARMUP} warm-up, latency measured at the client`,
    `- p99 < ${TARGET_P99_MS} ms in every case but the informative one: ${r.met ? 'met' : '**missed**'}`,
    '',
  ].join('\n');
}

if (isMain(import.meta.url)) {
  const r = await runHistory();
  process.stdout.write(`${historyMarkdown(r)}\n`);
}
