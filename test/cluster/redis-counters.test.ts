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
    prefix,
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

// As compose configures them by default: each node's sends at least 20 ms apart near a ceiling, 250 ms otherwise.
countersContract('Redis, two nodes on one server, sends 20 or 250 ms apart', async (now) => {
  const f = nodes(now, { sendGapMs: 20, farSendGapMs: 250 });
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

describe('Redis counters: the gap between sends', () => {
  it('changes made within the gap go to Redis in one call; a barrier sends them at once', async (t) => {
    const GAP_MS = 3000;
    const f = nodes(Date.now, { sendGapMs: GAP_MS });
    t.after(() => f.cleanup());
    await Promise.all(f.nodes.map((c) => c.ready()));
    // Every value Redis published for the counter, in order.
    const published: number[] = [];
    const listener = new Redis(redis.url);
    t.after(() => listener.disconnect());
    listener.on('message', (_channel: string, text: string) => {
      const msg = JSON.parse(text) as { k: [string, number, number][] | Record<string, never> };
      for (const [key, value] of Array.isArray(msg.k) ? msg.k : [])
        if (key === `${f.prefix}use:g`) published.push(value);
    });
    await listener.subscribe(`${f.prefix}changes`);
    const [a, b] = f.nodes as [RedisCounters, RedisCounters];
    const exp = Date.now() + 3_600_000;
    a.incr('use:g', 1, exp);
    // Without a gap the first increment would be on its way by now and the second go after it.
    await new Promise((r) => setImmediate(r));
    await new Promise((r) => setImmediate(r));
    a.incr('use:g', 1, exp);
    await until(() => b.get('use:g') === 2 && published.length > 0, 10_000, 'the changes after the gap');
    assert.deepEqual(published, [2]);
    // The gap starts again with that send; a barrier does not wait for it.
    a.incr('use:g', 1, exp);
    const asked = Date.now();
    await a.settled();
    await b.settled();
    assert.ok(Date.now() - asked < GAP_MS / 2, `settled after ${Date.now() - asked} ms`);
    assert.equal(b.get('use:g'), 3);
    await until(() => published.length > 1, 5000, "the message of the barrier's call");
    assert.deepEqual(published, [2, 3]);
  });
});

describe('Redis counters: a far gap, cut short near a ceiling', () => {
  it('a change far from its ceiling waits the far gap; one near it, or a set, goes at the near gap with what waits', async (t) => {
    const FAR_MS = 5000;
    const f = nodes(Date.now, { sendGapMs: 20, farSendGapMs: FAR_MS });
    t.after(() => f.cleanup());
    await Promise.all(f.nodes.map((c) => c.ready()));
    const [a, b] = f.nodes as [RedisCounters, RedisCounters];
    // Each node has heard the other's first exchange: two nodes count.
    await f.settle();
    const exp = Date.now() + 3_600_000;
    const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

    a.incr('use:far', 1, exp);
    a.incr('use:capped', 1, exp, 100);
    await sleep(500);
    assert.equal(b.get('use:far'), 0, 'a change with no ceiling waits the far gap');
    assert.equal(b.get('use:capped'), 0, 'a change far below its ceiling waits the far gap');

    // 3 of 10 is near with two nodes (from 2.5), not with one (from 5).
    const asked = Date.now();
    a.incr('rps:k', 3, exp, 10);
    await until(() => b.get('rps:k') === 3, FAR_MS / 2, 'the change near its ceiling');
    assert.ok(Date.now() - asked < FAR_MS / 2);
    assert.equal(b.get('use:far'), 1, 'what waited went with it');
    assert.equal(b.get('use:capped'), 1);

    // Far past the ceiling: the count decides nothing more, it waits again.
    a.incr('rps:k', 20, exp, 10);
    await sleep(500);
    assert.equal(b.get('rps:k'), 3);

    a.set('fkw:address', 7, exp);
    await until(() => b.get('fkw:address') === 7, FAR_MS / 2, 'the set');
    assert.equal(b.get('rps:k'), 23);
  });
});
