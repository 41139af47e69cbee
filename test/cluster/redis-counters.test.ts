import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, describe, it, type TestContext } from 'node:test';
import { Redis } from 'ioredis';
import { RedisCounters, type RedisCountersOptions } from '../../src/access/counters/redis-counters.ts';
import { until } from '../contract/bus.contract.ts';
import { countersContract } from '../contract/counters.contract.ts';
import { startRedis } from './services/redis.ts';

const redis = await startRedis();
after(() => redis.close());

/** Two nodes' counters on one Redis, under a prefix of their own. */
function nodes(now: () => number, options: Partial<RedisCountersOptions> = {}, count = 2) {
  const prefix = `test:${randomUUID()}:`;
  const errors: unknown[] = [];
  const list = Array.from(
    { length: count },
    () => new RedisCounters({ url: redis.url, driver: Redis, prefix, now, onError: (e) => errors.push(e), ...options }),
  );
  return {
    nodes: list,
    errors,
    /** Each node's changes reach Redis, then each node sees everything before its own barrier. */
    async settle() {
      for (const c of list) await c.settled();
      for (const c of list) await c.settled();
    },
    async cleanup() {
      for (const c of list) await c.close();
    },
  };
}

countersContract('Redis, two nodes on one server', async (now) => {
  const f = nodes(now);
  await Promise.all(f.nodes.map((c) => c.ready()));
  return f;
});

describe('Redis counters: failures', () => {
  const HOUR = 3_600_000;

  async function pair(t: TestContext, options: Partial<RedisCountersOptions> = {}) {
    const f = nodes(Date.now, options);
    t.after(() => f.cleanup());
    await Promise.all(f.nodes.map((c) => c.ready()));
    return f;
  }

  it('counting never waits on Redis: with Redis stopped, values go on and reach it when it is back', async (t) => {
    const f = await pair(t, { redis: { retryStrategy: () => 50 } });
    const [a, b] = f.nodes as [RedisCounters, RedisCounters];
    const exp = Date.now() + HOUR;
    a.incr('use:k', 5, exp);
    await f.settle();
    assert.equal(b.get('use:k'), 5);
    await redis.stop();
    const started = process.hrtime.bigint();
    for (let i = 0; i < 1000; i++) a.incr('use:k', 1, exp);
    b.incr('use:k', 10, exp);
    const tookMs = Number(process.hrtime.bigint() - started) / 1e6;
    assert.ok(tookMs < 100, `1,001 increments took ${tookMs} ms`);
    assert.equal(a.get('use:k'), 1005);
    assert.equal(b.get('use:k'), 15);
    // Redis comes back empty: the nodes fill it from their views, then add what waited.
    await redis.start();
    await until(() => a.get('use:k') === 1015 && b.get('use:k') === 1015, 10_000, 'the exchange after the restart');
    await f.settle();
    assert.equal(a.get('use:k'), 1015);
    assert.equal(b.get('use:k'), 1015);
    assert.ok(f.errors.length > 0, 'the outage was reported');
  });

  it("a node whose subscription dropped catches up on the others' changes", async (t) => {
    const f = await pair(t, { redis: { connectionName: 'counting' } });
    const [a, b] = f.nodes as [RedisCounters, RedisCounters];
    const exp = Date.now() + HOUR;
    a.incr('use:s', 1, exp);
    await f.settle();
    const admin = new Redis(redis.url);
    t.after(() => admin.disconnect());
    // Both nodes' subscriptions drop; each goes on counting.
    await admin.call('CLIENT', 'KILL', 'TYPE', 'pubsub');
    for (let i = 0; i < 100; i++) {
      a.incr('use:s', 1, exp);
      b.incr('use:s', 2, exp);
    }
    await until(() => a.get('use:s') === 301 && b.get('use:s') === 301, 10_000, 'both views at 301');
  });
});
