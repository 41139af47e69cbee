import assert from 'node:assert/strict';
import { test } from 'node:test';
import { countText } from '../../src/access/count-text.ts';

test('countText writes the digits String writes, for the counts of the usage headers', () => {
  for (const n of [0, 7, 948, 19_999, 2_147_483_647, 2_147_483_648, 9_007_199_254_740_991]) {
    assert.equal(countText(n), String(n));
  }
});
