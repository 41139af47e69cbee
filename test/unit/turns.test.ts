import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Turns } from '../../src/http/turns.ts';

const flushMicrotasks = () => new Promise<void>((resolve) => queueMicrotask(resolve));

test('one caller a turn of the loop, in the order they asked', async () => {
  const turns = new Turns();
  const order: string[] = [];
  const a = turns.next().then(() => order.push('a'));
  const b = turns.next().then(() => order.push('b'));
  const c = turns.next().then(() => order.push('c'));
  assert.equal(turns.queued, 3);
  await a;
  await flushMicrotasks();
  assert.deepEqual(order, ['a'], 'the second waits for another turn, not for the microtasks of the first');
  await Promise.all([b, c]);
  assert.deepEqual(order, ['a', 'b', 'c']);
  assert.equal(turns.queued, 0);
});

test('a caller ahead goes before every caller that is not, whenever it asks', async () => {
  const turns = new Turns();
  const order: string[] = [];
  const first = turns.next().then(() => order.push('first build'));
  const second = turns.next().then(() => order.push('second build'));
  await first;
  // Asked after both first builds, while the second still waits: the refresh takes the next turn.
  const refresh = turns.next(true).then(() => order.push('refresh'));
  const again = turns.next(true).then(() => order.push('refresh again'));
  const third = turns.next().then(() => order.push('third build'));
  await Promise.all([second, refresh, again, third]);
  assert.deepEqual(order, ['first build', 'refresh', 'refresh again', 'second build', 'third build']);
  assert.equal(turns.queued, 0);
});
