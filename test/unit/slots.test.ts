import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Slots } from '../../src/board/slots.ts';

test('slots are handed out up to their number, then in the order asked as holders give them back', async () => {
  const slots = new Slots(2);
  const got: string[] = [];
  const a = await slots.acquire();
  const b = await slots.acquire();
  const c = slots.acquire().then((r) => (got.push('c'), r));
  const d = slots.acquire().then((r) => (got.push('d'), r));
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(got, [], 'both slots are held');
  assert.equal(slots.queued, 2);
  a();
  a();
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(got, ['c'], 'a slot given back twice is one slot');
  b();
  (await c)();
  (await d)();
  assert.equal(slots.queued, 0);
  // All free again: two at once without waiting.
  await slots.acquire();
  await slots.acquire();
  assert.throws(() => new Slots(0), /positive integer/);
});
