import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Event } from '../../packages/client/src/index.ts';
import { Board } from '../../src/board/board.ts';
import { MemoryBus } from '../../src/bus/memory-bus.ts';
import { extrasOf } from '../../src/feeds/upstream/held-prices.ts';
import { Ledger } from '../../src/ledger/ledger.ts';
import type { PriceUpdate } from '../../src/ledger/updates.ts';
import { MemoryStore } from '../../src/store/memory/memory-store.ts';
import { batch, nbaEvent, price } from '../helpers/fixtures.ts';

/**
 * The extras the mirror takes from an upstream answer for prices whose quote it holds: an answer
 * shows no `closed_at`, so a closed price is matched by the very time it was closed at.
 */

const E = 'e'.repeat(32);
const T1 = '2026-12-06T18:00:00.000Z';
const T2 = '2026-12-06T21:00:00.000Z';

/** The price of market 2, period 1, book 25 at `at`, with liquidity. */
const quote = (value: number, liquidity: number, closed = false): PriceUpdate =>
  price(E, {
    market_id: 2,
    period_id: 1,
    participant_id: 2002,
    participant_name: 'Boston',
    line: '-3.5',
    affiliate_id: 25,
    price: value,
    liquidity_usd: liquidity,
    ...(closed ? { closed: true } : {}),
  });

/** The upstream's answer showing that price (no closed_at, as every events answer). */
function shown(board: Board, value: number, updatedAt: string, liquidity: number): Event {
  const m = [...board.events.get(E)!.markets.values()][0]!;
  const line = [...m.participants.values()][0]!.lines.get('-3.5')!;
  const held = line.prices.get(25)!;
  return {
    event_id: E,
    markets: [
      {
        id: m.id,
        market_id: 2,
        period_id: 1,
        participants: [
          {
            id: 2002,
            type: 'TYPE_TEAM',
            name: 'Boston',
            lines: [
              {
                id: line.id,
                value: '-3.5',
                prices: {
                  '25': {
                    id: String(held.id),
                    price: value,
                    is_main_line: held.is_main_line,
                    updated_at: updatedAt,
                    liquidity_usd: liquidity,
                  },
                },
              },
            ],
          },
        ],
      },
    ],
  } as unknown as Event;
}

async function mirrorHolding(...batches: [string, PriceUpdate][]): Promise<Board> {
  const board = new Board();
  const ledger = await Ledger.open(new MemoryStore(), board, new MemoryBus());
  await ledger.apply(batch(T1, [{ kind: 'event', event: nbaEvent(E) }]));
  for (const [at, u] of batches) await ledger.apply(batch(at, [u]));
  return board;
}

test('a closed price shown at the time it was closed takes the shown liquidity and stays closed', async () => {
  const board = await mirrorHolding([T1, quote(-110, 100)], [T2, quote(-110, 100, true)]);
  const [t] = extrasOf(board, shown(board, -110, T2, 300));
  assert.ok(t, 'the differing liquidity is handed on');
  assert.equal(t.at, T2);
  const u = t.update as PriceUpdate;
  assert.deepEqual([u.price, u.liquidity_usd, u.closed], [-110, 300, true]);
});

test('a closed price shown at a later time is not taken: the answer cannot say it is still closed', async () => {
  const board = await mirrorHolding([T1, quote(-110, 100)], [T1, quote(-110, 100, true)]);
  assert.deepEqual(extrasOf(board, shown(board, -110, T2, 300)), []);
});

test('an open price shown later at the same quote takes the shown liquidity, open', async () => {
  const board = await mirrorHolding([T1, quote(-110, 100)]);
  const [t] = extrasOf(board, shown(board, -110, T2, 300));
  const u = t!.update as PriceUpdate;
  assert.deepEqual([t!.at, u.liquidity_usd, u.closed], [T2, 300, false]);
});
