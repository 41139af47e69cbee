import assert from 'node:assert/strict';
import type { Board } from '../../src/board/board.ts';
import type { CommittedBatch } from '../../src/bus/bus.ts';
import type { Ledger } from '../../src/ledger/ledger.ts';
import type { Store } from '../../src/store/store.ts';
import { batch, creditPlay, nbaEvent, nbaPrices, price } from './fixtures.ts';

const E = 'a'.repeat(32);

/**
 * A batch of 600 prices refused at its 501st update (a play numbered 3 where the event's next is
 * 1), after the ledger has planned its first two parts and handed their rows to the store's open
 * commit: the ledger rejects it with nothing written, published or on the board, and the same
 * prices sent next get the ids (change, price and line) the refused batch had been given.
 */
export async function assertRefusedInParts(ledger: Ledger, store: Store, board: Board, published: CommittedBatch[]) {
  await ledger.apply(batch('2026-11-23T10:00:00Z', [{ kind: 'event', event: nbaEvent(E) }, ...nbaPrices(E)]));
  const head = ledger.headId;
  const counters = ledger.counters;
  const told = published.length;
  const spread = () => board.getEvent(E)!.markets.get('2:0')!.participants.get('TYPE_TEAM:2014')!.lines;
  const linesBefore = [...spread().keys()];
  const lines = Array.from({ length: 600 }, (_, i) =>
    price(E, {
      market_id: 2,
      participant_id: 2014,
      participant_name: 'Los Angeles',
      affiliate_id: 19,
      line: `-${i + 10}.5`,
      price: -110,
    }),
  );
  const play = { ...creditPlay(2014, 201401, 'points', 2, { away: 0, home: 2 }), credits: [], people: [], sequence: 3 };
  const refused = batch('2026-11-23T10:01:00Z', [
    ...lines.slice(0, 500),
    { kind: 'play', event_id: E, play },
    ...lines.slice(500),
  ]);
  await assert.rejects(ledger.apply(refused), /play 3 of event a+ is not its next play, 1/);
  assert.equal(ledger.headId, head);
  assert.deepEqual(ledger.counters, counters);
  assert.equal(await store.lastRowId(), head, 'no row of the refused batch is in the store');
  assert.equal(published.length, told, 'nothing published');
  assert.deepEqual([...spread().keys()], linesBefore, 'nothing on the board');

  await ledger.apply(batch('2026-11-23T10:01:00Z', lines));
  const next = published.at(-1)!;
  const expected = Array.from({ length: 600 }, (_, i) => i + 1);
  assert.deepEqual(
    next.changes.map((c) => c.id),
    expected.map((i) => head + i),
  );
  assert.deepEqual(
    next.changes.map((c) => c.price_id),
    expected.map((i) => counters.maxPriceId + i),
  );
  const stored = await store.readChanges({ pricesOnly: false, afterId: head, toId: head + 600, limit: 1000 });
  assert.deepEqual(stored, next.changes);
}
