import assert from 'node:assert/strict';
import { test } from 'node:test';
import { NAMED_PERIODS, periodByName, periodIdsOf, periodOf } from '../../src/catalog/periods.ts';

test('period names and ids map both ways, prematch and in play', () => {
  assert.deepEqual(
    ['period_full_game', 'period_first_half', 'period_second_half', 'period_first_period', 'period_fourth_period'].map(
      (n) => periodByName(n)?.periodId,
    ),
    [0, 1, 2, 3, 6],
  );
  assert.deepEqual(periodByName('period_live_full_game'), { name: 'period_live_full_game', periodId: 7, live: true });
  assert.equal(periodByName('period_live_first_period')?.periodId, 15);
  assert.equal(periodByName('full_game'), undefined);
  assert.equal(new Set(NAMED_PERIODS.map((p) => p.periodId)).size, NAMED_PERIODS.length);
});

test('a market belongs to the named period of its id and period', () => {
  // In-play full-game markets carry period 0 outside tennis (7 in tennis): the live full game either way.
  assert.equal(periodOf(41, 0)?.name, 'period_live_full_game');
  assert.equal(periodOf(43, 7)?.name, 'period_live_full_game');
  assert.equal(periodOf(1, 0)?.name, 'period_full_game');
  // Half markets keep their ids and periods in play.
  assert.equal(periodOf(4, 1)?.name, 'period_first_half');
  assert.equal(periodOf(1010, 2)?.name, 'period_second_half');
  // Tennis sets: 3 and 4 prematch, 15 and 16 in play.
  assert.equal(periodOf(1150, 3)?.name, 'period_first_period');
  assert.equal(periodOf(1157, 16)?.name, 'period_live_second_period');
  assert.equal(periodOf(1, 9), undefined);
  assert.deepEqual(periodIdsOf(periodByName('period_live_full_game')!), [7, 0]);
  assert.deepEqual(periodIdsOf(periodByName('period_first_half')!), [1]);
});
