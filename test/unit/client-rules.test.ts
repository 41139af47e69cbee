import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MARKET_DEFINITIONS } from '../../src/catalog/markets.ts';
import { OFF_BOARD } from '../../src/domain/odds.ts';
import {
  americanToDecimal,
  americanToFractional,
  checkPeriodScores,
  decimalToAmerican,
  displayAmerican,
  fractionalToAmerican,
  impliedProbability,
  LIVE_VARIANTS,
  logicalMarketId,
  noVig,
  OFF_BOARD_PRICE,
  offBoard,
  probabilityToAmerican,
  type Score,
  withInPlayVariants,
} from '../../packages/client/src/index.ts';

test('the client’s prematch/live pairs are the spec’s and the server catalogue’s', () => {
  assert.equal(LIVE_VARIANTS.size, 21);
  for (const [pre, live] of LIVE_VARIANTS) {
    assert.equal(MARKET_DEFINITIONS.find((d) => d.id === pre)?.live_variant_id, live, `market ${pre}`);
    assert.equal(logicalMarketId(live), pre);
    assert.equal(logicalMarketId(pre), pre);
  }
  assert.deepEqual(withInPlayVariants([1, 2, 3, 5]), [1, 2, 3, 5, 41, 42, 43]);
});

test('the sentinel is the server’s, shown as Off Board and never converted', () => {
  assert.equal(OFF_BOARD_PRICE, OFF_BOARD);
  assert.equal(offBoard(0.0001), true);
  assert.equal(offBoard('0.0001'), true);
  assert.equal(offBoard(-110), false);
  assert.equal(displayAmerican(0.0001), 'Off Board');
  assert.equal(displayAmerican(150), '+150');
  assert.equal(displayAmerican('-110'), '-110');
  for (const f of [americanToDecimal, impliedProbability, americanToFractional]) assert.equal(f(0.0001), undefined);
  assert.equal(noVig([-110, 0.0001]), undefined, 'a side off the board: no fair price');
});

test('American, decimal, fractional and probability conversions', () => {
  assert.equal(americanToDecimal(150), 2.5);
  assert.equal(americanToDecimal(-200), 1.5);
  assert.equal(decimalToAmerican(2.5), 150);
  assert.equal(decimalToAmerican(1.5), -200);
  assert.equal(decimalToAmerican(2), 100);
  assert.equal(decimalToAmerican(1), undefined);
  assert.equal(americanToFractional(150), '3/2');
  assert.equal(americanToFractional(-200), '1/2');
  assert.equal(americanToFractional(-110), '10/11');
  assert.equal(fractionalToAmerican('3/2'), 150);
  assert.equal(fractionalToAmerican('1/2'), -200);
  assert.equal(fractionalToAmerican('x'), undefined);
  assert.ok(Math.abs(impliedProbability(-110)! - 110 / 210) < 1e-12);
  assert.equal(impliedProbability(100), 0.5);
  assert.equal(probabilityToAmerican(0.5), 100);
  assert.equal(probabilityToAmerican(0.75), -300);
  assert.equal(probabilityToAmerican(1), undefined);
});

test('no-vig fair prices remove the margin proportionally', () => {
  const fair = noVig([-110, -110])!;
  assert.deepEqual(fair.probabilities, [0.5, 0.5]);
  assert.deepEqual(fair.american, [100, 100]);
  assert.ok(Math.abs(fair.margin - (220 / 210 - 1)) < 1e-12);
  const three = noVig([150, 250, 200])!;
  assert.ok(Math.abs(three.probabilities.reduce((a, b) => a + b, 0) - 1) < 1e-12);
  assert.equal(noVig([-110]), undefined);
});

const final = (away: number[], home: number[], period: number, over: Partial<Score> = {}): Score => ({
  event_id: 'e',
  event_status: 'STATUS_FINAL',
  score_away: away.reduce((a, b) => a + b, 0),
  score_home: home.reduce((a, b) => a + b, 0),
  winner_away: 0,
  winner_home: 0,
  score_away_by_period: away,
  score_home_by_period: home,
  venue_name: '',
  venue_location: '',
  game_clock: 0,
  display_clock: '0:00',
  game_period: period,
  broadcast: '',
  event_status_detail: 'Final',
  updated_at: '',
  ...over,
});

test('period scores by the spec’s rules', () => {
  assert.deepEqual(checkPeriodScores(4, final([20, 25, 30, 22], [24, 21, 28, 30], 4)), { usable: true, problems: [] });
  assert.equal(checkPeriodScores(4, final([20, 25, 30, 22, 10], [24, 21, 28, 25, 8], 5)).usable, true, 'one overtime');
  assert.equal(
    checkPeriodScores(4, final([20, 25, 30, 22], [24, 21, 28, 30], 5)).usable,
    false,
    'game_period disagrees',
  );
  assert.equal(checkPeriodScores(4, final([20, 25, 30], [24, 21, 28], 3)).usable, false, 'three quarters');
  assert.equal(
    checkPeriodScores(4, final([20, 25, 30, 22], [24, 21, 28, 30], 4, { score_home: 100 })).usable,
    false,
    'sum',
  );
  assert.equal(
    checkPeriodScores(4, final([20, 25, 30, 22], [24, 21, 28, 30], 4, { event_status: 'STATUS_IN_PROGRESS' })).usable,
    false,
  );
  assert.equal(checkPeriodScores(23, final([20, 25, 30, 22], [24, 21, 28, 30], 4)).usable, false, 'preseason');
  assert.equal(checkPeriodScores(23, final([], [], 0, { score_away: 101, score_home: 99 })).usable, false);
  const nine = [0, 1, 0, 2, 0, 0, 1, 0, 0];
  assert.equal(
    checkPeriodScores(
      3,
      final(
        nine,
        nine.slice(0, 8).map((x) => x + 1),
        9,
      ),
    ).usable,
    true,
    'home did not bat in the ninth',
  );
  assert.equal(checkPeriodScores(3, final(nine, nine.slice(0, 7), 9)).usable, false);
});
