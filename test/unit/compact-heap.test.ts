import assert from 'node:assert/strict';
import { test } from 'node:test';
import { compactHeap } from '../../src/ops/compact-heap.ts';

test('compactHeap gives back the pages that dropped objects left half empty', async () => {
  let held: { i: number; text: string; price: number }[] = [];
  for (let i = 0; i < 600_000; i++) held.push({ i, text: `t${i}`, price: i * 1.5 });
  // Two of three dropped: every page keeps some live objects, so only a collection that moves them
  // gives most of those pages back.
  held = held.filter((_, i) => i % 3 === 0);
  const c = await compactHeap();
  assert.ok(c, 'node has an inspector here');
  const freedMb = (c.beforeBytes - c.afterBytes) / (1024 * 1024);
  assert.equal(freedMb > 20, true, `committed heap went from ${c.beforeBytes} to ${c.afterBytes} bytes`);
  assert.equal(held.length, 200_000);
});
