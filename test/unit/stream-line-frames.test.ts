import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Account } from '../../src/access/authenticator.ts';
import { entitlementsFor } from '../../src/access/entitlements.ts';
import { OPEN_SCOPE, scopeOf } from '../../src/access/plan-scope.ts';
import { Board } from '../../src/board/board.ts';
import type { CommittedBatch } from '../../src/bus/bus.ts';
import { MemoryBus } from '../../src/bus/memory-bus.ts';
import { eventLines, FULL_GAME, LineSetBuilder } from '../../src/projection/v1-line-sets.ts';
import { Ledger } from '../../src/ledger/ledger.ts';
import type { Update } from '../../src/ledger/updates.ts';
import { framesOf, lineFramesOf } from '../../src/stream/frames.ts';
import type { LineFrame } from '../../src/stream/line-frames.ts';
import { lineStreamParams } from '../../src/stream/params.ts';
import { Subscription } from '../../src/stream/subscription.ts';
import { MemoryStore } from '../../src/store/memory/memory-store.ts';
import { batch, nbaEvent, nbaPrices, price } from '../helpers/fixtures.ts';
import { SIMULATOR_CATALOG } from '../helpers/simulator-catalog.ts';

const E = 'f'.repeat(32);

/** A ledger over a board; the line frames of each later batch, made as the hub makes them. */
async function setUp() {
  const board = new Board();
  const bus = new MemoryBus();
  const ledger = await Ledger.open(new MemoryStore(), board, bus);
  await ledger.apply(batch('2026-11-23T10:00:00Z', [{ kind: 'event', event: nbaEvent(E) }, ...nbaPrices(E)]));
  let last: { batch: CommittedBatch; frames: LineFrame[] } | undefined;
  bus.subscribe((b) => {
    last = { batch: b, frames: lineFramesOf(framesOf(b.changes, SIMULATOR_CATALOG), board, SIMULATOR_CATALOG) };
  });
  return {
    board,
    async apply(...updates: Update[]) {
      await ledger.apply(batch('2026-11-23T10:01:00Z', updates));
      return last!;
    },
  };
}

test('one frame per line set a batch touched, at its last row, as the V1 builder makes it; quiet rows, team totals and markets the set does not show make none', async () => {
  const { board, apply } = await setUp();
  const { batch: b, frames } = await apply(
    price(E, { market_id: 1, participant_id: 2002, affiliate_id: 19, price: 125 }),
    price(E, {
      market_id: 94,
      participant_id: 2002,
      affiliate_id: 23,
      line: 'Over 108.5',
      price: -110,
      is_main_line: true,
    }),
    price(E, { market_id: 1, participant_id: 2014, affiliate_id: 19, price: -140 }),
    // The same price with liquidity only: no change to show.
    price(E, { market_id: 1, participant_id: 2014, affiliate_id: 23, price: -150, liquidity_usd: 100 }),
    // A second moneyline market of the full game: the set shows market 1, which did not move.
    price(E, { market_id: 1150, participant_id: 2002, affiliate_id: 23, price: 200 }),
  );
  assert.equal(frames.length, 1);
  const [f] = frames;
  assert.equal(f!.id, b.changes.filter((r) => r.kind === 'price' && r.affiliate_id === 19).at(-1)!.id);
  const state = board.getEvent(E)!;
  const lines = eventLines(state);
  const builder = new LineSetBuilder(state, SIMULATOR_CATALOG);
  const lineId = lines.lineIds.get(FULL_GAME)!.get(19)!;
  const set = builder.lineSet(FULL_GAME, lines.markets.get(FULL_GAME)!, 19, lineId);
  assert.deepEqual(JSON.parse(f!.data), { event_id: E, sport_id: 4, ...set });
  assert.equal(JSON.parse(f!.data).affiliate_id, 19);
  assert.equal(f!.points, builder.prices, 'one point per price the set shows');
  assert.equal(f!.points, 7);
  const message = f!.dedicatedMessage(1_700_000_000);
  assert.equal(message, f!.dedicatedMessage(1_800_000_000), 'serialised once');
  assert.equal(JSON.parse(message).meta.type, 'line');
});

test('a plan gets a set only if it covers the book and every market of it; filters by book and period', async () => {
  const { apply } = await setUp();
  const { frames } = await apply(
    price(E, { market_id: 1, participant_id: 2002, affiliate_id: 19, price: 120 }),
    price(E, { market_id: 4, period_id: 1, participant_id: 2002, affiliate_id: 19, price: 135 }),
    price(E, { market_id: 41, participant_id: 2002, affiliate_id: 19, price: 150 }),
    price(E, { market_id: 1, participant_id: 2002, affiliate_id: 4, price: 118 }),
  );
  const byKey = new Map(frames.map((f) => [`${f.affiliateId}|${f.periodId}`, f]));
  assert.deepEqual([...byKey.keys()].sort(), ['19|0', '19|1', '19|7', '4|0']);
  // Free: books 19, 22, 23, 24, the full game only, no in-play markets.
  const free = scopeOf({ entitlements: entitlementsFor('free') } as Account, SIMULATOR_CATALOG);
  assert.deepEqual(
    [...byKey].filter(([, f]) => f.coveredBy(free)).map(([k]) => k),
    ['19|0'],
  );
  assert.equal(
    frames.every((f) => f.coveredBy(OPEN_SCOPE)),
    true,
  );

  const sub = (query: string) =>
    new Subscription(
      { deliver() {} },
      '',
      'lines',
      lineStreamParams(new URLSearchParams(query), OPEN_SCOPE),
      OPEN_SCOPE,
      true,
      () => undefined,
    );
  const kept = (query: string) =>
    [...byKey]
      .filter(([, f]) => sub(query).matches(f))
      .map(([k]) => k)
      .sort();
  assert.deepEqual(kept('period=period_first_half,7'), ['19|1', '19|7']);
  assert.deepEqual(kept('affiliate_ids=4'), ['4|0']);
  assert.deepEqual(kept(`event_ids=${'0'.repeat(32)}`), []);
  assert.deepEqual(kept('sport_ids=4&period=0'), ['19|0', '4|0']);
});
