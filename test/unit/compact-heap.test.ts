import assert from 'node:assert/strict';
import { test } from 'node:test';
import { compactHeap, compactWhenIdle } from '../../src/ops/compact-heap.ts';

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

test('compactWhenIdle waits until no request has begun for 2 s, and gives up when its signal ends', async () => {
  // Its checks keep no process alive (a server's listener does): this timer stands in for one.
  const alive = setTimeout(() => undefined, 60_000);
  let lastRequest = performance.now();
  const requests = setInterval(() => (lastRequest = performance.now()), 200);
  let stoppedAt = 0;
  setTimeout(() => {
    clearInterval(requests);
    stoppedAt = performance.now();
  }, 2500);
  const c = await compactWhenIdle(() => lastRequest, new AbortController().signal);
  assert.ok(c, 'compacted once idle');
  assert.ok(
    stoppedAt > 0 && performance.now() - stoppedAt >= 1900,
    'not while requests came, nor before 2 s without one',
  );
  const stop = new AbortController();
  const waiting = compactWhenIdle(() => performance.now(), stop.signal);
  stop.abort();
  assert.equal(await waiting, undefined);
  clearTimeout(alive);
});
