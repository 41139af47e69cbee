import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ChangeRecord } from '../../src/changelog/change.ts';
import { compactionKey, dropsRow, type RowContext, startAtOf } from '../../src/store/retention.ts';
import { EVENT_A, eventRow, playRow, priceRow, scoreRow, statRow, time } from '../contract/fixtures.ts';

/** The keep rules of retention, row by row (the stores' steps are in test/contract/store.contract.ts). */

const row = (over: Partial<ChangeRecord>): ChangeRecord => ({ ...priceRow({ id: 1, price_id: 1 }), ...over });
const CUTOFF = time(100);
const context = (over: Partial<RowContext> = {}): RowContext => ({
  cutoffAt: CUTOFF,
  superseded: true,
  first: false,
  startAt: time(50),
  laterBeforeStart: true,
  ...over,
});

test('keys: a price by its id, headers and scores by event, a box cell by team, player and stat', () => {
  assert.equal(compactionKey(priceRow({ id: 1, price_id: 9 })), 'price|9');
  assert.equal(compactionKey(eventRow({ id: 1 })), `event|${EVENT_A}`);
  assert.equal(compactionKey(scoreRow({ id: 1 })), `score|${EVENT_A}`);
  assert.equal(compactionKey(statRow({ id: 1, stat_id: 3, value: 1 })), `stat|${EVENT_A}|2002||3`);
  assert.equal(
    compactionKey(statRow({ id: 1, stat_id: 3, value: 1, player_id: 200201 })),
    `stat|${EVENT_A}|2002|200201|3`,
  );
  const futures = { kind: 'futures_price' as const, market_id: 5, affiliate_id: 19, payload: '{"participant_id":7}' };
  assert.equal(compactionKey(row({ ...futures, event_id: 'f1' })), 'f1|5|19|7');
  assert.equal(compactionKey(row({ kind: 'futures_board', event_id: 'f1' })), 'f1|futures_board');
});

test('never dropped: plays, settlements, and the stat row that names a player', () => {
  assert.equal(compactionKey(playRow({ id: 1, sequence: 1 })), undefined);
  assert.equal(compactionKey(row({ kind: 'futures_settlement' })), undefined);
  const naming = JSON.stringify({
    team_id: 2002,
    player_id: 200201,
    stat_id: 3,
    value: '1',
    display_name: 'A B',
    position: 'G',
  });
  assert.equal(compactionKey(row({ kind: 'stat', payload: naming })), undefined);
});

test('a row is dropped only when superseded below the boundary and describing a time before the cutoff', () => {
  const header = row({ kind: 'event', at: time(10) });
  assert.equal(dropsRow(header, context()), true);
  assert.equal(dropsRow(header, context({ superseded: false })), false, "a key's last row stays");
  assert.equal(dropsRow({ ...header, at: CUTOFF }, context()), false, 'a row at the cutoff stays');
  assert.equal(dropsRow({ ...header, at: time(101) }, context()), false);
});

test('a price keeps its opener and its closing row (the last one at or before the start)', () => {
  const before = row({ at: time(40) });
  assert.equal(dropsRow(before, context()), true, 'a later row is also before the start');
  assert.equal(dropsRow(before, context({ first: true })), false, 'the opener');
  assert.equal(dropsRow(before, context({ laterBeforeStart: false })), false, 'the closing row');
  assert.equal(dropsRow(row({ at: time(50) }), context({ laterBeforeStart: false })), false, 'at the start itself');
  const live = row({ at: time(60) });
  assert.equal(dropsRow(live, context({ laterBeforeStart: false })), true, 'after the start: not the closing row');
  assert.equal(
    dropsRow(before, context({ startAt: undefined, laterBeforeStart: false })),
    true,
    'no known start, no closing',
  );
  // Only prices have openers and closing rows.
  assert.equal(dropsRow(row({ kind: 'score', at: time(40) }), context({ first: true, laterBeforeStart: false })), true);
});

test('an event date is compared as the closing reads compare it', () => {
  assert.equal(startAtOf('2026-11-23T23:00:00Z'), '2026-11-23T23:00:00.000Z');
  assert.equal(startAtOf('not a date'), undefined);
});
