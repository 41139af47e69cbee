import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { PastFillPosition } from '../../src/feeds/simulator/index.ts';
import { startTestServer } from '../helpers/server.ts';

interface DeltaPage {
  meta: { delta_last_id: string; count: number; has_more: boolean };
  deltas: { event_id: string }[];
}

/**
 * A first start serves once today's games are filled and fills the days before in the background,
 * through the same ledger as the live feed: a markets delta reader polling all along sees ids only
 * ascend, and at the end has read every price row after its first cursor, so no row took an id
 * below one already served and no hole was filled later.
 */
test('the background part of a first fill never hands out an id below one already served', async (t) => {
  // A few small sports with games every day: a short fill that still has days before today.
  const s = await startTestServer({ simulator: true, sports: [2, 16, 22, 26], seed: 11 });
  t.after(() => s.close());
  const { store } = s.server.services;
  const stored = await store.getMeta('history_fill_past');
  assert.ok(stored, 'a first start leaves the days before today to the background');
  const { split } = JSON.parse(stored) as PastFillPosition;

  // The zero-delay snapshot's cursor bootstraps the delta feed (the head as it serves).
  const today = new Date().toISOString().slice(0, 10);
  const first = await s.get(`/api/v2/sports/22/events/${today}`);
  assert.equal(first.status, 200);
  const start = Number((first.body as DeltaPage).meta.delta_last_id);
  assert.ok(start > 0, 'the first part is served');
  let read = 0;
  let cursor = start;
  let pastRowsWhileFilling = 0;
  for (let polls = 0; ; polls++) {
    assert.ok(polls < 20_000, 'the background part ends');
    const filling = s.server.services.readiness.history !== 'complete';
    const r = await s.get(`/api/v2/markets/delta?last_id=${cursor}&limit=5000`);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    const page = r.body as DeltaPage;
    const next = Number(page.meta.delta_last_id);
    assert.ok(next >= cursor, `the cursor went back from ${cursor} to ${next}`);
    read += page.deltas.length;
    for (const row of page.deltas) {
      const event = s.server.board.getEvent(row.event_id);
      if (filling && event && Date.parse(event.info.event_date) < split) pastRowsWhileFilling++;
    }
    cursor = next;
    if (!filling && !page.meta.has_more) break;
    if (!page.meta.has_more) await sleep(5);
  }
  // A row given an id at or below a cursor already served would be in the log and never read.
  const logged = await store.readChanges({ pricesOnly: true, afterId: start, toId: cursor, limit: 1_000_000 });
  assert.equal(read, logged.length, 'every price row after the first cursor was read once');
  assert.ok(pastRowsWhileFilling > 0, 'rows of the days before today were read while the background part ran');
  assert.equal(await store.getMeta('history_fill_past'), '', 'the background part completed');
  assert.ok(
    s.said.some((l) => /the history before \d{4}-\d\d-\d\d is filled/.test(l)),
    s.said.join('\n'),
  );
});
