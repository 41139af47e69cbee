import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Event, EventParams, OddsbaseClient, Price } from '../../packages/client/src/index.ts';
import { Board } from '../../src/board/board.ts';
import type { EventInfo } from '../../src/domain/types.ts';
import { fillExtras } from '../../src/feeds/upstream/row-extras.ts';
import type { Timed } from '../../src/feeds/upstream/records.ts';
import type { PriceUpdate } from '../../src/ledger/updates.ts';
import { nbaEvent, price } from '../helpers/fixtures.ts';

/**
 * Polled markets-delta rows given the liquidity and source ids of the upstream's rows, against a
 * fake upstream whose events and closing answers show each price's current and closing states.
 */

const STARTED = 'a'.repeat(32);
const AHEAD = 'b'.repeat(32);
const START = Date.parse('2026-12-06T18:00:00.000Z');
const NOW = START + 3_600_000;
const iso = (ms: number) => new Date(ms).toISOString();

/** An answer of one event showing, for market 2, the given prices of book 25, by price id. */
function shown(eventId: string, prices: Record<string, Partial<Price> & { price: number; updated_at: string }>): Event {
  return {
    event_id: eventId,
    markets: [
      {
        id: 1,
        market_id: 2,
        period_id: 1,
        participants: Object.entries(prices).map(([id, p]) => ({
          id: Number(id),
          type: 'TYPE_TEAM',
          name: 'Team',
          lines: [{ id: `line${id}`, value: '-3.5', prices: { '25': { id, is_main_line: true, ...p } } }],
        })),
      },
    ],
  } as unknown as Event;
}

function fakeUpstream(current: Event[], closing: Event[]) {
  const asked: string[] = [];
  const answer = (route: string, events: Event[]) => async (eventId: string, q: EventParams) => {
    asked.push(`${route} ${eventId} markets=${q.market_ids} books=${q.affiliate_ids} ${q.include}`);
    return { data: { events: events.filter((e) => e.event_id === eventId) } };
  };
  const client = { event: answer('event', current), closing: answer('closing', closing) };
  return { client: client as unknown as OddsbaseClient, asked };
}

/** A polled row's record, holding the extras the mirror had (`deltaRecord`). */
function row(eventId: string, priceId: number, at: number, value: number, extras: Partial<PriceUpdate>): Timed {
  const update = price(eventId, {
    market_id: 2,
    period_id: 1,
    participant_id: priceId,
    line: '-3.5',
    affiliate_id: 25,
    price: value,
    price_id: priceId,
    keep_time: true,
    ...extras,
  });
  return { at: iso(at), update };
}

function board(): Board {
  const b = new Board();
  for (const [id, startMs] of [
    [STARTED, START],
    [AHEAD, NOW + 3_600_000],
  ] as const) {
    b.events.set(id, { info: nbaEvent(id) as EventInfo, startMs, markets: new Map(), version: 0 });
  }
  return b;
}

const extrasOf = (t: Timed) => {
  const u = t.update as PriceUpdate;
  return { liquidity_usd: u.liquidity_usd, source_id: u.source_id };
};

test("a polled row takes the extras of the upstream's state it is: current, or closing once started", async () => {
  const beforeStart = START - 60_000;
  const afterStart = START + 60_000;
  const up = fakeUpstream(
    [
      shown(STARTED, {
        7: { price: -120, updated_at: iso(afterStart), liquidity_usd: 900 },
        8: { price: -105, updated_at: iso(afterStart + 1000), liquidity_usd: 300 },
        9: { price: 110, updated_at: iso(afterStart), source_id: 'new' },
      }),
      shown(AHEAD, { 10: { price: 150, updated_at: iso(NOW - 1000), liquidity_usd: 40 } }),
    ],
    [shown(STARTED, { 7: { price: -115, updated_at: iso(beforeStart), liquidity_usd: 500 } })],
  );
  const rows = [
    // Price 7 moved before the start (its closing state) and after it (its current state).
    row(STARTED, 7, beforeStart, -115, { liquidity_usd: 100 }),
    row(STARTED, 7, afterStart, -120, { liquidity_usd: 100 }),
    // Price 8 moved again since this row: neither state shown, it keeps what it holds.
    row(STARTED, 8, afterStart, -110, { liquidity_usd: 200 }),
    // Price 9's state shows a new source id and no liquidity.
    row(STARTED, 9, afterStart, 110, { liquidity_usd: 5, source_id: 'old' }),
    row(AHEAD, 10, NOW - 1000, 150, { liquidity_usd: 20 }),
  ];
  await fillExtras(
    up.client,
    board(),
    rows.map((t) => ({ eventId: t.update.kind === 'price' ? t.update.event_id : '', t })),
    NOW,
    new AbortController().signal,
  );
  assert.deepEqual(rows.map(extrasOf), [
    { liquidity_usd: 500, source_id: undefined },
    { liquidity_usd: 900, source_id: undefined },
    { liquidity_usd: 200, source_id: undefined },
    { liquidity_usd: undefined, source_id: 'new' },
    { liquidity_usd: 40, source_id: undefined },
  ]);
  assert.deepEqual(up.asked, [
    `event ${STARTED} markets=2 books=25 all_periods`,
    `closing ${STARTED} markets=2 books=25 all_periods`,
    // Not started: its closing state is its current one, and closing is not asked.
    `event ${AHEAD} markets=2 books=25 all_periods`,
  ]);
});
