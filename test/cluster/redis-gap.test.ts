import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, it } from 'node:test';
import { Redis } from 'ioredis';
import { Board } from '../../src/board/board.ts';
import { ChangeFeed } from '../../src/board/change-feed.ts';
import { RedisBus } from '../../src/bus/redis/redis-bus.ts';
import { Ledger } from '../../src/ledger/ledger.ts';
import { openSqlite } from '../../src/store/sqlite/database.ts';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.ts';
import { until } from '../contract/bus.contract.ts';
import { batch, nbaEvent, nbaPrices, price } from '../helpers/fixtures.ts';
import { startRedis } from './services/redis.ts';

const redis = await startRedis();
after(() => redis.close());

const E = 'e'.repeat(32);

it("batches lost while Redis restarts: the other node's change feed reads them from the store, no hole", async (t) => {
  // One store stands for the shared system of record; the writer and the other node each have a bus.
  const dir = mkdtempSync(join(tmpdir(), 'oddsbase-gap-'));
  const store = new SqliteStore(openSqlite(dir));
  const redisOptions = { retryStrategy: () => 50 };
  const writerBus = new RedisBus({ url: redis.url, driver: Redis, redis: redisOptions });
  const nodeBus = new RedisBus({ url: redis.url, driver: Redis, redis: redisOptions });
  t.after(async () => {
    await nodeBus.close();
    await writerBus.close();
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });
  await Promise.all([writerBus.ready(), nodeBus.ready()]);
  const ledger = await Ledger.open(store, new Board(), writerBus);
  const own = await ChangeFeed.open(store, writerBus, ledger.headId, { maxScan: 10_000 });
  const other = await ChangeFeed.open(store, nodeBus, ledger.headId, { maxScan: 10_000 });
  t.after(() => {
    own.close();
    other.close();
  });
  const move = (i: number) =>
    ledger.apply(
      batch(new Date().toISOString(), [
        price(E, { market_id: 1, participant_id: 2002, affiliate_id: 19, price: 100 + i }),
      ]),
    );

  await ledger.apply(batch(new Date().toISOString(), [{ kind: 'event', event: nbaEvent(E) }, ...nbaPrices(E)]));
  for (let i = 0; i < 5; i++) await move(i);
  await until(() => other.headId() === ledger.headId, 5000, 'the other node to follow');

  await redis.stop();
  for (let i = 5; i < 15; i++) await move(i);
  const lostUpTo = ledger.headId;
  await redis.start();
  for (let i = 15; other.headId() <= lostUpTo; i++) {
    await move(i);
    await new Promise((r) => setTimeout(r, 20));
  }
  await until(() => other.headId() === ledger.headId, 5000, 'the other node to catch up');

  const ids = async (feed: ChangeFeed) =>
    (await feed.read({ pricesOnly: true, afterId: 0 }, 10_000)).rows.map((r) => r.id);
  const expected = await ids(own);
  assert.ok(writerBus.dropped > 0, 'batches were lost on the way');
  assert.ok(expected.includes(lostUpTo), 'the rows committed while Redis was away are read');
  assert.deepEqual(await ids(other), expected);
});
