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

test('a refresh goes before every caller that is not one, whenever it asks', async () => {
  const turns = new Turns();
  const order: string[] = [];
  const first = turns.next().then(() => order.push('first build'));
  const second = turns.next().then(() => order.push('second build'));
  await first;
  // Asked after both first builds, while the second still waits: the refresh takes the next turn.
  const refresh = turns.next('refresh').then(() => order.push('refresh'));
  const again = turns.next('refresh').then(() => order.push('refresh again'));
  const third = turns.next().then(() => order.push('third build'));
  await Promise.all([second, refresh, again, third]);
  assert.deepEqual(order, ['first build', 'refresh', 'refresh again', 'second build', 'third build']);
  assert.equal(turns.queued, 0);
});

test('work started goes before work not begun, after refreshes; the builds of a burst run one after another', async () => {
  const turns = new Turns();
  const order: string[] = [];
  /** A build of three slices: a turn to start, then a turn before each later slice. */
  let aBegan!: () => void;
  const began = new Promise<void>((resolve) => (aBegan = resolve));
  const build = async (name: string) => {
    await turns.next();
    for (let slice = 1; slice <= 3; slice++) {
      if (slice > 1) await turns.next('started');
      order.push(`${name}${slice}`);
      if (name === 'a' && slice === 1) aBegan();
    }
  };
  const a = build('a');
  const b = build('b');
  await began;
  // Asked while a's second slice and b's start wait: the refresh goes first, then a, then b.
  const refresh = turns.next('refresh').then(() => order.push('refresh'));
  await Promise.all([a, b, refresh]);
  assert.deepEqual(order, ['a1', 'refresh', 'a2', 'a3', 'b1', 'b2', 'b3']);
});
