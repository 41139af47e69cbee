import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Board } from '../../src/board/board.ts';
import type { CommittedBatch } from '../../src/bus/bus.ts';
import { MemoryBus } from '../../src/bus/memory-bus.ts';
import type { ChangeRecord } from '../../src/changelog/change.ts';
import { Ledger, LedgerError } from '../../src/ledger/ledger.ts';
import { MemoryStore } from '../../src/store/memory/memory-store.ts';
import { batch, moneylineMoves, nbaEvent, nbaPrices, score } from '../helpers/fixtures.ts';

const E = 'c'.repeat(32);
const T0 = Date.parse('2026-11-23T18:00:00Z');

/** The rows a ledger commits for a small game: an event, prices, moves and a score. */
async function recorded(): Promise<{ rows: ChangeRecord[]; source: Ledger; board: Board }> {
  const clock = { now: T0 };
  const store = new MemoryStore();
  const board = new Board();
  const source = await Ledger.open(store, board, new MemoryBus(), { now: () => clock.now });
  const at = () => new Date(clock.now).toISOString();
  await source.apply(batch(at(), [{ kind: 'event', event: nbaEvent(E, '2026-11-23') }, ...nbaPrices(E)]));
  for (const b of moneylineMoves(E, 2, at())) {
    clock.now += 1000;
    await source.apply({ ...b, at: at() });
  }
  await source.apply(batch(at(), [{ kind: 'score', event_id: E, score: score(E, 'STATUS_IN_PROGRESS', 2, 1) }]));
  const rows = await store.readChanges({ pricesOnly: false, afterId: 0, toId: source.headId, limit: 10_000 });
  return { rows, source, board };
}

async function target() {
  const store = new MemoryStore();
  const board = new Board();
  const published: CommittedBatch[] = [];
  const bus = new MemoryBus();
  bus.subscribe((b) => published.push(b));
  const ledger = await Ledger.open(store, board, bus);
  return { store, board, ledger, published };
}

test('recorded rows are committed as they are, the board and the store as the source had them', async () => {
  const { rows, source, board: sourceBoard } = await recorded();
  const t = await target();
  const half = Math.floor(rows.length / 2);
  await t.ledger.applyRecorded(rows.slice(0, half));
  await t.ledger.applyRecorded(rows.slice(half));
  assert.equal(t.ledger.headId, source.headId);
  assert.deepEqual(
    await t.store.readChanges({ pricesOnly: false, afterId: 0, toId: t.ledger.headId, limit: 10_000 }),
    rows,
  );
  assert.deepEqual(t.board.events.get(E)!.info, sourceBoard.events.get(E)!.info);
  assert.equal(t.board.events.get(E)!.version, sourceBoard.events.get(E)!.version);
  // What a restart reads: the event records and market instances derived for the rows.
  const a = await t.store.load();
  assert.deepEqual(
    a.events.map((e) => JSON.parse(e.info)),
    [sourceBoard.events.get(E)!.info],
  );
  assert.deepEqual(
    a.markets.map((m) => [m.id, m.market_id, m.period_id]),
    [...sourceBoard.events.get(E)!.markets.values()]
      .map((m) => [m.id, m.market_id, m.period_id])
      .sort((x, y) => x[0]! - y[0]!),
  );
  // Published as committed batches that follow one another.
  assert.equal(t.published.length, 2);
  assert.equal(t.published[1]!.fromId, t.published[0]!.headId);
  // A live batch after the replay continues the ids and price ids.
  await t.ledger.apply(batch(new Date(T0 + 60_000).toISOString(), moneylineMoves(E, 1, '')[0]!.updates));
  assert.equal(t.ledger.headId > source.headId, true);
});

test('rows that do not continue the log are refused, with nothing written', async () => {
  const { rows } = await recorded();
  const t = await target();
  await t.ledger.applyRecorded(rows.slice(0, 3));
  const refused = async (bad: ChangeRecord[], why: RegExp) => {
    const head = t.ledger.headId;
    await assert.rejects(
      t.ledger.applyRecorded(bad),
      (err: Error) => err instanceof LedgerError && why.test(err.message),
    );
    assert.equal(t.ledger.headId, head);
    assert.equal(await t.store.lastRowId(), head);
  };
  await refused(rows.slice(2, 5), /is not above the log's head/);
  await refused([rows[3]!, { ...rows[4]!, committed_ms: rows[3]!.committed_ms - 1 }], /committed before/);
  await refused([{ ...rows[3]!, event_id: 'd'.repeat(32) }], /unknown event/);
  await refused([{ ...rows[3]!, kind: 'bet' as ChangeRecord['kind'] }], /cannot be read/);
});
