/**
 * Requests while the background part of a first fill runs, against the same server once its history
 * is complete: a fresh server (npm start's flags) is polled on the events snapshot by autocannon in
 * rounds of `--duration` seconds from the moment it serves until its `/readyz` history is
 * `complete`, then for `--after` rounds more. With `--before DIR` (another checkout of oddsbase),
 * that checkout's server is measured first, then this one's, so both see about the same load.
 * Prints each round and, per checkout, the medians during and after the fill.
 *
 *   node --import tsx bench/fill-share.ts [--duration 5] [--after 3] [--before DIR]
 */
import autocannon from 'autocannon';
import { loadavg } from 'node:os';
import {
  arg,
  cleanupOnSignal,
  freePort,
  historyComplete,
  int,
  median,
  ROOT,
  sleep,
  startOddsbase,
  todayUtc,
} from './lib.ts';

const durationS = Number(arg('--duration') ?? 5) || 5;
const afterRounds = Number(arg('--after') ?? 3) || 3;
const before = arg('--before');

interface Round {
  rps: number;
  p99: number;
  errors: number;
}

async function round(url: string, key: string): Promise<Round> {
  const r = await autocannon({
    url,
    connections: 16,
    duration: durationS,
    headers: { 'X-Service-Key': key },
    timeout: 10,
  });
  return { rps: r.requests.average, p99: r.latency.p99, errors: r.errors + r.timeouts + r.non2xx };
}

async function measure(name: string, checkout: string): Promise<{ during: Round[]; after: Round[] }> {
  // A key without a per-second ceiling (Ultra's is 10): the server's capacity is measured, not the limit.
  const server = await startOddsbase({
    port: await freePort(),
    history: false,
    checkout,
    tier: 'enterprise',
    burstPerSecond: 1_000_000_000,
  });
  const url = `${server.url}/api/v2/sports/4/events/${todayUtc()}`;
  const undo = cleanupOnSignal(() => server.close());
  const during: Round[] = [];
  const after: Round[] = [];
  const show = (phase: string, r: Round) =>
    console.log(
      `${name} ${phase}: ${int(r.rps)} req/s, p99 ${r.p99} ms, ${r.errors} errors (load ${loadavg()[0]!.toFixed(1)})`,
    );
  try {
    while (!(await historyComplete(server.url))) {
      const r = await round(url, server.key);
      // A round that the fill's end fell into is neither.
      if (await historyComplete(server.url)) break;
      during.push(r);
      show('during the fill', r);
    }
    // The compaction after the fill, if any, is left out: it runs once.
    await sleep(5000);
    for (let i = 0; i < afterRounds; i++) {
      const r = await round(url, server.key);
      after.push(r);
      show('after the fill', r);
    }
  } finally {
    undo();
    await server.close();
  }
  return { during, after };
}

const checkouts = before ? [['before', before] as const, ['after', ROOT] as const] : [['this', ROOT] as const];
const results: [string, { during: Round[]; after: Round[] }][] = [];
for (const [name, checkout] of checkouts) results.push([name, await measure(name, checkout)]);
for (const [name, { during, after }] of results) {
  const m = (rs: Round[], k: keyof Round) => median(rs.map((r) => r[k]));
  console.log(
    `median ${name}: during the fill ${int(m(during, 'rps'))} req/s, p99 ${m(during, 'p99')} ms (${during.length} rounds); ` +
      `after ${int(m(after, 'rps'))} req/s, p99 ${m(after, 'p99')} ms (${after.length} rounds)`,
  );
}
