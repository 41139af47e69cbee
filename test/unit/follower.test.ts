import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { Board } from '../../src/board/board.ts';
import { Follower } from '../../src/board/follower.ts';
import type { CommittedBatch } from '../../src/bus/bus.ts';
import { MemoryBus } from '../../src/bus/memory-bus.ts';
import { Ledger } from '../../src/ledger/ledger.ts';
import { openSqlite } from '../../src/store/sqlite/database.ts';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.ts';
import { batch, nbaEvent, nbaPrices, price } from '../helpers/fixtures.ts';

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
