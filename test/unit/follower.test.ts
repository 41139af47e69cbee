import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { Board } from '../../src/board/board.ts';
import { Follower } from '../../src/board/follower.ts';
import { loadCommitted } from '../../src/board/load.ts';
import { LogFloor } from '../../src/board/log-floor.ts';
import { RetentionFollower } from '../../src/board/retention-follower.ts';
import type { CommittedBatch } from '../../src/bus/bus.ts';
import { MemoryBus } from '../../src/bus/memory-bus.ts';
import { Ledger } from '../../src/ledger/ledger.ts';
import { MemoryStore } from '../../src/store/memory/memory-store.ts';
import { openSqlite } from '../../src/store/sqlite/database.ts';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.ts';
import { batch, nbaEvent, nbaPrices, price, score } from '../helpers/fixtures.ts';

const E = 'f'.repeat(32);
const at = () => new Date().toISOString();

test('a follower skips what it loaded, fills a gap from the store, and hands on every row once, in order', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'oddsbase-follow-'));
  const store = new SqliteStore(openSqlite(dir));
  const writerBus = new MemoryBus();
  const published: CommittedBatch[] = [];
  writerBus.subscribe((b) => published.push(b));
  const ledger = await Ledger.open(store, new Board(), writerBus);
  const move = (p: number) =>
    ledger.apply(batch(at(), [price(E, { market_id: 1, participant_id: 2002, affiliate_id: 19, price: p })]));
  await ledger.apply(batch(at(), [{ kind: 'event', event: nbaEvent(E) }, ...nbaPrices(E)]));
  await move(101);
  await move(102);

  // The cluster bus as this node sees it: only what the test hands it.
  const upstream = new MemoryBus();
  const local = new MemoryBus();
  const handedOn: CommittedBatch[] = [];
  local.subscribe((b) => handedOn.push(b));
  const board = new Board();
  const errors: unknown[] = [];
  const follower = await Follower.open(store, board, upstream, local, {
    archivedSinceMs: 0,
    onError: (err) => errors.push(err),
  });
  t.after(async () => {
    follower.stop();
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });
  assert.equal(board.head, ledger.headId, 'loaded up to the head');
  const loadedHead = board.head;
  upstream.publish(published[1]!);
  await move(103);
  await move(104);
  // The batch of 103 is lost on the way: 104's batch starts past the board's head.
  upstream.publish(published.at(-1)!);
  assert.equal(board.head, loadedHead, 'held until start');
  await follower.start();
  await follower.settled();

  assert.deepEqual(errors, []);
  assert.equal(board.head, ledger.headId);
  assert.equal(follower.state, 'following');
  const price19 = (b: Board) =>
    [...b.events.get(E)!.markets.values()]
      .find((m) => m.market_id === 1 && m.period_id === 0)!
      .participants.get('TYPE_TEAM:2002')
      ?.lines.get('')
      ?.prices.get(19)?.price;
  assert.equal(price19(board), 104);
  // Handed on gap-free: each batch starts at the previous one's head, the rows of 103 and 104 once each.
  let from = loadedHead;
  for (const b of handedOn) {
    assert.equal(b.fromId, from);
    from = b.headId;
  }
  assert.equal(from, ledger.headId);
  assert.deepEqual(
    handedOn.flatMap((b) => b.changes.map((r) => r.id)),
    published.slice(-2).flatMap((b) => b.changes.map((r) => r.id)),
  );
});

test('a standby hands its board over: the rows the bus had not brought are read, and a ledger goes on from the store’s highest ids', async (t) => {
  const store = new MemoryStore();
  const ledger = await Ledger.open(store, new Board(), new MemoryBus());
  const archivedEvent = 'a'.repeat(32);
  await ledger.apply(
    batch(at(), [
      { kind: 'event', event: nbaEvent(archivedEvent) },
      ...nbaPrices(archivedEvent),
      { kind: 'score', event_id: archivedEvent, score: score(archivedEvent, 'STATUS_FINAL', 100, 90) },
    ]),
  );
  await ledger.apply(batch(at(), [{ kind: 'event', event: nbaEvent(E) }, ...nbaPrices(E)]));
  const upstream = new MemoryBus();
  const local = new MemoryBus();
  const handedOn: CommittedBatch[] = [];
  local.subscribe((b) => handedOn.push(b));
  const board = new Board();
  const follower = await Follower.open(store, board, upstream, local, {
    archivedSinceMs: 0,
    onError: (err) => assert.fail(String(err)),
  });
  t.after(() => follower.stop());
  await follower.start();
  const loadedHead = board.head;
  // The writer commits twice more and dies; its batches never reach this node.
  await ledger.apply(batch(at(), [price(E, { market_id: 1, participant_id: 2002, affiliate_id: 19, price: 131 })]));
  await ledger.archiveFinished(Date.now() + 1, 0);
  await ledger.apply(batch(at(), [price(E, { market_id: 1, participant_id: 2002, affiliate_id: 19, price: 132 })]));
  await follower.handOver(await store.lastRowId());
  assert.equal(board.head, ledger.headId);
  assert.deepEqual(
    handedOn.flatMap((b) => b.changes.map((r) => r.id)),
    Array.from({ length: ledger.headId - loadedHead }, (_, i) => loadedHead + 1 + i),
  );
  // Followed no more: a batch on the bus is not applied.
  upstream.publish({
    epoch: ledger.position.epoch,
    fromId: board.head,
    headId: board.head + 1,
    changes: [],
    eventIds: [],
  });
  assert.equal(board.head, ledger.headId);

  // The archived event's lines are off the board, not off the ids: a new line takes a new price id.
  const highest = await store.highestIds();
  const boardMax = Math.max(
    ...[...board.events.values()].flatMap((ev) =>
      [...ev.markets.values()].flatMap((m) =>
        [...m.participants.values()].flatMap((p) =>
          [...p.lines.values()].flatMap((l) => [...l.prices.values()].map((x) => x.id)),
        ),
      ),
    ),
  );
  assert.ok(highest.priceId >= boardMax);
  const next = Ledger.continuing(
    store,
    board,
    new MemoryBus(),
    {},
    {
      epoch: ledger.position.epoch,
      headCommittedMs: (await store.committedMsAt(board.head)) ?? 0,
      maxMarketId: highest.marketId,
      maxPriceId: highest.priceId,
    },
  );
  const head = board.head;
  await next.apply(batch(at(), [price(E, { market_id: 1, participant_id: 2002, affiliate_id: 99, price: 150 })]));
  const [row] = await store.readChanges({ pricesOnly: true, afterId: head, toId: Number.MAX_SAFE_INTEGER, limit: 10 });
  assert.equal(row!.id, head + 1, 'the ids go on with no gap');
  assert.equal(row!.price_id, highest.priceId + 1, 'a new price id, above every one ever given');
});

test('a node takes off its board the events the writer archived, and raises its floor to what the store keeps', async () => {
  const clock = { now: Date.parse('2026-11-23T12:00:00Z') };
  const store = new MemoryStore();
  const writerBoard = new Board();
  const ledger = await Ledger.open(store, writerBoard, new MemoryBus(), { now: () => clock.now });
  const done = 'd'.repeat(32);
  await ledger.apply(
    batch(new Date(clock.now).toISOString(), [
      { kind: 'event', event: nbaEvent(done) },
      { kind: 'event', event: nbaEvent(E) },
      ...nbaPrices(done),
      { kind: 'score', event_id: done, score: score(done, 'STATUS_FINAL', 100, 90) },
    ]),
  );
  const board = new Board();
  const floor = new LogFloor(await store.retained());
  await loadCommitted(store, board, { archivedSinceMs: 0 });
  const follower = new RetentionFollower(store, board, floor, {
    everyMs: 60_000,
    headersKeepMs: 365 * 86_400_000,
    now: () => clock.now,
    onError: (err) => assert.fail(String(err)),
  });
  await follower.sync();
  assert.ok(board.events.has(done));
  // A day later the writer archives the finished game and compacts the log below a cutoff.
  clock.now += 86_400_000;
  await ledger.apply(
    batch(new Date(clock.now).toISOString(), [
      price(E, { market_id: 1, participant_id: 2002, affiliate_id: 19, price: 120 }),
    ]),
  );
  assert.equal(await ledger.archiveFinished(clock.now, 0), 1);
  while ((await ledger.compact({ cutoffMs: clock.now - 1000, maxRows: 100 })).more);
  const retained = await store.retained();
  assert.ok(retained.oldestId > 1);
  await follower.sync();
  assert.equal(board.events.has(done), false);
  assert.deepEqual([...board.events.keys()], [...writerBoard.events.keys()]);
  assert.deepEqual(board.archivedHeaders.get(done), writerBoard.archivedHeaders.get(done));
  assert.equal(floor.oldestId, retained.oldestId);
  assert.equal(floor.sinceMs, retained.sinceMs);
});
