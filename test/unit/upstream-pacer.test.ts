import assert from 'node:assert/strict';
import { test } from 'node:test';
import { RequestPacer } from '../../src/feeds/upstream/pacer.ts';

/** A pacer on a clock that moves only by its sleeps and by `answerMs` per answer; what each request saw. */
function setup(limit: string | null, answerMs = 0) {
  const clock = { now: 0 };
  const starts: number[] = [];
  const sleeps: number[] = [];
  const pacer = new RequestPacer(
    () => clock.now,
    async (ms) => {
      sleeps.push(ms);
      clock.now += ms;
    },
  );
  const inner: typeof fetch = async () => {
    starts.push(clock.now);
    clock.now += answerMs;
    return new Response('{}', { headers: limit === null ? {} : { 'x-rate-limit': limit } });
  };
  return { clock, starts, sleeps, pacer, fetch: pacer.wrap(inner) };
}

test('no more than the X-Rate-Limit a second: a request waits until the one `limit` before it was answered a second ago', async () => {
  const t = setup('3', 100);
  for (let i = 0; i < 8; i++) await t.fetch('http://upstream/x');
  assert.equal(t.pacer.perSecond, 3);
  // Answers take 100 ms: 0, 100, 200 go at once; the fourth a second after the first's answer (100).
  assert.deepEqual(t.starts, [0, 100, 200, 1100, 1200, 1300, 2200, 2300]);
  for (let i = 3; i < t.starts.length; i++) assert.ok(t.starts[i]! >= t.starts[i - 3]! + 100 + 1000);
});

test('until an answer names the ceiling, requests are not held', async () => {
  const t = setup(null, 10);
  for (let i = 0; i < 5; i++) await t.fetch('http://upstream/x');
  assert.equal(t.pacer.perSecond, undefined);
  assert.deepEqual(t.sleeps, []);
});

test('requests asked at once wait in turn; one still awaited holds the next back', async () => {
  const clock = { now: 0 };
  const starts: number[] = [];
  let release: (() => void) | undefined;
  const pacer = new RequestPacer(
    () => clock.now,
    async (ms) => {
      clock.now += ms;
    },
  );
  let first = true;
  const paced = pacer.wrap(async () => {
    starts.push(clock.now);
    if (first) {
      first = false;
      return new Response('{}', { headers: { 'x-rate-limit': '1' } });
    }
    // The second answer is held until the test releases it.
    if (!release) await new Promise<void>((r) => (release = r));
    return new Response('{}', { headers: { 'x-rate-limit': '1' } });
  });
  await paced('http://upstream/a');
  const b = paced('http://upstream/b');
  const c = paced('http://upstream/c');
  await new Promise((r) => setImmediate(r));
  assert.deepEqual(starts, [0, 1000], 'b a second after a; c waits for b');
  clock.now = 1500;
  release!();
  await Promise.all([b, c]);
  assert.deepEqual(starts, [0, 1000, 2500], 'c a second after b was answered');
});

test('a stop ends the wait', async () => {
  const stop = new AbortController();
  // A sleep that never ends by itself: only the abort frees the request.
  const pacer = new RequestPacer(
    () => 0,
    (_ms, signal) => new Promise((resolve) => signal?.addEventListener('abort', () => resolve())),
  );
  const paced = pacer.wrap(async () => new Response('{}', { headers: { 'x-rate-limit': '1' } }));
  await paced('http://upstream/a');
  const waiting = paced('http://upstream/b', { signal: stop.signal });
  stop.abort(new Error('stopped'));
  await assert.rejects(waiting, /stopped/);
});

test('a burst 429 without the header names the ceiling in its body: the requests after it are paced', async () => {
  const clock = { now: 0 };
  const starts: number[] = [];
  const pacer = new RequestPacer(
    () => clock.now,
    async (ms) => {
      clock.now += ms;
    },
  );
  let n = 0;
  const paced = pacer.wrap(async () => {
    starts.push(clock.now);
    return ++n === 1
      ? new Response(JSON.stringify({ error: 'Rate limit exceeded', limit: 2 }), { status: 429 })
      : new Response('{}');
  });
  const first = await paced('http://upstream/a');
  assert.equal(first.status, 429);
  assert.deepEqual(await first.json(), { error: 'Rate limit exceeded', limit: 2 }, 'the body is still there to read');
  assert.equal(pacer.perSecond, 2);
  for (let i = 0; i < 3; i++) await paced('http://upstream/b');
  assert.deepEqual(starts, [0, 0, 1000, 1000]);
});

test('yielding requests take at most half the ceiling (rounded up) of any second', async () => {
  const t = setup('4');
  const yielding = t.pacer.wrap(
    async () => {
      t.starts.push(t.clock.now);
      return new Response('{}', { headers: { 'x-rate-limit': '4' } });
    },
    { yielding: true },
  );
  await t.fetch('http://upstream/learn');
  t.clock.now = 1000;
  t.starts.length = 0;
  for (let i = 0; i < 6; i++) await yielding('http://upstream/season');
  assert.deepEqual(t.starts, [1000, 1000, 2000, 2000, 3000, 3000]);
});

test('a yielding request waits while another waits its turn, and goes after it', async () => {
  const t = setup('1');
  const yielding = t.pacer.wrap(
    async () => {
      t.starts.push(-t.clock.now);
      return new Response('{}', { headers: { 'x-rate-limit': '1' } });
    },
    { yielding: true },
  );
  await t.fetch('http://upstream/a');
  // Asked at once: the follow's request waits a second for the ceiling, the yielding one until after it.
  await Promise.all([t.fetch('http://upstream/b'), yielding('http://upstream/season')]);
  // Yielding starts are negative: a at 0, b at 1000, the season request a second after b's answer.
  assert.deepEqual(t.starts, [0, 1000, -2000]);
});

test('a stop ends a yielding request’s wait', async () => {
  const pacer = new RequestPacer(
    () => 0,
    (_ms, signal) => new Promise((resolve) => signal?.addEventListener('abort', () => resolve())),
  );
  const answer = async () => new Response('{}', { headers: { 'x-rate-limit': '1' } });
  await pacer.wrap(answer)('http://upstream/a');
  const stop = new AbortController();
  const waiting = pacer.wrap(answer, { yielding: true })('http://upstream/season', { signal: stop.signal });
  stop.abort(new Error('stopped'));
  await assert.rejects(waiting, /stopped/);
});
