import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Board } from '../../src/board/board.ts';
import { MemoryBus } from '../../src/bus/memory-bus.ts';
import type { FeedStateReader, PriceSnapshot } from '../../src/board/feed-state.ts';
import { Simulator } from '../../src/feeds/simulator/index.ts';
import { PriceBook } from '../../src/feeds/simulator/pricing.ts';
import { Ledger } from '../../src/ledger/ledger.ts';
import type { Update } from '../../src/ledger/updates.ts';
import { MemoryStore } from '../../src/store/memory/memory-store.ts';

const NOW = Date.parse('2026-11-23T21:30:00Z');

test("a group's committed lines, read at once, are the prices read line by line", async () => {
  const board = new Board();
  const ledger = await Ledger.open(new MemoryStore(), board, new MemoryBus());
  // A day of games has every kind of group (closed lines included): earlier starts are left out.
  await new Simulator({ seed: 9, speed: 1, sink: ledger, state: board, now: () => NOW, sportIds: [4, 6] }).backfill(
    undefined,
    { split: NOW - 86_400_000 },
  );
  let groups = 0;
  let closed = 0;
  for (const ev of board.events.values()) {
    for (const m of ev.markets.values()) {
      for (const part of m.participants.values()) {
        const books = new Set<number>();
        for (const line of part.lines.values()) for (const a of line.prices.keys()) books.add(a);
        for (const affiliate_id of books) {
          const group = {
            event_id: ev.info.event_id,
            market_id: m.market_id,
            period_id: m.period_id,
            participant_id: part.id,
            affiliate_id,
          };
          const read = board.linePrices(group);
          const expected = [...part.lines.entries()].filter(([, l]) => l.prices.has(affiliate_id));
          assert.equal(read.size, expected.length);
          for (const [value] of expected) {
            assert.deepEqual(read.get(value), board.price({ ...group, line: value }));
            if (read.get(value)!.closed) closed++;
          }
          groups++;
        }
      }
    }
  }
  assert.ok(groups > 1_000, `${groups} groups read`);
  assert.ok(closed > 0, 'closed prices among them');
  assert.equal(
    board.linePrices({ event_id: 'none', market_id: 1, period_id: 0, participant_id: 1, affiliate_id: 1 }).size,
    0,
  );
});

test("after a restart a book takes its group's open committed lines among the candidates, and closes them later", () => {
  const group = { event_id: 'e'.repeat(32), market_id: 2, period_id: 0, participant_id: 2002, affiliate_id: 19 };
  const committed = new Map<string, PriceSnapshot>([
    ['-3.5', { price: -110, is_main_line: true, closed: false }],
    ['-4.5', { price: 105, is_main_line: false, closed: false }],
    ['-5.5', { price: 120, is_main_line: false, closed: true }],
    ['9.5', { price: 900, is_main_line: false, closed: false }],
  ]);
  const asked: object[] = [];
  const state = {
    linePrices: (g: object) => {
      asked.push(g);
      return committed;
    },
  } as unknown as FeedStateReader;
  const sent: Update[] = [];
  const book = new PriceBook(group.event_id, state, (u) => sent.push(u));
  const team = { id: 2002, type: 'TYPE_TEAM' as const, name: 'Boston' };
  assert.equal(book.adopt(2, 0, team, 19, ['-5.5', '-4.5', '-3.5', '-2.5']), '-3.5');
  assert.deepEqual(asked, [group]);
  assert.equal(sent.length, 0, 'adopting sends nothing');
  book.close(() => true);
  assert.deepEqual(
    sent.map((u) => (u.kind === 'price' ? [u.line, u.price, u.closed] : [])),
    [
      ['-4.5', 105, true],
      ['-3.5', -110, true],
    ],
  );
});
