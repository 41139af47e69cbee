/**
 * A markets-delta poll of 5,000 rows against a bare node:http server returning the same bytes, on
 * change logs of 1 M and 10 M rows: the poll's cost must not grow with the size of the log.
 *
 *   node --import tsx bench/delta.ts [--sizes 1000000,10000000] [--rounds 3] [--duration 8] [--before DIR [--together]]
 *
 * The log is written straight into the store's `changes` table (rows shaped and sized as the
 * ledger writes them), then a server opens it, bundled and with npm start's node flags as the
 * server is shipped (bin/bundle.js). Three ways to poll 5,000 rows, each against the same bare
 * server:
 * - same cursor: every request asks for the rows just below the head (clients following the feed),
 *   sliced from memory at every request (only pages read from the store are kept);
 * - recent cursor: every request a different cursor within the newest 20,000 rows, all inside the
 *   window the server keeps serialised in memory (8 MB, about 20,900 of these rows);
 * - old cursor: every request a different cursor up to 500,000 rows back, read from SQLite.
 * No cursor repeats within a run, so no page read from the store is served from the page cache.
 * Servers are pinned to CPU 0, autocannon to CPU 1. Besides req/s (bound by the one core the server
 * and its page reader's thread share), each poll's server CPU time (all threads) is measured.
 *
 * With `--before DIR` (another checkout of oddsbase, with its node_modules), the log is written
 * once for each checkout with that checkout's schema, both servers run, and each round loads them
 * in turn, the order alternating from round to round, so that both see the same machine. With
 * `--together` as well, both are loaded at the same time, each by connections of its own, sharing
 * CPU 0: on a busy machine the other load then falls on both alike, and CPU a poll is the figure
 * (each server's req/s is what it gets of the core beside the other).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import autocannon from 'autocannon';
import { bundle } from '../bin/bundle.js';
import { openSqlite } from '../src/store/sqlite/database.ts';
import {
  arg,
  type Child,
  cpuSeconds,
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
  ROOT,
  spawnNode,
  startScriptNodeFlags,
  waitForHttp,
} from './lib.ts';

export const TARGET_RATIO = 0.5;
const POLL = 5000;

/** The three ways to poll, in the order each round runs them. */
const CURSORS = ['same', 'recent', 'old'] as const;
type Cursor = (typeof CURSORS)[number];

interface Series {
  rps: number[];
  p50: number[];
  p99: number[];
  /** Server CPU time a request, all threads, ms. */
  cpuMs: number[];
}

/** One checkout's server. */
interface Side {
  name: string;
  series: Record<Cursor, Series>;
}

interface SizeResult {
  rows: number;
  bytes: number;
  /** This checkout's server, or the before's and this one's with `--before`. */
  sides: Side[];
  bare: { rps: number[] };
}

/** How far back the recent and the old cursors reach, below the newest full page. */
const SPREAD: Record<Cursor, number> = { same: 0, recent: 15_000, old: 500_000 };

const eventIdOf = (e: number): string => `${e.toString(16).padStart(2, '0')}${'ab'.repeat(15)}`;

type OpenSqlite = typeof openSqlite;

/** Fills `changes` with `n` price rows over 2,000 prices of 20 events, as the ledger would; `open` is the checkout's. */
function fill(open: OpenSqlite, dataDir: string, n: number): void {
  const db = open(dataDir);
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

/** A checkout's code: its store's opener and its server's bundle. */
async function checkoutCode(root: string): Promise<{ open: OpenSqlite; server: string }> {
  if (root === ROOT) return { open: openSqlite, server: await bundle('bench/store-server.ts') };
  const their = (file: string) => pathToFileURL(join(root, file)).href;
  const { openSqlite: open } = (await import(their('src/store/sqlite/database.ts'))) as { openSqlite: OpenSqlite };
  const { bundle: theirBundle } = (await import(their('bin/bundle.js'))) as typeof import('../bin/bundle.js');
  return { open, server: await theirBundle('bench/store-server.ts') };
}

/**
 * Polls `url`'s server for `durationS`; with `cursor` other than same, each request at the next
 * cursor of `next` (counting on across calls, so a run never asks a cursor twice).
 */
async function load(url: string, durationS: number, rows: number, cursor: Cursor = 'same', next = { n: 0 }) {
  const range = SPREAD[cursor];
  const r = await autocannon({
    url: `${url}/api/v2/markets/delta?last_id=${rows - POLL}&limit=${POLL}`,
    connections: 10,
    duration: durationS,
    ...(range > 0
      ? {
          requests: [
            {
              setupRequest: (req: { path: string }) => {
                next.n = (next.n + 7919) % range;
                const last = rows - POLL - 1 - next.n;
                return { ...req, path: `/api/v2/markets/delta?last_id=${last}&limit=${POLL}` };
              },
            },
          ],
        }
      : {}),
  });
  if (r.non2xx + r.errors > 0) throw new Error(`${url}: ${r.non2xx + r.errors} failed requests`);
  return { rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, total: r.requests.total };
}

interface Served {
  name: string;
  child: Child;
  url: string;
  dataDir: string;
  /** Where each cursor's sequence stands. */
  next: Record<Cursor, { n: number }>;
  side: Side;
}

const emptySeries = (): Series => ({ rps: [], p50: [], p99: [], cpuMs: [] });

async function measure(
  rows: number,
  rounds: number,
  durationS: number,
  checkouts: readonly (readonly [string, string])[],
  together: boolean,
): Promise<SizeResult> {
  const served: Served[] = [];
  let bare: Child | undefined;
  const bareDir = makeTmpDir('delta-bare');
  try {
    for (const [name, root] of checkouts) {
      const { open, server } = await checkoutCode(root);
      const dataDir = makeTmpDir('delta');
      log(`delta: writing ${int(rows)} rows (${name})`);
      fill(open, dataDir, rows);
      const port = await freePort();
      const child = spawnNode([...startScriptNodeFlags(), server, dataDir, String(port), 'without'], {
        cpu: '0',
        cwd: root,
      });
      const side: Side = { name, series: { same: emptySeries(), recent: emptySeries(), old: emptySeries() } };
      served.push({
        name,
        child,
        url: `http://127.0.0.1:${port}`,
        dataDir,
        next: { same: { n: 0 }, recent: { n: 0 }, old: { n: 0 } },
        side,
      });
    }
    let body = '';
    for (const s of served) {
      const url = `${s.url}/api/v2/markets/delta?last_id=${rows - POLL}&limit=${POLL}`;
      await waitForHttp(url, s.child, 300_000, { history: false });
      const text = await (await fetch(url)).text();
      const parsed = JSON.parse(text) as { meta: { count: number } };
      if (parsed.meta.count !== POLL) throw new Error(`${s.name}: expected ${POLL} rows, got ${parsed.meta.count}`);
      body ||= text;
    }
    const barePort = await freePort();
    const bodyFile = join(bareDir, 'poll.json');
    writeFileSync(bodyFile, body);
    bare = spawnNode([await bundle('bench/bare-server.ts'), bodyFile, String(barePort)], { cpu: '0' });
    const bareUrl = `http://127.0.0.1:${barePort}`;
    await waitForHttp(`${bareUrl}/`, bare, 60_000, { history: false });
    const previous = pinSelf('1');
    // Warm-up, not counted: the routes' compilers, the JIT, and the page reader's thread (started
    // at the first read from the store).
    for (const s of served) {
      await load(s.url, 2, rows);
      await load(s.url, 1, rows, 'old', s.next.old);
    }
    await load(bareUrl, 2, rows);
    const out: SizeResult = {
      rows,
      bytes: Buffer.byteLength(body),
      sides: served.map((s) => s.side),
      bare: { rps: [] },
    };
    for (let i = 0; i < rounds; i++) {
      const order = i % 2 === 0 ? served : [...served].reverse();
      const said: string[] = [];
      for (const cursor of CURSORS) {
        // Together: every server loaded at once, so the machine's other load falls on each alike.
        const groups = together ? [order] : order.map((s) => [s]);
        for (const group of groups) {
          const cpu0 = group.map((s) => cpuSeconds(s.child.pid) ?? 0);
          const loads = await Promise.all(group.map((s) => load(s.url, durationS, rows, cursor, s.next[cursor])));
          group.forEach((s, j) => {
            const r = loads[j]!;
            const cpuMs = (((cpuSeconds(s.child.pid) ?? 0) - cpu0[j]!) * 1000) / Math.max(1, r.total);
            const x = s.side.series[cursor];
            x.rps.push(r.rps);
            x.p50.push(r.p50);
            x.p99.push(r.p99);
            x.cpuMs.push(cpuMs);
            said.push(
              `${served.length > 1 ? `${s.name} ` : ''}${cursor} ${int(r.rps)} req/s (${cpuMs.toFixed(2)} ms CPU)`,
            );
          });
        }
      }
      const b = await load(bareUrl, durationS, rows);
      out.bare.rps.push(b.rps);
      log(`  ${int(rows)} rows, round ${i + 1}: ${said.join(', ')}, bare ${int(b.rps)} req/s`);
    }
    if (previous) pinSelf(previous);
    return out;
  } finally {
    await bare?.stop();
    for (const s of served) {
      await s.child.stop();
      removeDir(s.dataDir);
    }
    removeDir(bareDir);
  }
}

/**
 * With `before` (another checkout's root), its server and this one's, loaded in turn, or with
 * `together` at the same time.
 */
export async function runDelta(
  sizes: number[],
  rounds = 3,
  durationS = 8,
  before?: string,
  together = false,
): Promise<SizeResult[]> {
  const checkouts = before
    ? ([
        ['before', before],
        ['this', ROOT],
      ] as const)
    : ([['this', ROOT]] as const);
  const out: SizeResult[] = [];
  for (const n of sizes) out.push(await measure(n, rounds, durationS, checkouts, together));
  return out;
}

const LABELS: Record<Cursor, string> = {
  same: 'same',
  recent: `recent (newest ${int(SPREAD.recent + POLL)}, memory)`,
  old: `old (up to ${int(SPREAD.old)} back, SQLite)`,
};

export function deltaMarkdown(results: SizeResult[]): string {
  const sided = results.some((r) => r.sides.length > 1);
  const lines = [
    `### Markets delta, a ${int(POLL)}-row poll (10 connections, medians)`,
    '',
    `| log size |${sided ? ' checkout |' : ''} cursor | req/s | p50 ms | p99 ms | server CPU ms a request | / bare |`,
    `|---:|${sided ? '---|' : ''}---|---:|---:|---:|---:|---:|`,
  ];
  for (const r of results) {
    const bare = median(r.bare.rps);
    for (const side of r.sides) {
      for (const cursor of CURSORS) {
        const x = side.series[cursor];
        lines.push(
          `| ${int(r.rows)} |${sided ? ` ${side.name} |` : ''} ${LABELS[cursor]} | ${int(median(x.rps))} | ` +
            `${median(x.p50)} | ${median(x.p99)} | ${median(x.cpuMs).toFixed(2)} | ${pct(median(x.rps) / bare)} |`,
        );
      }
    }
    lines.push(`| ${int(r.rows)} |${sided ? ' |' : ''} bare node:http, same bytes | ${int(bare)} | | | | |`);
  }
  if (sided) {
    lines.push(
      '',
      '| log size | cursor | this / before, req/s | this / before, CPU a request |',
      '|---:|---|---:|---:|',
    );
    for (const r of results) {
      const [before, after] = r.sides as [Side, Side];
      for (const cursor of CURSORS) {
        const ratio = (f: (s: Series) => number[]) =>
          (median(f(after.series[cursor])) / median(f(before.series[cursor]))).toFixed(3);
        lines.push(`| ${int(r.rows)} | ${cursor} | ${ratio((s) => s.rps)} | ${ratio((s) => s.cpuMs)} |`);
      }
    }
  }
  lines.push(
    '',
    `- response ${results.map((r) => int(r.bytes)).join(' / ')} bytes`,
    `- target: oddsbase / bare >= ${pct(TARGET_RATIO)}, and no growth of the poll's cost with the log size`,
  );
  return lines.join('\n');
}

if (isMain(import.meta.url)) {
  onlyKnownArgs(process.argv.slice(2), ['--sizes', '--rounds', '--duration', '--before'], ['--together']);
  const sizes = (arg('--sizes') ?? '1000000,10000000').split(',').map(Number);
  const results = await runDelta(sizes, Number(arg('--rounds') ?? 3), Number(arg('--duration') ?? 8), arg('--before'));
  process.stdout.write(`${deltaMarkdown(results)}\n`);
}
