/**
 * A markets-delta poll of 5,000 rows against a bare node:http server returning the same bytes, on
 * change logs of 1 M and 10 M rows: the poll's cost must not grow with the size of the log.
 *
 *   node --import tsx bench/delta.ts [--sizes 1000000,10000000] [--rounds 3] [--duration 8]
 *
 * The log is written straight into the store's `changes` table (rows shaped and sized as the
 * ledger writes them), then a server opens it. Three ways to poll 5,000 rows, each against the same
 * bare server:
 * - same cursor: every request asks for the rows just below the head (clients following the feed);
 * - recent cursor: every request a different cursor within the newest 30,000 rows, the window the
 *   server keeps serialised in memory;
 * - old cursor: every request a different cursor up to 500,000 rows back, read from SQLite.
 * Servers are pinned to CPU 0, autocannon to CPU 1.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { bundle } from '../bin/bundle.js';
import { openSqlite } from '../src/store/sqlite/database.ts';
import {
  arg,
  freePort,
  int,
  isMain,
  log,
  makeTmpDir,
  median,
  pct,
  pinSelf,
  removeDir,
  spawnNode,
  waitForHttp,
} from './lib.ts';

export const TARGET_RATIO = 0.5;
const POLL = 5000;

interface Series {
  rps: number[];
  p50: number[];
  p99: number[];
}

interface SizeResult {
  rows: number;
  bytes: number;
  /** Every request the same cursor. */
  oddsbase: Series;
  /** Every request a different cursor among the newest rows, held in memory. */
  recent: Series;
  /** Every request a different cursor far behind the head: each poll reads its rows from the store. */
  uncached: Series;
  bare: { rps: number[] };
}

/** How far back the recent and the old cursors reach. */
const RECENT_SPREAD = 30_000;
const OLD_SPREAD = 500_000;

const eventIdOf = (e: number): string => `${e.toString(16).padStart(2, '0')}${'ab'.repeat(15)}`;

/** Fills `changes` with `n` price rows over 2,000 prices of 20 events, as the ledger would. */
function fill(dataDir: string, n: number): void {
  const db = openSqlite(dataDir);
  const insert = db.prepare(
    `INSERT INTO changes (id, kind, event_key, sport_id, at, committed_ms, price_id, affiliate_id, market_id, payload, detail)
     VALUES (?, 'price', (SELECT key FROM event_keys WHERE event_id = ?), 4, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const addKey = db.prepare('INSERT OR IGNORE INTO event_keys (event_id) VALUES (?)');
  for (let e = 0; e < 20; e++) addKey.run(eventIdOf(e));
  const now = Date.now();
  const batch = db.transaction((from: number, to: number) => {
    for (let id = from; id < to; id++) {
      const priceId = (id % 2000) + 1;
      const eventId = eventIdOf(id % 20);
      const aff = 19 + (id % 5);
      const at = new Date(now - (n - id) * 10).toISOString();
      const payload = JSON.stringify({
        id,
        event_id: eventId,
        sport_id: 4,
        affiliate_id: aff,
        market_id: 2,
        market_name: 'Point Spread',
        participant_id: 2002,
        participant_type: 'TYPE_TEAM',
        participant_name: 'Boston Celtics',
        line: '-3.5',
        price: String(-110 - (id % 20)),
        previous_price: '-110',
        change_type: 'price_change',
        is_main_line: true,
        closed_at: '',
        updated_at: at,
      });
      const detail = `{"price_id":${priceId},"period_id":0,"market_instance_id":1,"line_id":"${'0'.repeat(32)}","price_delta":-5}`;
      insert.run(id, eventId, at, now, priceId, aff, 2, payload, detail);
    }
  });
  for (let from = 1; from <= n; from += 100_000) batch(from, Math.min(n + 1, from + 100_000));
  db.close();
}

/** With `spread`, each request asks for a different cursor below the head, so no response is cached. */
async function load(url: string, durationS: number, spread?: { head: number; range: number }) {
  let n = 0;
  const r = await autocannon({
    url,
    connections: 10,
    duration: durationS,
    ...(spread
      ? {
          requests: [
            {
              setupRequest: (req: { path: string }) => {
                n = (n + 7919) % spread.range;
                const cursor = spread.head - POLL - 1 - n;
                return { ...req, path: `/api/v2/markets/delta?last_id=${cursor}&limit=${POLL}` };
              },
            },
          ],
        }
      : {}),
  });
  if (r.non2xx + r.errors > 0) throw new Error(`${url}: ${r.non2xx + r.errors} failed requests`);
  return { rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99 };
}

async function measure(rows: number, rounds: number, durationS: number): Promise<SizeResult> {
  const dataDir = makeTmpDir('delta');
  try {
    log(`delta: writing ${int(rows)} rows`);
    fill(dataDir, rows);
    const port = await freePort();
    const server = spawnNode(['--import', 'tsx', 'bench/store-server.ts', dataDir, String(port), 'without'], {
      cpu: '0',
    });
    const url = `http://127.0.0.1:${port}/api/v2/markets/delta?last_id=${rows - POLL}&limit=${POLL}`;
    let bare: ReturnType<typeof spawnNode> | undefined;
    try {
      await waitForHttp(url, server, 300_000);
      const res = await fetch(url);
      const body = await res.text();
      const parsed = JSON.parse(body) as { meta: { count: number } };
      if (parsed.meta.count !== POLL) throw new Error(`expected ${POLL} rows, got ${parsed.meta.count}`);
      const barePort = await freePort();
      const bodyFile = join(dataDir, 'poll.json');
      writeFileSync(bodyFile, body);
      bare = spawnNode([await bundle('bench/bare-server.ts'), bodyFile, String(barePort)], { cpu: '0' });
      const bareUrl = `http://127.0.0.1:${barePort}/`;
      await waitForHttp(bareUrl, bare, 60_000);
      const previous = pinSelf('1');
      await load(url, 2);
      await load(bareUrl, 2);
      const out: SizeResult = {
        rows,
        bytes: Buffer.byteLength(body),
        oddsbase: { rps: [], p50: [], p99: [] },
        recent: { rps: [], p50: [], p99: [] },
        uncached: { rps: [], p50: [], p99: [] },
        bare: { rps: [] },
      };
      for (let i = 0; i < rounds; i++) {
        const o = await load(url, durationS);
        const r = await load(url, durationS, { head: rows, range: RECENT_SPREAD });
        const u = await load(url, durationS, { head: rows, range: OLD_SPREAD });
        const b = await load(bareUrl, durationS);
        for (const [k, v] of [
          ['oddsbase', o],
          ['recent', r],
          ['uncached', u],
        ] as const) {
          out[k].rps.push(v.rps);
          out[k].p50.push(v.p50);
          out[k].p99.push(v.p99);
        }
        out.bare.rps.push(b.rps);
        log(
          `  ${int(rows)} rows, round ${i + 1}: same cursor ${int(o.rps)} req/s (p50 ${o.p50} ms), ` +
            `recent ${int(r.rps)} req/s (p50 ${r.p50} ms), old ${int(u.rps)} req/s (p50 ${u.p50} ms), ` +
            `bare ${int(b.rps)} req/s`,
        );
      }
      if (previous) pinSelf(previous);
      return out;
    } finally {
      await bare?.stop();
      await server.stop();
    }
  } finally {
    removeDir(dataDir);
  }
}

export async function runDelta(sizes: number[], rounds = 3, durationS = 8): Promise<SizeResult[]> {
  const out: SizeResult[] = [];
  for (const n of sizes) out.push(await measure(n, rounds, durationS));
  return out;
}

export function deltaMarkdown(results: SizeResult[]): string {
  const lines = [
    `### Markets delta, a ${int(POLL)}-row poll (10 connections, medians)`,
    '',
    '| log size | cursor | req/s | p50 ms | p99 ms | / bare |',
    '|---:|---|---:|---:|---:|---:|',
  ];
  for (const r of results) {
    const bare = median(r.bare.rps);
    for (const [label, x] of [
      ['same', r.oddsbase],
      [`recent (newest ${int(RECENT_SPREAD)})`, r.recent],
      [`old (up to ${int(OLD_SPREAD)} back, SQLite)`, r.uncached],
    ] as const) {
      lines.push(
        `| ${int(r.rows)} | ${label} | ${int(median(x.rps))} | ${median(x.p50)} | ${median(x.p99)} | ` +
          `${pct(median(x.rps) / bare)} |`,
      );
    }
    lines.push(`| ${int(r.rows)} | bare node:http, same bytes | ${int(bare)} | | | |`);
  }
  lines.push(
    '',
    `- response ${results.map((r) => int(r.bytes)).join(' / ')} bytes`,
    `- target: oddsbase / bare >= ${pct(TARGET_RATIO)}, and no growth of the poll's cost with the log size`,
  );
  return lines.join('\n');
}

if (isMain(import.meta.url)) {
  const sizes = (arg('--sizes') ?? '1000000,10000000').split(',').map(Number);
  const results = await runDelta(sizes, Number(arg('--rounds') ?? 3), Number(arg('--duration') ?? 8));
  process.stdout.write(`${deltaMarkdown(results)}\n`);
}
