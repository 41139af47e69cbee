import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type TestContext, test } from 'node:test';
import { Board } from '../../src/board/board.ts';
import { ChangeFeed, type ChangeFeedOptions, CursorError } from '../../src/board/change-feed.ts';
import { LogFloor } from '../../src/board/log-floor.ts';
import { MemoryBus } from '../../src/bus/memory-bus.ts';
import type { CommittedBatch } from '../../src/bus/bus.ts';
import { Ledger } from '../../src/ledger/ledger.ts';
import { BACKUP_OF_META, beginEpochIfRestored, EPOCH_GAP, epochGaps } from '../../src/ops/backup.ts';
import { openSqlite } from '../../src/store/sqlite/database.ts';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.ts';
import { batch, nbaEvent, nbaPrices, price } from '../helpers/fixtures.ts';

const E = 'e'.repeat(32);

async function setup(
  opts: {
    capacity?: number;
    now?: () => number;
    windowMs?: number;
    payloadBytes?: number;
    maxScan?: number;
  } = {},
) {
  const dir = mkdtempSync(join(tmpdir(), 'oddsbase-feed-'));
  const store = new SqliteStore(openSqlite(dir));
  const bus = new MemoryBus();
  const board = new Board();
  const ledger = await Ledger.open(store, board, bus);
  const feed = await ChangeFeed.open(store, bus, ledger.headId, { maxScan: 1000, ...opts });
  await ledger.apply(batch(new Date().toISOString(), [{ kind: 'event', event: nbaEvent(E) }, ...nbaPrices(E)]));
  for (let i = 0; i < 30; i++) {
    await ledger.apply(
      batch(new Date().toISOString(), [
        price(E, { market_id: 1, participant_id: 2002, affiliate_id: 19, price: 100 + i }),
      ]),
    );
  }
  return {
    feed,
    ledger,
    store,
    bus,
    cleanup: async () => {
      feed.close();
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

test('reads from memory and from the store give the same rows', async (t) => {
  const small = await setup({ capacity: 5 });
  const big = await setup({ capacity: 10_000 });
  t.after(async () => {
    await small.cleanup();
    await big.cleanup();
  });
  for (const after of [0, 3, 10, 20, 40]) {
    const a = await small.feed.read({ pricesOnly: true, afterId: after }, 7);
    const b = await big.feed.read({ pricesOnly: true, afterId: after }, 7);
    // Two ledgers ran at slightly different times: compare rows without their timestamps.
    const strip = (p: string) => p.replace(/"updated_at":"[^"]+"/, '');
    assert.deepEqual(
      a.rows.map((r) => [r.id, strip(r.payload)]),
      b.rows.map((r) => [r.id, strip(r.payload)]),
    );
    assert.equal(a.lastId, b.lastId);
    assert.equal(a.hasMore, b.hasMore);
  }
});

test('a read scans at most maxScan ids and says there is more', async (t) => {
  // A bound well below the 45 rows written. The warm feed saw every write; the cold one, started
  // after them with room for about ten rows, reads older cursors from the store.
  const s = await setup({ maxScan: 10 });
  const cold = await ChangeFeed.open(s.store, s.bus, s.ledger.headId, { maxScan: 10, payloadBytes: 4000 });
  t.after(async () => {
    cold.close();
    await s.cleanup();
  });
  const head = s.ledger.headId;
  assert.ok(head > 40, `${head} rows`);
  const none = { affiliateIds: [999] };
  for (const feed of [s.feed, cold]) {
    for (const after of [0, 20]) {
      const r = await feed.read({ pricesOnly: true, afterId: after, ...none }, 100);
      assert.deepEqual(r.rows, []);
      assert.equal(r.lastId, after + 10);
      assert.equal(r.hasMore, true);
      const page = await feed.readPayloadPage({ afterId: after, ...none }, 100);
      assert.equal(page.count, 0);
      assert.equal(page.lastId, after + 10);
      assert.equal(page.hasMore, true);
      assert.equal(page.fromStore, feed === cold);
    }
    // Rows 16 to 45 are the book-19 moneyline moves: all of them match, the bound still stops at 30.
    const moves = { affiliateIds: [19], marketIds: [1] };
    const r = await feed.read({ pricesOnly: true, afterId: 20, ...moves }, 100);
    assert.deepEqual(
      r.rows.map((row) => row.id),
      Array.from({ length: 10 }, (_, i) => 21 + i),
    );
    assert.equal((await feed.readPayloadPage({ afterId: 20, ...moves }, 100)).count, 10);
    const end = await feed.read({ pricesOnly: true, afterId: head - 5, ...none }, 100);
    assert.equal(end.lastId, head, 'the bound never passes the head');
    assert.equal(end.hasMore, false);
  }
});

test('cursors ahead of the head or behind the retained window are refused', async (t) => {
  const windowMs = 60_000;
  const s = await setup({ windowMs, now: () => Date.now() + 2 * windowMs });
  t.after(s.cleanup);
  const head = s.ledger.headId;
  await assert.rejects(s.feed.resolveCursor(head + 1), CursorError);
  await assert.rejects(s.feed.resolveCursor(5), /too far behind.*events snapshot/s);
  assert.equal(await s.feed.resolveCursor(head), head);
  assert.equal(await s.feed.resolveCursor(0), head, '0 starts at the oldest retained row');
});

/**
 * A feed opened after the writes with room for about ten rows in memory: older pages are read from
 * the store, four rows a statement, so that pages span chunks.
 */
async function coldFeed(t: TestContext, opts: ChangeFeedOptions = {}) {
  const s = await setup();
  const floor = new LogFloor();
  const cold = await ChangeFeed.open(s.store, s.bus, s.ledger.headId, {
    maxScan: 1000,
    payloadBytes: 4000,
    storeChunkRows: 4,
    floor,
    ...opts,
  });
  t.after(async () => {
    cold.close();
    await s.cleanup();
  });
  return { s, cold, floor };
}

test('payload pages hold the same rows as whole-row reads, from memory and from the store', async (t) => {
  const { s, cold } = await coldFeed(t);
  const filters = [{}, { affiliateIds: [19] }, { marketIds: [1, 2] }, { sportId: 4, eventId: E }, { sportId: 3 }];
  for (const feed of [s.feed, cold]) {
    for (const after of [0, 10, 30, s.ledger.headId - 3]) {
      for (const f of filters) {
        for (const limit of [1, 9, 1000]) {
          const whole = await feed.read({ pricesOnly: true, afterId: after, ...f }, limit);
          const page = await feed.readPayloadPage({ afterId: after, ...f }, limit);
          const rows = JSON.parse(`[${Buffer.concat(page.parts).toString()}]`) as { id: number }[];
          assert.deepEqual(
            rows,
            whole.rows.map((r) => JSON.parse(r.payload)),
            `after ${after}, limit ${limit}, ${JSON.stringify(f)}`,
          );
          assert.equal(page.count, whole.rows.length);
          assert.equal(page.lastId, whole.lastId);
          assert.equal(page.hasMore, whole.hasMore);
        }
      }
    }
  }
});

test('a page read from the store in chunks is refused if retention compacted its rows between two', async (t) => {
  const { cold, floor } = await coldFeed(t);
  let turns = 0;
  const whole = await cold.readPayloadPage({ afterId: 0 }, 20, undefined, async () => {
    turns++;
  });
  assert.equal(whole.fromStore, true);
  assert.equal(whole.count, 20, 'five chunks of four');
  assert.equal(turns, 5, 'a turn before each chunk, the first one too');
  // Retention raises the floor before it removes rows: here during the turn after the first chunk.
  turns = 0;
  const raiseInSecondTurn = async () => {
    if (++turns === 2) floor.raiseId(10);
  };
  await assert.rejects(cold.readPayloadPage({ afterId: 0 }, 20, undefined, raiseInSecondTurn), CursorError);
  assert.equal(turns, 2);
  assert.equal((await cold.readPayloadPage({ afterId: 12 }, 4)).count, 4, 'rows above the floor are still served');
});

test('a chunk read on another connection is refused if retention raised the floor while it was read', async (t) => {
  const { s, cold, floor } = await coldFeed(t);
  // A thread's connection may begin its statement after retention removed rows; the floor, raised
  // before the removal, is all the feed sees of it. Here it rises during the second chunk's read.
  const read = s.store.readPayloadBytes.bind(s.store);
  let reads = 0;
  s.store.readPayloadBytes = async (q) => {
    const chunk = await read(q);
    if (++reads === 2) floor.raiseId(10);
    return chunk;
  };
  await assert.rejects(cold.readPayloadPage({ afterId: 0 }, 20), CursorError);
  assert.equal(reads, 2, 'no chunk is read after the refused one');
});

test('what the store lends for a page is given back by its release, or at once when the page is refused', async (t) => {
  const { s, cold, floor } = await coldFeed(t);
  // A store that lends its chunks' bytes, as the SQLite store's page reader does.
  const read = s.store.readPayloadBytes.bind(s.store);
  const lent = new Set<number>();
  let reads = 0;
  s.store.readPayloadBytes = async (q) => {
    const chunk = await read(q);
    const n = ++reads;
    lent.add(n);
    return { ...chunk, release: () => lent.delete(n) };
  };
  const page = await cold.readPayloadPage({ afterId: 0 }, 20);
  assert.equal(page.count, 20);
  assert.equal(lent.size, 5, 'five chunks lent while the page is held');
  page.release!();
  assert.equal(lent.size, 0);
  // Refused after its second chunk: both are given back before the error reaches the caller.
  reads = 0;
  s.store.readPayloadBytes = async (q) => {
    const chunk = await read(q);
    const n = ++reads;
    lent.add(n);
    if (n === 2) floor.raiseId(10);
    return { ...chunk, release: () => lent.delete(n) };
  };
  await assert.rejects(cold.readPayloadPage({ afterId: 0 }, 20), CursorError);
  assert.equal(reads, 2);
  assert.equal(lent.size, 0);
});

test('whole rows read from the store are refused if retention raised the floor past the cursor meanwhile', async (t) => {
  const { s, cold, floor } = await coldFeed(t);
  const read = s.store.readChanges.bind(s.store);
  s.store.readChanges = async (q) => {
    const rows = await read(q);
    floor.raiseId(10);
    return rows;
  };
  await assert.rejects(cold.read({ pricesOnly: false, afterId: 0 }, 20), CursorError);
  assert.equal(
    (await cold.read({ pricesOnly: false, afterId: 12 }, 4)).rows.length,
    4,
    'rows above the floor are still served',
  );
});

test('at most storeReads pages are read from the store at once; the others wait in order, and a failed read frees its slot', async (t) => {
  const { cold, floor } = await coldFeed(t, { storeReads: 2 });
  // The turns each read takes, in order: a read is in progress from its first turn to its last.
  const log: number[] = [];
  const read = (n: number, afterId = 0) =>
    cold.readPayloadPage({ afterId }, 12, undefined, async () => {
      log.push(n);
      // A real turn, so that the other reads may run between two chunks of this one.
      await new Promise((resolve) => setImmediate(resolve));
    });
  const pages = await Promise.all([1, 2, 3, 4, 5].map(read));
  for (const p of pages) assert.equal(p.count, 12);
  const span = (n: number) => [log.indexOf(n), log.lastIndexOf(n)] as const;
  let most = 0;
  for (let i = 0; i < log.length; i++) {
    most = Math.max(most, [1, 2, 3, 4, 5].filter((n) => span(n)[0] <= i && i <= span(n)[1]).length);
  }
  assert.equal(most, 2, `two pages in progress at most (turns: ${log.join(' ')})`);
  assert.deepEqual(
    [1, 2, 3, 4, 5].map((n) => span(n)[0]),
    [...[1, 2, 3, 4, 5].map((n) => span(n)[0])].sort((a, b) => a - b),
    'started in the order asked',
  );
  // A read refused midway (its rows compacted) gives its slot back.
  let turns = 0;
  await assert.rejects(
    cold.readPayloadPage({ afterId: 0 }, 12, undefined, async () => {
      if (++turns === 2) floor.raiseId(10);
    }),
    CursorError,
  );
  // Above the raised floor; were a slot still held, one of these would wait for ever.
  const after = await Promise.all([read(6, 12), read(7, 12)]);
  assert.deepEqual(
    after.map((p) => p.count),
    [12, 12],
    'both slots are free again',
  );
});

/** Counts the whole-row reads `store` answers: the feed's reads that memory did not serve. */
function countStoreReads(store: SqliteStore): { count: number } {
  const seen = { count: 0 };
  const read = store.readChanges.bind(store);
  store.readChanges = (q) => {
    seen.count++;
    return read(q);
  };
  return seen;
}

test('a fill keeps none of its rows in memory; after it the newest price rows are read back from the store', async (t) => {
  const s = await setup();
  t.after(s.cleanup);
  const reads = countStoreReads(s.store);
  const before = s.ledger.headId;
  const moves = (from: number) =>
    Array.from({ length: 5 }, (_, i) =>
      batch(new Date().toISOString(), [
        price(E, { market_id: 1, participant_id: 2002, affiliate_id: 19, price: from + i }),
      ]),
    );
  const expected = async (afterId: number) =>
    (await s.store.readChanges({ pricesOnly: false, afterId, toId: s.ledger.headId, limit: 100 })).map((r) => r.id);

  await s.feed.fill(async () => {
    for (const b of moves(200)) await s.ledger.apply(b);
    await assert.rejects(
      s.feed.fill(async () => {}),
      /a fill is already running/,
    );
    // Nothing of the fill is in memory, nor what was there before it: every read goes to the store.
    for (const afterId of [before - 3, before + 1]) {
      const page = await s.feed.readPayloadPage({ afterId }, 100);
      assert.equal(page.fromStore, true, `price rows after ${afterId}`);
      assert.equal(page.count, s.ledger.headId - afterId);
      const counted = reads.count;
      const whole = await s.feed.read({ pricesOnly: false, afterId }, 100);
      assert.ok(reads.count > counted, `whole rows after ${afterId} are read from the store`);
      assert.deepEqual(
        whole.rows.map((r) => r.id),
        await expected(afterId),
      );
      assert.equal(whole.lastId, s.ledger.headId);
    }
  });

  // After the fill, polls near the head are served from memory again, with the same rows.
  const page = await s.feed.readPayloadPage({ afterId: before - 3 }, 100);
  assert.equal(page.fromStore, false);
  assert.deepEqual(
    (JSON.parse(`[${Buffer.concat(page.parts).toString()}]`) as { id: number }[]).map((r) => r.id),
    await expected(before - 3),
  );
  // Rows committed after the fill are kept in memory as before.
  for (const b of moves(300)) await s.ledger.apply(b);
  const counted = reads.count;
  const after = await s.feed.read({ pricesOnly: false, afterId: s.ledger.headId - 5 }, 100);
  assert.equal(after.rows.length, 5);
  assert.equal(reads.count, counted, 'rows committed after the fill come from memory');
});

test('a batch committed while the feed reads its newest rows from the store is received after them, in order', async (t) => {
  const s = await setup();
  let release!: () => void;
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  const slow = Object.create(s.store) as SqliteStore;
  slow.scanPriceRows = async (afterId, toId, each) => {
    await gate;
    return s.store.scanPriceRows(afterId, toId, each);
  };
  const before = s.ledger.headId;
  const opening = ChangeFeed.open(slow, s.bus, before, { maxScan: 1000 });
  await s.ledger.apply(
    batch(new Date().toISOString(), [price(E, { market_id: 1, participant_id: 2002, affiliate_id: 19, price: 400 })]),
  );
  release();
  const feed = await opening;
  t.after(async () => {
    feed.close();
    await s.cleanup();
  });
  const page = await feed.readPayloadPage({ afterId: before - 5 }, 100);
  assert.equal(page.fromStore, false);
  const ids = (JSON.parse(`[${Buffer.concat(page.parts).toString()}]`) as { id: number }[]).map((r) => r.id);
  assert.deepEqual(
    ids,
    Array.from({ length: 6 }, (_, i) => before - 4 + i),
  );
});

test('a failed fill gives its own error, and the feed keeps the rows committed after it', async (t) => {
  const s = await setup();
  t.after(s.cleanup);
  const reads = countStoreReads(s.store);
  await assert.rejects(
    s.feed.fill(async () => {
      throw new Error('the fill broke');
    }),
    /the fill broke/,
  );
  const before = s.ledger.headId;
  await s.ledger.apply(
    batch(new Date().toISOString(), [price(E, { market_id: 1, participant_id: 2002, affiliate_id: 19, price: 500 })]),
  );
  const counted = reads.count;
  const after = await s.feed.read({ pricesOnly: false, afterId: before }, 100);
  assert.deepEqual(
    after.rows.map((r) => r.id),
    [before + 1],
  );
  assert.equal(reads.count, counted, 'a row committed after the failed fill comes from memory');
});

test('a restored log: cursors inside its id gap are refused, and no read ends inside it', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'oddsbase-feed-gap-'));
  // Closed in the reverse order of opening, the directory last.
  const closing: (() => unknown)[] = [() => rmSync(dir, { recursive: true, force: true })];
  t.after(async () => {
    for (const close of closing.reverse()) await close();
  });
  const first = new SqliteStore(openSqlite(dir));
  const ledger = await Ledger.open(first, new Board(), new MemoryBus());
  await ledger.apply(batch(new Date().toISOString(), [{ kind: 'event', event: nbaEvent(E) }, ...nbaPrices(E)]));
  const copied = ledger.headId;
  // As a backup leaves its copy: the epoch it copied, recorded; then the copy's first start.
  await first.setMeta(BACKUP_OF_META, ledger.position.epoch);
  await first.close();
  const store = new SqliteStore(openSqlite(dir));
  closing.push(() => store.close());
  const began = (await beginEpochIfRestored(store))!;
  const gaps = await epochGaps(store);
  const bus = new MemoryBus();
  const restored = await Ledger.open(store, new Board(), bus, { idsAbove: gaps.at(-1)!.to });
  assert.equal(restored.headId, copied + EPOCH_GAP);
  const feed = await ChangeFeed.open(store, bus, restored.headId, {
    maxScan: 10,
    gaps,
    epoch: restored.position.epoch,
  });
  closing.push(() => feed.close());
  for (let i = 0; i < 3; i++) {
    await restored.apply(
      batch(new Date().toISOString(), [
        price(E, { market_id: 1, participant_id: 2002, affiliate_id: 19, price: 300 + i }),
      ]),
    );
  }
  for (const inside of [copied + 1, copied + 40, copied + EPOCH_GAP - 1]) {
    await assert.rejects(feed.resolveCursor(inside), (err: Error) => {
      assert.ok(err instanceof CursorError);
      assert.match(err.message, /too far behind/);
      assert.ok(err.message.includes(began.epoch));
      return true;
    });
  }
  assert.equal(await feed.resolveCursor(copied), copied);
  assert.equal(await feed.resolveCursor(copied + EPOCH_GAP), copied + EPOCH_GAP);
  // A scan of 10 ids from below the gap does not count the gap: it reaches the new rows.
  const read = await feed.read({ pricesOnly: false, afterId: copied - 2 }, 100);
  assert.deepEqual(
    read.rows.map((r) => r.id),
    [copied - 1, copied, copied + EPOCH_GAP + 1, copied + EPOCH_GAP + 2, copied + EPOCH_GAP + 3],
  );
  const page = await feed.readPayloadPage({ afterId: copied - 2 }, 1);
  assert.ok(page.lastId <= copied || page.lastId >= copied + EPOCH_GAP, `a page ends at ${page.lastId}`);
  assert.equal(feed.epoch, began.epoch);
});

test('a batch at or below the head is skipped, and of an overlapping one only the rows past the head are kept', async (t) => {
  const s = await setup();
  const published: CommittedBatch[] = [];
  const stop = s.bus.subscribe((b) => published.push(b));
  // A second node's feed on a bus of its own, opened at a head that batches already on their way repeat.
  const relay = new MemoryBus();
  const head = s.ledger.headId;
  const other = await ChangeFeed.open(s.store, relay, head, { maxScan: 1000 });
  t.after(async () => {
    stop();
    other.close();
    await s.cleanup();
  });
  const move = (p: number) =>
    s.ledger.apply(
      batch(new Date().toISOString(), [price(E, { market_id: 1, participant_id: 2002, affiliate_id: 19, price: p })]),
    );
  await move(300);
  await move(301);
  const [first, second] = published as [CommittedBatch, CommittedBatch];
  relay.publish(first);
  relay.publish({ ...second, fromId: first.fromId, changes: [...first.changes, ...second.changes] });
  relay.publish(first);
  assert.equal(other.headId(), s.ledger.headId);
  const read = await other.read({ pricesOnly: false, afterId: head }, 100);
  assert.deepEqual(
    read.rows.map((r) => r.id),
    [...first.changes, ...second.changes].map((r) => r.id),
  );
  assert.deepEqual(read.rows, (await s.feed.read({ pricesOnly: false, afterId: head }, 100)).rows);
});
