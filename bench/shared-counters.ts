/**
 * What the Redis counters cost the request path: the access layer's per-request work (burst
 * ceiling, caps, metering) on the embedded counters (MemoryCounters, LocalBursts) and on the
 * shared ones (RedisCounters, SharedBursts, exchanging with a Redis of its own), side by side.
 *
 *   node --import tsx bench/shared-counters.ts [--rounds 5] [--requests 200000] [--slice 500] [--every-ms 0] [--keys 100]
 *
 * Each round serves the same number of admit + meter calls to `--keys` Enterprise keys (100) with
 * no per-second ceiling, in slices of `--slice` calls (500) with a turn of the event loop between
 * them, so that the Redis counters' exchanges run as they would between requests (`--slice 1`: a
 * request a turn, as a server that is not saturated serves them; `--every-ms N`: a timer of N ms
 * between slices instead; `--slice 50 --every-ms 20`: 2,500 a second). The Redis counters run
 * three times: sending as soon as the previous send is answered (gaps 0), 20 ms apart whatever
 * the limits, and with compose's default gaps (20 ms near a limit, 250 ms otherwise: these keys are
 * far from theirs). The figure is this process's CPU per call, exchanges included (the Redis
 * server's own CPU is not counted: it is another process, as in a deployment).
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
  keys: number,
): Promise<number> {
  const access = new AccessControl(counters, Date.now, () => {}, bursts);
  const accounts = Array.from({ length: keys }, () =>
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

/** The gaps compose gives the Redis counters by default (`counterSendGapMs`, `counterFarSendGapMs`). */
const NEAR_MS = DEFAULT_LIMITS.counterSendGapMs;
const FAR_MS = DEFAULT_LIMITS.counterFarSendGapMs;

export async function runSharedCounters(rounds = 5, requests = 200_000, slice = 500, everyMs = 0, keys = 100) {
  // A turn of the loop between slices, or a timer's wait: requests spread in time as a server's are.
  const pause = everyMs > 0 ? () => sleep(everyMs) : () => new Promise((r) => setImmediate(r));
  const redis = await startRedis();
  const memoryNs: number[] = [];
  const redisNs: number[] = [];
  const redisGapNs: number[] = [];
  const redisFarNs: number[] = [];
  try {
    for (let r = 0; r < rounds; r++) {
      const memory = new MemoryCounters();
      memoryNs.push(await serve(memory, new LocalBursts(), requests, slice, pause, keys));
      for (const [near, far, out] of [
        [0, 0, redisNs],
        [NEAR_MS, NEAR_MS, redisGapNs],
        [NEAR_MS, FAR_MS, redisFarNs],
      ] as const) {
        const shared = new RedisCounters({
          url: redis.url,
          driver: Redis,
          prefix: `bench:${r}:${near}:${far}:`,
          unsaved: isBurstCounter,
          sendGapMs: near,
          farSendGapMs: far,
        });
        await shared.ready();
        out.push(await serve(shared, new SharedBursts(shared), requests, slice, pause, keys));
        await shared.settled();
        await shared.close();
      }
      log(
        `round ${r + 1}: memory ${Math.round(memoryNs.at(-1)!)} ns, Redis ${Math.round(redisNs.at(-1)!)} ns, ${NEAR_MS} ms apart ${Math.round(redisGapNs.at(-1)!)} ns, ${NEAR_MS}/${FAR_MS} ms ${Math.round(redisFarNs.at(-1)!)} ns a request`,
      );
    }
  } finally {
    await redis.close();
  }
  return {
    memoryNs: median(memoryNs),
    redisNs: median(redisNs),
    redisGapNs: median(redisGapNs),
    redisFarNs: median(redisFarNs),
  };
}

if (isMain(import.meta.url)) {
  const r = await runSharedCounters(
    Number(arg('--rounds') ?? 5),
    Number(arg('--requests') ?? 200_000),
    Number(arg('--slice') ?? 500),
    Number(arg('--every-ms') ?? 0),
    Number(arg('--keys') ?? 100),
  );
  log(
    `median: memory ${Math.round(r.memoryNs)} ns, Redis without a gap ${Math.round(r.redisNs)} ns, ${NEAR_MS} ms apart ${Math.round(r.redisGapNs)} ns, ${NEAR_MS} ms near a limit and ${FAR_MS} ms otherwise ${Math.round(r.redisFarNs)} ns of CPU a request (admit + meter)`,
  );
}
