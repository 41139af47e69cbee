/**
 * What the Redis counters cost the request path: the access layer's per-request work (burst
 * ceiling, caps, metering) on the embedded counters (MemoryCounters, LocalBursts) and on the
 * shared ones (RedisCounters, SharedBursts, exchanging with a Redis of its own), side by side.
 *
 *   node --import tsx bench/shared-counters.ts [--rounds 5] [--requests 200000]
 *
 * Each round serves the same number of admit + meter calls to 100 Enterprise keys, in slices of
 * 500 calls with a turn of the event loop between them, so that the Redis counters' exchanges run
 * as they would between requests. The figure is this process's CPU per call, exchanges included
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
import { startRedis } from '../test/cluster/services/redis.ts';
import { arg, isMain, log, median } from './lib.ts';

const SLICE = 500;
const NO_HEADERS = { header: () => undefined };

async function serve(counters: SavedCounters, bursts: BurstCounter, requests: number): Promise<number> {
  const access = new AccessControl(counters, Date.now, () => {}, bursts);
  const accounts = Array.from({ length: 100 }, () =>
    accountOf(newKeyRecord(generateKey(), 'enterprise', { custom: JSON.stringify({ burstPerSecond: 1_000_000 }) })),
  );
  const cpu0 = process.cpuUsage();
  for (let done = 0; done < requests; done += SLICE) {
    for (let i = 0; i < SLICE; i++) {
      const a = accounts[(done + i) % accounts.length]!;
      if (access.admit(a, true) === undefined) access.meter(a, 1, NO_HEADERS);
    }
    await new Promise((r) => setImmediate(r));
  }
  const cpu = process.cpuUsage(cpu0);
  return ((cpu.user + cpu.system) * 1000) / requests;
}

export async function runSharedCounters(rounds = 5, requests = 200_000) {
  const redis = await startRedis();
  const memoryNs: number[] = [];
  const redisNs: number[] = [];
  try {
    for (let r = 0; r < rounds; r++) {
      const memory = new MemoryCounters();
      memoryNs.push(await serve(memory, new LocalBursts(), requests));
      const shared = new RedisCounters({
        url: redis.url,
        driver: Redis,
        prefix: `bench:${r}:`,
        unsaved: isBurstCounter,
      });
      await shared.ready();
      redisNs.push(await serve(shared, new SharedBursts(shared), requests));
      await shared.settled();
      await shared.close();
      log(
        `round ${r + 1}: memory ${Math.round(memoryNs.at(-1)!)} ns, Redis ${Math.round(redisNs.at(-1)!)} ns a request`,
      );
    }
  } finally {
    await redis.close();
  }
  return { memoryNs: median(memoryNs), redisNs: median(redisNs) };
}

if (isMain(import.meta.url)) {
  const r = await runSharedCounters(Number(arg('--rounds') ?? 5), Number(arg('--requests') ?? 200_000));
  log(
    `median: memory ${Math.round(r.memoryNs)} ns, Redis ${Math.round(r.redisNs)} ns of CPU a request (admit + meter)`,
  );
}
