import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loopClock, SAME_SIGNAL_MS, signalHandler } from '../../src/ops/shutdown.ts';

/** A handler on a clock the test moves; `closing` settles when the test says. */
function handler() {
  let t = 1000;
  const exits: number[] = [];
  const said: string[] = [];
  let finish!: () => void;
  const closing = new Promise<void>((r) => (finish = r));
  let closes = 0;
  const onSignal = signalHandler(
    () => {
      closes++;
      return closing;
    },
    (l) => said.push(l),
    (code) => exits.push(code),
    () => {
      const from = t;
      return () => t - from;
    },
  );
  return {
    onSignal,
    exits,
    said,
    finish,
    closes: () => closes,
    advance: (ms: number) => (t += ms),
  };
}

test('Ctrl-C through npm start: the SIGINT npm forwards right after the terminal’s is the same one, and the close goes on', async () => {
  const h = handler();
  h.onSignal('SIGINT');
  h.advance(3);
  h.onSignal('SIGINT');
  assert.deepEqual(h.exits, [], 'not an exit at once');
  assert.equal(h.closes(), 1);
  h.finish();
  await new Promise((r) => setImmediate(r));
  assert.deepEqual(h.exits, [0]);
  assert.equal(h.said.filter((l) => /received SIGINT/.test(l)).length, 1, h.said.join('\n'));
});

test('a signal sent again later, or another signal, exits at once', () => {
  const later = handler();
  later.onSignal('SIGINT');
  later.advance(SAME_SIGNAL_MS);
  later.onSignal('SIGINT');
  assert.deepEqual(later.exits, [130]);
  assert.match(later.said.at(-1)!, /received SIGINT again, exiting now/);

  const other = handler();
  other.onSignal('SIGINT');
  other.advance(1);
  other.onSignal('SIGTERM');
  assert.deepEqual(other.exits, [143]);
});

test('a close that fails exits 1', async () => {
  const said: string[] = [];
  const exits: number[] = [];
  signalHandler(
    () => Promise.reject(new Error('disk gone')),
    (l) => said.push(l),
    (c) => exits.push(c),
  )('SIGTERM');
  await new Promise((r) => setImmediate(r));
  assert.deepEqual(exits, [1]);
  assert.match(said.at(-1)!, /error while closing: Error: disk gone/);
});

test('the loop clock counts the turns of a free loop, and a blocked loop as one tick', async () => {
  const since = loopClock();
  for (let i = 0; since() < 200; i++) {
    assert.ok(i < 1000, 'a free loop moves the clock');
    await new Promise((r) => setTimeout(r, 10));
  }
  const before = since();
  const blockedUntil = Date.now() + 600;
  while (Date.now() < blockedUntil);
  await new Promise((r) => setTimeout(r, 0));
  assert.ok(since() - before <= 100, `a 600 ms block counted ${since() - before} ms`);
});
