import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AFFILIATES } from '../../src/catalog/affiliates.ts';
import { MARKET_DEFINITIONS } from '../../src/catalog/markets.ts';
import { NAMED_PERIODS } from '../../src/catalog/periods.ts';
import { PARTICIPANT_TYPES, type ParticipantType } from '../../src/domain/types.ts';
import { groupKey } from '../../src/feeds/simulator/pricing.ts';

const who = (id: number, type: ParticipantType = 'TYPE_PLAYER') => ({ id, type, name: 'x' });

test("a price group's key is a number for every id of the catalogue, the largest included", () => {
  const market = Math.max(...MARKET_DEFINITIONS.map((d) => d.id));
  const period = Math.max(...NAMED_PERIODS.map((p) => p.periodId));
  const affiliate = Math.max(...AFFILIATES.map((a) => a.affiliate_id));
  for (const type of PARTICIPANT_TYPES) {
    assert.equal(typeof groupKey(market, period, who(2 ** 23 - 1, type), affiliate), 'number');
    assert.equal(typeof groupKey(0, 0, who(0, type), 0), 'number');
  }
});

test('two groups that differ in any one part have different keys', () => {
  const parts = {
    market: [0, 1, 2, 41, 1157, 4095],
    period: [0, 1, 18, 63],
    participant: [0, 1, 2, 2002, 1_502_100, 2 ** 23 - 1],
    affiliate: [0, 3, 28, 127],
  };
  const seen = new Map<number | string, string>();
  for (const m of parts.market) {
    for (const p of parts.period) {
      for (const id of parts.participant) {
        for (const type of PARTICIPANT_TYPES) {
          for (const a of parts.affiliate) {
            const key = groupKey(m, p, who(id, type), a);
            const what = `${m}/${p}/${type}/${id}/${a}`;
            assert.equal(seen.get(key), undefined, `${what} has the key of ${seen.get(key)}`);
            seen.set(key, what);
          }
        }
      }
    }
  }
});

test('parts outside the packed ranges fall back to a string key, still one per group', () => {
  const keys = [
    groupKey(4096, 0, who(1), 3),
    groupKey(0, 64, who(1), 3),
    groupKey(0, 0, who(2 ** 23), 3),
    groupKey(0, 0, who(-1), 3),
    groupKey(0, 0, who(1.5), 3),
    groupKey(0, 0, who(1), 128),
  ];
  for (const k of keys) assert.equal(typeof k, 'string');
  assert.equal(new Set(keys).size, keys.length);
  assert.equal(groupKey(0, 0, who(2 ** 23, 'TYPE_TEAM'), 3) === groupKey(0, 0, who(2 ** 23, 'TYPE_PLAYER'), 3), false);
});
