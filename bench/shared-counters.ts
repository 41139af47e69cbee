/**
 * What the Redis counters cost the request path: the access layer's per-request work (burst
 * ceiling, caps, metering) on the embedded counters (MemoryCounters, LocalBursts) and on the
 * shared ones (RedisCounters, SharedBursts, exchanging with a Redis of its own), side by side.
 *
 *   node --import tsx bench/shared-counters.ts [--rounds 5] [--requests 200000] [--slice 500] [--every-ms 0]
 *
 * Each round serves the same number of admit + meter calls to 100 Enterprise keys, in slices of
 * `--slice` calls (500) with a turn of the event loop between them, so that the Redis counters'
 * exchanges run as they would between requests (`--slice 1`: a request a turn, as a server that is
 * not saturated serves them; `--every-ms N`: a timer of N ms between slices instead). The Redis counters run twice: sending as soon as the previous send
 * is answered (`sendGapMs` 0) and with compose's default gap between sends (20 ms). The figure is this process's CPU per call, exchanges included
 * (the Redis server's own CPU is not counted: it is another process, as in a deployment).
 */
import { Redis } from 'ioredis';
import { AccessControl } from '../src/access/access-control.ts';
import { accountOf } from '../src/access/authenticator.ts';
import { type BurstCounter, isBurstCounter, LocalBursts, SharedBursts } from '../src/access/bursts.ts';
import type { SavedCounters } from '../src/access/counters/counters.ts';
import { MemoryCounters } from '../src/access/counters/memory-counters.ts';
import { RedisCounters } from '../src/access/counters/redis-counters.ts';
import { generateKey, newKeyRecord } from '../src/access/keys.ts';
import { DEFAULT_LIMITS } from '../src/config.ts';
import { startRedis } from '../test/cluster/services/redis.ts';
import { arg, isMain, log, median, sleep } from './lib.ts';

const NO_HEADERS = { header: () => undefined };

async function serve(
  counters: SavedCounters,
  bursts: BurstCounter,
  requests: number,
  slice: number,
  pause: () => Promise<unknown>,
): Promise<number> {
  const access = new AccessControl(counters, Date.now, () => {}, bursts);
  const accounts = Array.from({ length: 100 }, () =>
    accountOf(newKeyRecord(generateKey(), 'enterprise', { custom: JSON.stringify({ burstPerSecond: 1_000_000 }) })),
  );
  const cpu0 = process.cpuUsage();
  for (let done = 0; done < requests; done += slice) {
    for (let i = 0; i < slice; i++) {
      const a = accounts[(done + i) % accounts.length]!;
      if (access.admit(a, true) === undefined) access.meter(a, 1, NO_HEADERS);
    }
    await pause();
  }
  const cpu = process.cpuUsage(cpu0);
  return ((cpu.user + cpu.system) * 1000) / requests;
}

/** The gap compose gives the Redis counters by default (`counterSendGapMs`). */
const DEFAULT_GAP_MS = DEFAULT_LIMITS.counterSendGapMs;

export async function runSharedCounters(rounds = 5, requests = 200_000, slice = 500, everyMs = 0) {
  // A turn of the loop between slices, or a timer's wait: requests spread in time as a server's are.
  const pause = everyMs > 0 ? () => sleep(everyMs) : () => new Promise((r) => setImmediate(r));
  const redis = await startRedis();
  const memoryNs: number[] = [];
  const redisNs: number[] = [];
  const redisGapNs: number[] = [];
  try {
    for (let r = 0; r < rounds; r++) {
      const memory = new MemoryCounters();
      memoryNs.push(await serve(memory, new LocalBursts(), requests, slice, pause));
      for (const [gap, out] of [
        [0, redisNs],
        [DEFAULT_GAP_MS, redisGapNs],
      ] as const) {
        const shared = new RedisCounters({
          url: redis.url,
          driver: Redis,
          prefix: `bench:${r}:${gap}:`,
          unsaved: isBurstCounter,
          sendGapMs: gap,
        });
        await shared.ready();
        out.push(await serve(shared, new SharedBursts(shared), requests, slice, pause));
        await shared.settled();
        await shared.close();
      }
      log(
        `round ${r + 1}: memory ${Math.round(memoryNs.at(-1)!)} ns, Redis ${Math.round(redisNs.at(-1)!)} ns, Redis with a ${DEFAULT_GAP_MS} ms gap ${Math.round(redisGapNs.at(-1)!)} ns a request`,
      );
    }
  } finally {
    await redis.close();
  }
  return { memoryNs: median(memoryNs), redisNs: median(redisNs), redisGapNs: median(redisGapNs) };
}

if (isMain(import.meta.url)) {
  const r = await runSharedCounters(
    Number(arg('--rounds') ?? 5),
    Number(arg('--requests') ?? 200_000),
    Number(arg('--slice') ?? 500),
    Number(arg('--every-ms') ?? 0),
  );
  log(
    `median: memory ${Math.round(r.memoryNs)} ns, Redis ${Math.round(r.redisNs)} ns, Redis with a ${DEFAULT_GAP_MS} ms gap ${Math.round(r.redisGapNs)} ns of CPU a request (admit + meter)`,
  );
}
