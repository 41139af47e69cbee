import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  marketStream,
  OddsbaseClient,
  ReconnectingSocket,
  queryString,
  retryAfterMs,
  type Timers,
  type WebSocketConstructor,
  type WebSocketLike,
} from '../../packages/client/src/index.ts';

/** Timers the test runs by hand: each armed timer is recorded with its delay. */
function manualTimers() {
  let next = 1;
  const armed = new Map<number, { ms: number; fn: () => void }>();
  const timers: Timers = {
    setTimeout: (fn, ms) => {
      armed.set(next, { ms, fn });
      return next++;
    },
    clearTimeout: (h) => void armed.delete(h as number),
  };
  /** Fires the armed timer of exactly `ms` (the test names the one it expects). */
  const fire = (ms: number) => {
    const hit = [...armed].find(([, t]) => t.ms === ms);
    assert.ok(hit, `a timer of ${ms} ms is armed (armed: ${[...armed.values()].map((t) => t.ms).join(', ')})`);
    armed.delete(hit[0]);
    hit[1].fn();
  };
  return { timers, armed, fire };
}

/** A WebSocket whose every connection the test opens, feeds or fails. */
function fakeSockets() {
  const made: (WebSocketLike & { url: string; sent: string[] })[] = [];
  const Ctor = class implements WebSocketLike {
    readyState = 0;
    sent: string[] = [];
    onopen: WebSocketLike['onopen'] = null;
    onmessage: WebSocketLike['onmessage'] = null;
    onclose: WebSocketLike['onclose'] = null;
    onerror: WebSocketLike['onerror'] = null;
    constructor(readonly url: string) {
      made.push(this);
    }
    send(d: string) {
      this.sent.push(d);
    }
    close() {
      this.readyState = 3;
    }
  };
  return { Ctor: Ctor as unknown as WebSocketConstructor, made };
}

const tick = () => new Promise((r) => setImmediate(r));

test('reconnect waits are 1, 2, 4, 8, 16, then 30 s, and reset once a connection opens', async () => {
  const { timers, fire } = manualTimers();
  const { Ctor, made } = fakeSockets();
  const waits: (number | undefined)[] = [];
  const socket = new ReconnectingSocket(Ctor, async () => ({ url: 'ws://x/api/v2/ws/markets', headers: {} }), {
    timers,
  });
  socket.on('down', (d) => waits.push(d.willRetryInMs));
  socket.start();
  await tick();
  for (const ms of [1000, 2000, 4000, 8000, 16000, 30000, 30000]) {
    made.at(-1)!.onclose!({ code: 1006, reason: '' });
    fire(ms);
    await tick();
  }
  assert.deepEqual(waits, [1000, 2000, 4000, 8000, 16000, 30000, 30000]);
  const live = made.at(-1)!;
  (live as { readyState: number }).readyState = 1;
  live.onopen!({});
  live.onclose!({ code: 1006, reason: '' });
  assert.equal(waits.at(-1), 1000, 'an opened connection starts the backoff again');
  socket.close();
});

test('30 s without any message, heartbeats included, drops the connection; a message re-arms it', async () => {
  const { timers, armed, fire } = manualTimers();
  const { Ctor, made } = fakeSockets();
  const downs: string[] = [];
  const socket = new ReconnectingSocket(Ctor, async () => ({ url: 'ws://x', headers: {} }), { timers });
  socket.on('down', (d) => downs.push(d.reason));
  socket.start();
  await tick();
  const ws = made[0]!;
  (ws as { readyState: number }).readyState = 1;
  ws.onopen!({});
  ws.onmessage!({ data: '{"meta":{"type":"heartbeat"},"data":{"now":1}}' });
  assert.deepEqual(
    [...armed.values()].map((t) => t.ms),
    [30000],
    'one silence timer, re-armed',
  );
  fire(30000);
  assert.deepEqual(downs, ['no message for 30000 ms']);
  assert.equal(ws.onmessage, null, 'the dead socket is forgotten');
  fire(1000);
  await tick();
  assert.equal(made.length, 2, 'a new connection');
  socket.close();
});

test('closed, the socket leaves no timer behind: from a listener of down, or with messages still coming', async () => {
  const { timers, armed } = manualTimers();
  const { Ctor, made } = fakeSockets();
  const socket = new ReconnectingSocket(Ctor, async () => ({ url: 'ws://x', headers: {} }), { timers });
  socket.on('down', () => socket.close());
  socket.start();
  await tick();
  made[0]!.onclose!({ code: 1006, reason: '' });
  assert.deepEqual([...armed.values()], [], 'closed while told of the drop: no retry armed');

  const second = new ReconnectingSocket(Ctor, async () => ({ url: 'ws://y', headers: {} }), { timers });
  const got: unknown[] = [];
  second.on('message', (m) => got.push(m));
  second.start();
  await tick();
  const ws = made[1]!;
  (ws as { readyState: number }).readyState = 1;
  ws.onopen!({});
  second.close();
  // The socket delivers what arrives during its closing handshake to whatever handler it holds.
  ws.onmessage?.({ data: '{"meta":{"type":"heartbeat"},"data":{"now":1}}' });
  assert.deepEqual([...armed.values()], [], 'a message during the closing handshake arms nothing');
  assert.deepEqual(got, [], 'and reaches no listener');
});

test('a page’s client: no key, its own origin, the session cookie for REST and streams', async (t) => {
  const asked: { url: string; init: RequestInit }[] = [];
  const pageFetch: typeof fetch = async (input, init) => {
    asked.push({ url: String(input), init: init ?? {} });
    return new Response('{"sports":[]}', { status: 200, headers: { 'content-type': 'application/json' } });
  };
  const c = new OddsbaseClient({ baseUrl: '', credentials: 'same-origin', fetch: pageFetch });
  await c.markets();
  assert.equal(asked[0]!.url, '/api/v2/markets', 'a relative URL: the page’s origin');
  assert.equal(asked[0]!.init.credentials, 'same-origin');
  assert.deepEqual(asked[0]!.init.headers, { accept: 'application/json' }, 'no key header');

  // A browser's WebSocket: the page's origin as ws://, no token asked, no header.
  const { Ctor, made } = fakeSockets();
  const { timers } = manualTimers();
  const page = globalThis as { location?: { origin: string } };
  page.location = { origin: 'http://odds.test:8080' };
  t.after(() => delete page.location);
  const stream = marketStream(c, { sport_ids: [4] }, { WebSocket: Ctor, timers });
  await tick();
  assert.equal(made[0]!.url, 'ws://odds.test:8080/api/v2/ws/markets?sport_ids=4');
  assert.equal(asked.length, 1, 'no token was asked: the upgrade carries the cookie');
  stream.close();
});

test('query strings: lists comma-separated, no key parameter; Retry-After in seconds or as a date', () => {
  assert.equal(
    queryString({ market_ids: [1, 2, 3], main_line: true, skip: undefined, date: '2026-11-23' }),
    '?market_ids=1%2C2%2C3&main_line=true&date=2026-11-23',
  );
  assert.throws(() => queryString({ key: 'ob_x' }), /header/);
  const h = (v: string) => ({ get: (n: string) => (n === 'retry-after' ? v : null) });
  assert.equal(retryAfterMs(h('2'), 0), 2000);
  assert.equal(retryAfterMs(h('Thu, 01 Jan 1970 00:00:05 GMT'), 1000), 4000);
  assert.equal(retryAfterMs(h('soon'), 0), undefined);
});

test('a connection without headers passes the URL alone, as a browser WebSocket needs; headers go to ws', async () => {
  const calls: unknown[][] = [];
  const Ctor = function (this: unknown, ...args: unknown[]) {
    calls.push(args);
    return { readyState: 0, send() {}, close() {}, onopen: null, onmessage: null, onclose: null, onerror: null };
  } as unknown as WebSocketConstructor;
  const bare = new ReconnectingSocket(Ctor, async () => ({ url: 'ws://x/api/v2/ws?token=t', headers: {} }));
  bare.start();
  await tick();
  assert.deepEqual(calls[0], ['ws://x/api/v2/ws?token=t'], 'no protocols argument: a browser would offer "undefined"');
  bare.close();
  const keyed = new ReconnectingSocket(Ctor, async () => ({
    url: 'ws://x/api/v2/ws',
    headers: { 'X-Service-Key': 'k' },
  }));
  keyed.start();
  await tick();
  assert.deepEqual(calls[1], ['ws://x/api/v2/ws', undefined, { headers: { 'X-Service-Key': 'k' } }]);
  keyed.close();
});
