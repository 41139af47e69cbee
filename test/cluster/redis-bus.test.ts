import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, describe, it, type TestContext } from 'node:test';
import { Redis } from 'ioredis';
import type { CommittedBatch } from '../../src/bus/bus.ts';
import { RedisBus, type RedisBusOptions } from '../../src/bus/redis/redis-bus.ts';
import { busContract, committed, until } from '../contract/bus.contract.ts';
import { startRedis } from './services/redis.ts';

const redis = await startRedis();
after(() => redis.close());

/** Two nodes' buses on one stream of their own. */
async function pair(options: Partial<RedisBusOptions> = {}, subOptions: Partial<RedisBusOptions> = {}) {
  const stream = `test:${randomUUID()}`;
  const errors: unknown[] = [];
  const publisher = new RedisBus({ url: redis.url, driver: Redis, stream, ...options });
  const subscriber = new RedisBus({
    url: redis.url,
    driver: Redis,
    stream,
    onError: (e) => errors.push(e),
    ...options,
    ...subOptions,
  });
  await Promise.all([publisher.ready(), subscriber.ready()]);
  return {
    publisher,
    subscriber,
    errors,
    cleanup: async () => {
      await subscriber.close();
      await publisher.close();
    },
  };
}

busContract('Redis, two nodes on one stream', () => pair());

/** Records what a node's listener receives and checks each batch against the last one. */
function follower(bus: RedisBus) {
  const got: CommittedBatch[] = [];
  const gaps: { after: number; fromId: number }[] = [];
  let head = 0;
  bus.subscribe((b) => {
    if (got.length > 0 && b.fromId !== head) gaps.push({ after: head, fromId: b.fromId });
    got.push(b);
    head = b.headId;
  });
  return { got, gaps, head: () => head };
}

/** Kills the server side of the named connection, as a network drop would. */
async function dropConnection(name: string): Promise<void> {
  const admin = new Redis(redis.url);
  try {
    const line = String(await admin.client('LIST'))
      .split('\n')
      .find((l) => l.includes(` name=${name} `));
    const id = /^id=(\d+) /.exec(line ?? '')?.[1];
    assert.ok(id, `no connection named ${name}`);
    await admin.client('KILL', 'ID', id);
  } finally {
    admin.disconnect();
  }
}

describe('Redis bus: what a node misses', () => {
  async function nodes(t: TestContext, options: Partial<RedisBusOptions>, subOptions: Partial<RedisBusOptions> = {}) {
    const f = await pair(options, subOptions);
    t.after(() => f.cleanup());
    return f;
  }

  it('a dropped connection resumes from the stream: nothing missed, no gap', async (t) => {
    // The subscriber reconnects 300 ms after its connection drops; the publisher goes on meanwhile.
    const { publisher, subscriber } = await nodes(
      t,
      {},
      { redis: { connectionName: 'lagging', retryStrategy: () => 300 } },
    );
    const seen = follower(subscriber);
    let head = 0;
    const send = (n: number) => {
      for (let i = 0; i < n; i++) {
        const b = committed(head, 2);
        head = b.headId;
        publisher.publish(b);
      }
    };
    send(10);
    await until(() => seen.head() === head);
    await dropConnection('lagging:bus-sub');
    send(10);
    await new Promise((r) => setTimeout(r, 50));
    assert.ok(seen.head() < head, 'nothing arrives while the connection is down');
    await until(() => seen.head() === head, 5000, 'the batches after the reconnect');
    assert.equal(seen.got.length, 20);
    assert.deepEqual(seen.gaps, []);
  });

  it('a node trimmed off the stream sees the gap, then follows without another', async (t) => {
    // The subscriber reconnects after 500 ms; meanwhile the publisher outruns a stream of ~10 entries.
    const { publisher, subscriber } = await nodes(
      t,
      { maxLen: 10 },
      { redis: { connectionName: 'lagging', retryStrategy: () => 500 } },
    );
    const seen = follower(subscriber);
    let head = 0;
    const send = (n: number) => {
      for (let i = 0; i < n; i++) {
        const b = committed(head, 1);
        head = b.headId;
        publisher.publish(b);
      }
    };
    send(5);
    await until(() => seen.head() === head);
    await dropConnection('lagging:bus-sub');
    send(1000);
    await until(() => seen.head() === head, 10_000, 'the subscriber back');
    assert.equal(seen.gaps.length, 1);
    assert.equal(seen.gaps[0]!.after, 5);
    assert.ok(seen.gaps[0]!.fromId > 5);
    send(5);
    await until(() => seen.head() === head);
    assert.equal(seen.gaps.length, 1);
  });

  it('after Redis restarts empty, the next batch shows the gap; publishing never threw', async (t) => {
    const { publisher, subscriber, errors } = await nodes(t, {}, { redis: { retryStrategy: () => 50 } });
    const seen = follower(subscriber);
    let head = 0;
    const send = () => {
      const b = committed(head, 3);
      head = b.headId;
      publisher.publish(b);
    };
    send();
    send();
    await until(() => seen.head() === head);
    await redis.stop();
    for (let i = 0; i < 20; i++) assert.doesNotThrow(send);
    const lost = head;
    await redis.start();
    // Publish until the publisher is connected again and the subscriber reads the new stream.
    await until(
      () => {
        send();
        return seen.head() > lost;
      },
      10_000,
      'delivery after the restart',
    );
    assert.equal(seen.gaps.length, 1);
    assert.equal(seen.gaps[0]!.after, 6);
    assert.ok(publisher.dropped >= 20);
    assert.ok(errors.length > 0, 'the subscriber reported the lost connection');
  });

  it('an entry that is no batch goes to the error handler; the batches around it arrive', async (t) => {
    const stream = `test:${randomUUID()}`;
    const errors: unknown[] = [];
    const publisher = new RedisBus({ url: redis.url, driver: Redis, stream });
    const subscriber = new RedisBus({ url: redis.url, driver: Redis, stream, onError: (e) => errors.push(e) });
    t.after(async () => {
      await subscriber.close();
      await publisher.close();
    });
    await Promise.all([publisher.ready(), subscriber.ready()]);
    const seen = follower(subscriber);
    publisher.publish(committed(0, 1));
    await until(() => seen.head() === 1);
    const other = new Redis(redis.url);
    t.after(() => other.disconnect());
    await other.xadd(stream, '*', 'n', 'someone', 'b', '{"not":"a batch"');
    await other.xadd(stream, '*', 'n', 'someone', 'b', '{"e":1}');
    await other.xadd(stream, '*', 'unexpected', 'fields');
    publisher.publish(committed(1, 1));
    await until(() => seen.head() === 2);
    assert.equal(errors.length, 3);
    assert.deepEqual(seen.gaps, []);
  });
});
