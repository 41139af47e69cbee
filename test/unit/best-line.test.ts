import assert from 'node:assert/strict';
import { test } from 'node:test';
import { bestOffer } from '../../src/domain/best-line.ts';

const o = (line: string, price: number, affiliate_id: number) => ({ line, price, affiliate_id });

test('moneyline: the best payout wins; the off-board sentinel never does', () => {
  assert.equal(bestOffer([o('', -110, 19), o('', 105, 23), o('', 0.0001, 24)], 'price')?.affiliate_id, 23);
  assert.equal(bestOffer([o('', -150, 19), o('', -140, 23)], 'price')?.affiliate_id, 23);
  assert.equal(bestOffer([o('', 0.0001, 19)], 'price'), undefined);
});

test('spread: most points first, then price', () => {
  assert.equal(bestOffer([o('3.5', -110, 19), o('4', -125, 23)], 'most_points')?.affiliate_id, 23);
  assert.equal(bestOffer([o('-3', -120, 19), o('-3.5', 110, 23)], 'most_points')?.affiliate_id, 19);
  assert.equal(bestOffer([o('-3', -120, 19), o('-3', -105, 23)], 'most_points')?.affiliate_id, 23);
});

test('totals: over prefers the lowest total, under the highest; ties go to the lower book id', () => {
  assert.equal(bestOffer([o('221.5', -110, 19), o('220.5', -120, 23)], 'fewest_points')?.affiliate_id, 23);
  assert.equal(bestOffer([o('221.5', -110, 19), o('220.5', -120, 23)], 'most_points')?.affiliate_id, 19);
  assert.equal(bestOffer([o('221.5', -110, 23), o('221.5', -110, 19)], 'most_points')?.affiliate_id, 19);
});
