import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  americanToProb,
  applyMargin,
  isOffBoard,
  MAX_AMERICAN,
  OFF_BOARD,
  priceDelta,
  probToAmerican,
  roundAmerican,
} from '../../src/domain/odds.ts';

test('OFF_BOARD is the 0.0001 sentinel', () => {
  assert.equal(OFF_BOARD, 0.0001);
  assert.equal(isOffBoard(0.0001), true);
  assert.equal(isOffBoard(-110), false);
  assert.equal(isOffBoard(0), false);
});

test('probToAmerican: favourites negative, underdogs positive, even money +100', () => {
  assert.equal(probToAmerican(0.5), 100);
  assert.equal(probToAmerican(0.6), -150);
  assert.equal(probToAmerican(0.4), 150);
  assert.equal(probToAmerican(0.75), -300);
  assert.equal(probToAmerican(0.2), 400);
});

test('probToAmerican never lands strictly between -100 and +100 and is an integer', () => {
  for (let p = 0.001; p < 1; p += 0.0007) {
    const a = probToAmerican(p);
    assert.ok(Number.isInteger(a), `${a} for ${p}`);
    assert.ok(a <= -100 || a >= 100, `${a} for ${p}`);
  }
  assert.equal(probToAmerican(0.5000001), -100);
});

test('probToAmerican clamps long shots and near certainties', () => {
  assert.equal(probToAmerican(0.00001), MAX_AMERICAN);
  assert.equal(probToAmerican(0), MAX_AMERICAN);
  assert.equal(probToAmerican(0.99999), -MAX_AMERICAN);
  assert.equal(probToAmerican(1), -MAX_AMERICAN);
});

test('americanToProb inverts probToAmerican', () => {
  assert.equal(americanToProb(100), 0.5);
  assert.equal(americanToProb(-100), 0.5);
  assert.ok(Math.abs(americanToProb(-110) - 110 / 210) < 1e-12);
  for (const p of [0.1, 0.33, 0.5, 0.62, 0.9]) {
    assert.ok(Math.abs(americanToProb(probToAmerican(p)) - p) < 0.005, String(p));
  }
});

test('roundAmerican rounds to the book step and stays outside (-100, 100)', () => {
  assert.equal(roundAmerican(-112, 5), -110);
  assert.equal(roundAmerican(-113, 5), -115);
  assert.equal(roundAmerican(132, 5), 130);
  assert.equal(roundAmerican(-101, 5), -100);
  assert.equal(roundAmerican(102, 5), 100);
  assert.equal(roundAmerican(1234, 50), 1250);
  assert.equal(roundAmerican(-30000, 50), -MAX_AMERICAN);
});

test('applyMargin scales implied probabilities to sum to 1 + margin', () => {
  const out = applyMargin([0.6, 0.4], 0.045);
  assert.ok(Math.abs(out[0] + out[1] - 1.045) < 1e-12);
  assert.ok(Math.abs(out[0] / out[1] - 1.5) < 1e-12);
  const three = applyMargin([0.45, 0.27, 0.28], 0.06);
  assert.ok(Math.abs(three.reduce((a, b) => a + b, 0) - 1.06) < 1e-12);
  // Inputs that do not sum to one are normalised first.
  const loose = applyMargin([3, 1], 0.1);
  assert.ok(Math.abs(loose[0] - 0.825) < 1e-12 && Math.abs(loose[1] - 0.275) < 1e-12);
  assert.deepEqual(applyMargin([0, 0], 0.05), [0, 0]);
});

test('a standard -110/-110 market from a 50/50 split', () => {
  const [a, b] = applyMargin([0.5, 0.5], 0.0476).map((p) => roundAmerican(probToAmerican(p), 5));
  assert.equal(a, -110);
  assert.equal(b, -110);
});

test('priceDelta is cur - prev, 0 for a first price or around the off-board sentinel', () => {
  assert.equal(priceDelta(-110, -120), -10);
  assert.equal(priceDelta(150, 135), -15);
  assert.equal(priceDelta(undefined, -110), 0);
  assert.equal(priceDelta(OFF_BOARD, -110), 0);
  assert.equal(priceDelta(-110, OFF_BOARD), 0);
});
