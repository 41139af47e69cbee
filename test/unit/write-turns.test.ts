import assert from 'node:assert/strict';
import { setImmediate as immediate } from 'node:timers/promises';
import { test } from 'node:test';
import { WriteTurns } from '../../src/stream/write-turns.ts';

/** A clock moved by the writers themselves: each chunk costs `costMs`. */
function harness(budgetMs: number) {
  let t = 0;
  const log: string[] = [];
  const turns = new WriteTurns(budgetMs, () => t);
  const writer = (name: string, chunks: number, costMs: number) => {
    let left = chunks;
    return {
      write() {
        t += costMs;
        log.push(name);
        return --left > 0;
      },
    };
  };
  return { turns, log, writer };
}

test('a pass of the loop writes until its budget is spent; the rest waits for the next pass', async () => {
  const { turns, log, writer } = harness(3);
  for (const name of ['a', 'b', 'c', 'd', 'e']) turns.add(writer(name, 1, 1));
  await immediate();
  // Three chunks of 1 ms fill the 3 ms budget: before, every connection wrote in the same pass.
  assert.deepEqual(log, ['a', 'b', 'c']);
  assert.equal(turns.waiting, 2);
  await immediate();
  assert.deepEqual(log, ['a', 'b', 'c', 'd', 'e']);
  assert.equal(turns.waiting, 0);
});

test('a writer with more to write goes behind the others, so one busy client holds no one up', async () => {
  const { turns, log, writer } = harness(100);
  turns.add(writer('busy', 3, 1));
  turns.add(writer('x', 1, 1));
  turns.add(writer('y', 1, 1));
  await immediate();
  assert.deepEqual(log, ['busy', 'x', 'y', 'busy', 'busy']);
  assert.equal(turns.waiting, 0);
});

test('a writer added while others wait is served after them, and a slow chunk still ends its pass', async () => {
  const { turns, log, writer } = harness(3);
  turns.add(writer('slow', 2, 10));
  turns.add(writer('a', 1, 1));
  await immediate();
  assert.deepEqual(log, ['slow']);
  turns.add(writer('late', 1, 1));
  await immediate();
  assert.deepEqual(log, ['slow', 'a', 'slow']);
  await immediate();
  assert.deepEqual(log, ['slow', 'a', 'slow', 'late']);
  assert.equal(turns.waiting, 0);
});
