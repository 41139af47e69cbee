import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { DeltaRow, MarketsDeltaParams, OddsbaseClient } from '../../packages/client/src/index.ts';
import { QuietRows } from '../../src/feeds/upstream/quiet-rows.ts';

/**
 * The rows read beside the upstream's stream, against a fake markets delta: which rows name a
 * market to read again for its extras, and where the next read starts.
 */

const E = 'c'.repeat(32);

/** A markets-delta row of book `book` on market `market`, moved (or not) from its previous price. */
function row(book: number, market: number, price: number, previous: number, closedAt = ''): DeltaRow {
  return {
    event_id: E,
    affiliate_id: book,
    market_id: market,
    change_type: 'price_change',
    price: String(price),
    previous_price: String(previous),
    closed_at: closedAt,
  } as unknown as DeltaRow;
}

function fakeUpstream(rows: DeltaRow[]) {
  const asked: MarketsDeltaParams[] = [];
  const client = {
    async marketsDelta(q: MarketsDeltaParams) {
      asked.push(q);
      return { data: { deltas: rows, meta: { delta_last_id: '20', count: rows.length, has_more: false } } };
    },
  };
  return { client: client as unknown as OddsbaseClient, asked };
}

test('beside the stream: quiet rows of books with extras, and every row of a book with source ids', async () => {
  const up = fakeUpstream([
    // Book 25 has liquidity only: its moves come by the stream with their depth.
    row(25, 2, -110, -115),
    row(25, 3, -110, -110),
    // Book 26 has source ids, which frames do not carry: its moves and closings are read again.
    row(26, 4, 120, 110),
    row(26, 5, 120, 120, '2026-12-06T20:00:00.000Z'),
    // Book 19 has no extras.
    row(19, 6, 100, 100),
  ]);
  const rows = new QuietRows(up.client);
  rows.from('10');
  const found = await rows.read({ any: new Set([25, 26]), sourceIds: new Set([26]) }, new AbortController().signal);
  assert.deepEqual(
    found.map((m) => m.marketId),
    [3, 4, 5],
  );
  assert.deepEqual(up.asked, [{ last_id: '10', affiliate_ids: [25, 26], limit: 5000 }]);
  assert.equal(rows.position, '10', 'the cursor moves only once what was found is applied');
  rows.settle();
  assert.equal(rows.position, '20');
});
