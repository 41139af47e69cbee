import assert from 'node:assert/strict';
import { test } from 'node:test';
import { priceState } from '../../src/board/event-state.ts';

const base = {
  id: 7,
  affiliate_id: 25,
  price: -110,
  is_main_line: true,
  updated_at: '2026-11-28T02:00:00.000Z',
  closed_at: '',
  price_delta: 0.0125,
  change_id: 99,
};
const make = (liquidity?: number, source?: string, movedFrom?: string) =>
  priceState(7, 25, -110, true, base.updated_at, '', 0.0125, 99, liquidity, source, movedFrom);

test('a price state holds exactly the optional fields it was given, none as an undefined property', () => {
  assert.deepEqual(make(), base);
  assert.deepEqual(make(5000), { ...base, liquidity_usd: 5000 });
  assert.deepEqual(make(undefined, 'tok:1:nba'), { ...base, source_id: 'tok:1:nba' });
  assert.deepEqual(make(5000, 'tok:1:nba'), { ...base, liquidity_usd: 5000, source_id: 'tok:1:nba' });
  assert.deepEqual(make(undefined, undefined, '-3.5'), { ...base, moved_from: '-3.5' });
  assert.deepEqual(make(0, undefined, '-3.5'), { ...base, liquidity_usd: 0, moved_from: '-3.5' });
  for (const s of [make(), make(1), make(undefined, 'x'), make(1, 'x'), make(undefined, undefined, '1')]) {
    for (const [k, v] of Object.entries(s)) assert.notEqual(v, undefined, `${k} is present only with a value`);
  }
});
