import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setImmediate as immediate } from 'node:timers/promises';
import { PlainTurns, RankedTurns, type Turns } from '../../src/perf/turns.ts';

const flushMicrotasks = () => new Promise<void>((resolve) => queueMicrotask(resolve));

test('one caller a turn of the loop, in the order they asked', async () => {
  const turns = new RankedTurns(3);
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
  const turns = new RankedTurns(3);
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
  const turns = new RankedTurns(3);
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

/** A clock moved by the writers themselves: each chunk costs `costMs`. */
function harness(budgetMs: number) {
  let t = 0;
  const log: string[] = [];
  const turns = new RankedTurns(budgetMs, () => t);
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

test('HTTP and stream work share each pass: writes up to their budget, then one HTTP caller', async () => {
  const { turns, log, writer } = harness(2);
  for (const name of ['w1', 'w2', 'w3', 'w4']) turns.add(writer(name, 1, 1));
  const http = [turns.next().then(() => log.push('h1')), turns.next().then(() => log.push('h2'))];
  await immediate();
  // A pass: two writes (the budget), then one build; neither kind waits for all of the other.
  assert.deepEqual(log, ['w1', 'w2', 'h1']);
  await immediate();
  assert.deepEqual(log, ['w1', 'w2', 'h1', 'w3', 'w4', 'h2']);
  await Promise.all(http);
  assert.equal(turns.queued + turns.waiting, 0);
});

test('a stream of builds does not starve the writers, nor a stream of writes the builds', async () => {
  const { turns, log, writer } = harness(1);
  const endless = writer('w', 1000, 1);
  turns.add(endless);
  const builds = Array.from({ length: 5 }, (_, i) => turns.next().then(() => log.push(`h${i}`)));
  await Promise.all(builds);
  assert.deepEqual(
    log.filter((x) => x.startsWith('h')),
    ['h0', 'h1', 'h2', 'h3', 'h4'],
  );
  // One write a pass (the budget), one build a pass: interleaved.
  assert.deepEqual(log.slice(0, 6), ['w', 'h0', 'w', 'h1', 'w', 'h2']);
});

/** Work given to a scheduler: builds of several slices at several ranks, and writers of several chunks. */
async function workload(turns: Turns): Promise<{ done: string[]; chunks: Record<string, number> }> {
  const done: string[] = [];
  const chunks: Record<string, number> = {};
  const writer = (name: string, n: number) => {
    let left = n;
    return {
      write() {
        chunks[name] = (chunks[name] ?? 0) + 1;
        return --left > 0;
      },
    };
  };
  const build = async (name: string, slices: number, rank: 'new' | 'refresh') => {
    await turns.next(rank);
    for (let s = 1; s < slices; s++) await turns.next(rank === 'refresh' ? 'refresh' : 'started');
    done.push(name);
  };
  turns.add(writer('x', 5));
  turns.add(writer('y', 1));
  await Promise.all([build('a', 3, 'new'), build('b', 1, 'refresh'), build('c', 2, 'new')]);
  while (turns.waiting > 0) await immediate();
  return { done: done.sort(), chunks };
}

test('the plain twin does the same work: every caller gets its turn, every writer writes all it has', async () => {
  const ranked = await workload(new RankedTurns(1));
  const plain = await workload(new PlainTurns());
  assert.deepEqual(plain, ranked);
  assert.deepEqual(ranked, { done: ['a', 'b', 'c'], chunks: { x: 5, y: 1 } });
});
