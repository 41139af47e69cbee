/**
 * Latency of the plays route on one live event with 1,000 plays (issue target: p99 under 20 ms).
 *
 *   node --import tsx bench/plays.ts
 *
 * The event and its plays are written through the real Ledger into a temporary directory (each play
 * two points or a rebound by one of four players, rotationPlay of the test fixtures, so every play
 * also writes its stat rows). The app
 * listens on 127.0.0.1; pages of 500 plays at spread `before_sequence` positions are requested one
 * after another, after a warm-up, and their latency is measured at the client.
 */
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { generateKey, newKeyRecord } from '../src/access/keys.ts';
import { compose } from '../src/compose.ts';
import { resolveServeConfig } from '../src/config.ts';
import type { Update } from '../src/ledger/updates.ts';
import { nbaEvent, rotationPlay, score } from '../test/helpers/fixtures.ts';
import { isMain, log, makeTmpDir, removeDir } from './lib.ts';

const PLAYS = 1000;
const REQUESTS = 1000;
const WARMUP = 50;
export const TARGET_P99_MS = 20;
const EVENT_ID = 'play'.padEnd(32, '0');
export interface PlaysResult {
  plays: number;
  bytes: number;
  p50: number;
  p99: number;
  max: number;
  met: boolean;
}

const percentile = (sorted: readonly number[], p: number): number =>
  sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))]!;

export async function runPlays(): Promise<PlaysResult> {
  const dir = makeTmpDir('plays');
  const services = await compose(resolveServeConfig({ dataDir: dir, simulator: false, logLevel: 'silent' }, {}));
  const { ledger, keys, app } = services;
  const key = generateKey();
  await keys.insert(
    newKeyRecord(key, 'enterprise', { label: 'bench', custom: JSON.stringify({ burstPerSecond: 1e9 }) }),
  );
  try {
    const at = new Date(Date.now() - 3_600_000).toISOString();
    const updates: Update[] = [
      { kind: 'event', event: nbaEvent(EVENT_ID) },
      { kind: 'score', event_id: EVENT_ID, score: score(EVENT_ID, 'STATUS_IN_PROGRESS', 0, 0) },
    ];
    let now = { away: 0, home: 0 };
    for (let n = 1; n <= PLAYS; n++) {
      const p = rotationPlay(n, now);
      now = { away: p.score_away, home: p.score_home };
      updates.push({ kind: 'play', event_id: EVENT_ID, play: p });
    }
    updates.push({
      kind: 'score',
      event_id: EVENT_ID,
      score: score(EVENT_ID, 'STATUS_IN_PROGRESS', now.away, now.home),
    });
    await ledger.apply({ at, updates });
    await app.listen({ port: 0, host: '127.0.0.1' });
    try {
      const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
      let bytes = 0;
      const get = async (i: number) => {
        // Pages ending anywhere in the event, most of them full (500 plays).
        const before = 2 + ((i * 37) % (PLAYS - 1));
        const res = await fetch(`${base}/api/v2/events/${EVENT_ID}/plays?before_sequence=${before}`, {
          headers: { 'X-Service-Key': key },
        });
        const body = await res.arrayBuffer();
        if (res.status !== 200) throw new Error(`plays: ${res.status} ${Buffer.from(body).toString()}`);
        bytes = Math.max(bytes, body.byteLength);
      };
      for (let i = 0; i < WARMUP; i++) await get(i);
      const times: number[] = [];
      for (let i = 0; i < REQUESTS; i++) {
        const t = performance.now();
        await get(i);
        times.push(performance.now() - t);
      }
      times.sort((a, b) => a - b);
      const p99 = percentile(times, 99);
      log(`plays: ${REQUESTS} pages measured`);
      return { plays: PLAYS, bytes, p50: percentile(times, 50), p99, max: times.at(-1)!, met: p99 < TARGET_P99_MS };
    } finally {
      await app.close();
    }
  } finally {
    await services.close();
    removeDir(dir);
  }
}

export function playsMarkdown(r: PlaysResult): string {
  return [
    `### Plays pages (one live event with ${r.plays} plays)`,
    '',
    '| requests | largest page | p50 ms | p99 ms | max ms |',
    '|---:|---:|---:|---:|---:|',
    `| ${REQUESTS} | ${r.bytes} B | ${r.p50.toFixed(2)} | ${r.p99.toFixed(2)} | ${r.max.toFixed(2)} |`,
    '',
    `- sequential requests after ${WARMUP} warm-up, latency measured at the client`,
    `- p99 < ${TARGET_P99_MS} ms: ${r.met ? 'met' : '**missed**'}`,
    '',
  ].join('\n');
}

if (isMain(import.meta.url)) {
  const r = await runPlays();
  process.stdout.write(`${playsMarkdown(r)}\n`);
}
