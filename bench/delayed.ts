/**
 * Delayed plans as users meet them (issue: a Free key's first request used to build a copy of the
 * board on the request path and kill `npm start`'s server). The server runs as `npm start` runs it
 * (its node flags, the live simulator, a fresh data directory), then:
 *
 * 1. A paced real-time load: 20 Ultra keys at 8 requests a second each on the NBA events snapshot,
 *    every latency recorded. A baseline phase of it alone, then the same load while, for each
 *    delayed tier (Free, Starter, Pro), 40 fresh keys each send their first request (spread over the
 *    phase): those first requests' latencies, and the Ultra latencies meanwhile.
 * 2. Throughout, one key of every tier polls the events snapshot once a second, and the server's RSS
 *    is sampled once a second.
 *
 *   node --import tsx bench/delayed.ts [--seconds 20]
 *
 * Targets: first requests of delayed plans at p99 < 100 ms; RSS < 400 MB throughout.
 */
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { TIERS } from '../src/catalog/tiers.ts';
import {
  cleanupOnSignal,
  createKey,
  freePort,
  int,
  isMain,
  log,
  mb,
  median,
  type ServerChild,
  sleep,
  startOddsbase,
  todayUtc,
} from './lib.ts';

const TARGET_FIRST_P99_MS = 100;
const TARGET_RSS = 400 * 1024 * 1024;
const ULTRA_KEYS = 20;
const ULTRA_RATE = 8;
const FIRSTS_PER_TIER = 40;
const DELAYED = ['free', 'starter', 'pro'] as const;

function rssOf(pid: number): number {
  const m = /^VmRSS:\s+(\d+)\s+kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) * 1024 : 0;
}

function percentile(xs: readonly number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))] ?? 0;
}

/** One request; its latency in ms and whether it answered 200 with a JSON body. */
async function timed(url: string, key: string): Promise<{ ms: number; ok: boolean; status: number }> {
  const t = performance.now();
  try {
    const res = await fetch(url, { headers: { 'X-Service-Key': key }, signal: AbortSignal.timeout(15_000) });
    await res.arrayBuffer();
    return { ms: performance.now() - t, ok: res.status === 200, status: res.status };
  } catch {
    return { ms: performance.now() - t, ok: false, status: 0 };
  }
}

/** Each key sends `rate` requests a second until `until`, paced; every latency is kept. */
async function paced(
  url: string,
  keys: readonly string[],
  rate: number,
  until: number,
  into: number[],
  errors: { n: number; statuses: Set<number> },
) {
  await Promise.all(
    keys.map(async (key, k) => {
      // Keys start spread over the first interval, so the load is even.
      await sleep((k / keys.length) * (1000 / rate));
      for (let next = performance.now(); Date.now() < until;) {
        const r = await timed(url, key);
        if (r.ok) into.push(r.ms);
        else {
          errors.n++;
          errors.statuses.add(r.status);
        }
        // Never a burst to catch up after a slow answer: the keys stay under their per-second ceiling.
        next = Math.max(next + 1000 / rate, performance.now());
        await sleep(next - performance.now());
      }
    }),
  );
}

export interface DelayedResult {
  seconds: number;
  ultraBaseline: { p50: number; p99: number; n: number };
  ultraDuring: { p50: number; p99: number; n: number };
  firsts: Record<string, { p50: number; p99: number; max: number; n: number; failed: number }>;
  pollErrors: number;
  ultraErrors: number;
  /** HTTP statuses of the failed Ultra requests (0: no answer). */
  ultraErrorStatuses: number[];
  rssPeak: number;
  rssMedian: number;
  head: number;
  nodeFlags: string[];
  met: boolean;
}

export async function runDelayed(opts: { seconds?: number } = {}): Promise<DelayedResult> {
  const seconds = opts.seconds ?? 20;
  let server: ServerChild | undefined;
  const undo = cleanupOnSignal(async () => server?.close());
  try {
    log('delayed: starting oddsbase as npm start does, on a fresh data directory');
    server = await startOddsbase({ port: await freePort(), cpu: '0' });
    const s = server;
    const url = `${s.url}/api/v2/sports/4/events/${todayUtc()}`;
    const ultra = Array.from({ length: ULTRA_KEYS }, () => createKey(s.dataDir, 'ultra'));
    const pollers = TIERS.map((t) => createKey(s.dataDir, t));
    const firstKeys = Object.fromEntries(
      DELAYED.map((t) => [t, Array.from({ length: FIRSTS_PER_TIER }, () => createKey(s.dataDir, t))]),
    );
    log(`delayed: ${ULTRA_KEYS + pollers.length + DELAYED.length * FIRSTS_PER_TIER} keys created`);

    const rss: number[] = [];
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        rss.push(rssOf(s.child.pid));
        await sleep(1000);
      }
    })();
    let pollErrors = 0;
    const polling = (async () => {
      while (sampling) {
        const rs = await Promise.all(pollers.map((k) => timed(url, k)));
        pollErrors += rs.filter((r) => !r.ok).length;
        await sleep(1000);
      }
    })();

    const baseline: number[] = [];
    const ultraErrors = { n: 0, statuses: new Set<number>() };
    log(`delayed: baseline, ${ULTRA_KEYS} Ultra keys at ${ULTRA_RATE}/s for ${seconds} s`);
    await paced(url, ultra, ULTRA_RATE, Date.now() + seconds * 1000, baseline, ultraErrors);

    log('delayed: the same load while fresh keys of every delayed tier send their first request');
    const during: number[] = [];
    const until = Date.now() + seconds * 1000;
    const firsts: DelayedResult['firsts'] = {};
    await Promise.all([
      paced(url, ultra, ULTRA_RATE, until, during, ultraErrors),
      ...DELAYED.map(async (tier, ti) => {
        const ms: number[] = [];
        let failed = 0;
        const keys = firstKeys[tier]!;
        for (let i = 0; i < keys.length; i++) {
          // Spread over the phase, the tiers interleaved.
          await sleep(((seconds * 1000) / keys.length) * (i === 0 ? ti / DELAYED.length : 1));
          const r = await timed(url, keys[i]!);
          if (r.ok) ms.push(r.ms);
          else failed++;
        }
        firsts[tier] = { p50: median(ms), p99: percentile(ms, 99), max: Math.max(...ms), n: ms.length, failed };
      }),
    ]);
    sampling = false;
    await Promise.all([sampler, polling]);
    const head = Number(
      (
        (await (await fetch(url, { headers: { 'X-Service-Key': ultra[0]! } })).json()) as {
          meta: { delta_last_id: string };
        }
      ).meta.delta_last_id,
    );
    const stat = (xs: number[]) => ({ p50: median(xs), p99: percentile(xs, 99), n: xs.length });
    const rssPeak = Math.max(...rss);
    const met =
      rssPeak < TARGET_RSS && Object.values(firsts).every((f) => f.failed === 0 && f.p99 < TARGET_FIRST_P99_MS);
    return {
      seconds,
      ultraBaseline: stat(baseline),
      ultraDuring: stat(during),
      firsts,
      pollErrors,
      ultraErrors: ultraErrors.n,
      ultraErrorStatuses: [...ultraErrors.statuses],
      rssPeak,
      rssMedian: median(rss),
      head,
      nodeFlags: s.nodeFlags,
      met,
    };
  } finally {
    undo();
    await server?.close();
  }
}

export function delayedMarkdown(r: DelayedResult): string {
  const ms = (x: number) => `${x.toFixed(1)} ms`;
  return [
    `### Delayed plans: first requests under real-time load, every tier polling (${r.seconds} s phases)`,
    '',
    '| requests | n | p50 | p99 |',
    '|---|---:|---:|---:|',
    `| Ultra, baseline (${ULTRA_KEYS} keys × ${ULTRA_RATE}/s) | ${int(r.ultraBaseline.n)} | ${ms(r.ultraBaseline.p50)} | ${ms(r.ultraBaseline.p99)} |`,
    `| Ultra, while delayed keys make their first request | ${int(r.ultraDuring.n)} | ${ms(r.ultraDuring.p50)} | ${ms(r.ultraDuring.p99)} |`,
    ...Object.entries(r.firsts).map(
      ([tier, f]) =>
        `| first request of a fresh ${tier} key | ${f.n} (${f.failed} failed) | ${ms(f.p50)} | ${ms(f.p99)} (max ${ms(f.max)}) |`,
    ),
    '',
    `- server: \`node ${r.nodeFlags.join(' ')} bin/oddsbase.js serve\` (npm start's flags), live simulator, fresh data directory; ${int(r.head)} changes at the end`,
    `- one key of every tier polled the events snapshot once a second throughout: ${r.pollErrors} failed polls; Ultra load errors: ${r.ultraErrors}${r.ultraErrors ? ` (statuses ${r.ultraErrorStatuses.join(', ')})` : ''}`,
    `- RSS (1 s samples over both phases): median ${mb(r.rssMedian)}, peak ${mb(r.rssPeak)} (target < ${mb(TARGET_RSS)})`,
    `- targets (first requests p99 < ${TARGET_FIRST_P99_MS} ms, RSS < ${mb(TARGET_RSS)}): ${r.met ? 'met' : '**missed**'}`,
    '',
  ].join('\n');
}

if (isMain(import.meta.url)) {
  const args = process.argv.slice(2);
  const i = args.indexOf('--seconds');
  const r = await runDelayed({ seconds: i >= 0 ? Number(args[i + 1]) : 20 });
  process.stdout.write(`${delayedMarkdown(r)}\n`);
}
