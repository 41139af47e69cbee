import assert from 'node:assert/strict';
import { request } from 'node:http';
import { after, before, describe, test } from 'node:test';
import { MAX_CLIENT_MESSAGE } from '../../src/stream/intake.ts';
import { batch, nbaEvent, nbaPrices, price } from '../helpers/fixtures.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { connect, refusal, type TestSocket } from '../helpers/ws-client.ts';

/**
 * The stream endpoints against hostile input: keys put anywhere (path, query, subprotocol, in-band
 * params and ids) are never repeated in an answer, a close reason or a log line; frames past the
 * bounds (nesting, size, binary, rate) get an in-band error and a close, the server serves on, and
 * nothing a client sends puts a stack trace in the log.
 */
const E = 'c7'.repeat(16);
let s: TestServer;
let ultra: string;
let base: string;

before(async () => {
  s = await startTestServer({ logLevel: 'info' });
  ultra = await s.newKey('ultra');
  base = s.url.replace('http', 'ws');
  await s.server.ledger.apply(
    batch(new Date().toISOString(), [{ kind: 'event', event: nbaEvent(E) }, ...nbaPrices(E)]),
  );
});

after(() => s.close());

/** A key of the right shape that is not issued, and the test's own valid key. */
const FAKE = `ob_${'4f1c9e0a7b3d2c58'.repeat(2)}9a0b1c2d`;

/** Every 16-character run of a key's 40 hex digits: none may appear anywhere, whatever was cut around it. */
function assertNoKey(text: string, where: string): void {
  for (const key of [FAKE, s.key, ultra]) {
    const hex = key.slice(3).toLowerCase();
    const lower = text.toLowerCase();
    for (let i = 0; i + 16 <= hex.length; i++) {
      assert.ok(!lower.includes(hex.slice(i, i + 16)), `${where} carries a key: ${text.slice(0, 400)}`);
    }
  }
}

/** The forms a key takes in a client's input: whole, without its prefix, behind filler that a cut would keep apart. */
const forms = (key: string) => [key, key.slice(3), `${'y'.repeat(30)}${key}`, key.toUpperCase()];

const open = (path = '/api/v2/ws', key = s.key) => connect(`${base}${path}`, { 'X-Service-Key': key });

function assertCleanLog(): void {
  const log = s.logs.join('');
  assertNoKey(log, 'the log');
  assert.ok(
    !/RangeError|Maximum call stack|"stack"|\n\s+at /.test(log),
    `a stack trace in the log: ${log.slice(-2000)}`,
  );
}

describe('keys are never echoed', () => {
  test('a key in the path of an upgrade: the 404 does not repeat it', async () => {
    for (const key of forms(FAKE)) {
      const r = await refusal(`${base}/api/v2/ws/${key}`, { 'X-Service-Key': s.key });
      assert.equal(r.status, 404);
      assert.match(r.body.message, /no WebSocket endpoint at/);
      assertNoKey(JSON.stringify(r.body), 'the 404');
    }
  });

  test('a key in a filter of a dedicated stream: the 400 does not repeat it', async () => {
    const v1 = await s.newKey('enterprise', { v1: true, v2: false });
    for (const [path, key] of [
      ['/api/v2/ws/markets', s.key],
      ['/api/v1/ws', v1],
    ] as const) {
      for (const form of forms(FAKE)) {
        for (const name of ['sport_ids', 'event_ids', 'affiliate_ids']) {
          const r = await refusal(`${base}${path}?${name}=${encodeURIComponent(form)}`, { 'X-Service-Key': key });
          assert.equal(r.status, 400, `${path} ${name}: ${JSON.stringify(r.body)}`);
          assertNoKey(JSON.stringify(r.body), `${path} ${name}`);
        }
      }
    }
  });

  test('a key offered as the subprotocol is not echoed in the 101', async () => {
    const url = new URL('/api/v2/ws', s.url);
    const headers = await new Promise<Record<string, unknown>>((resolve, reject) => {
      const req = request(url, {
        headers: {
          Connection: 'Upgrade',
          Upgrade: 'websocket',
          'Sec-WebSocket-Version': '13',
          'Sec-WebSocket-Key': Buffer.from('0123456789abcdef').toString('base64'),
          'Sec-WebSocket-Protocol': FAKE,
          'X-Service-Key': s.key,
        },
      });
      req.on('upgrade', (res, socket) => {
        socket.destroy();
        resolve({ status: res.statusCode, ...res.headers });
      });
      req.on('response', (res) => reject(new Error(`no upgrade: ${res.statusCode}`)));
      req.on('error', reject);
      req.end();
    });
    assert.equal(headers.status, 101);
    assert.equal(headers['sec-websocket-protocol'], undefined);
    assertNoKey(JSON.stringify(headers), 'the 101');
  });

  test('a key in subscribe params, as a subscription id or a parameter name: in-band errors do not repeat it', async () => {
    const c = await open();
    for (const key of forms(FAKE)) {
      const attempts: unknown[] = [
        { action: 'subscribe', id: 'p1', channel: 'markets', params: { event_ids: [key] } },
        { action: 'subscribe', id: 'p2', channel: 'markets', params: { event_ids: key } },
        { action: 'subscribe', id: 'p3', channel: 'markets', params: { sport_ids: [key] } },
        { action: 'subscribe', id: 'p4', channel: 'markets', params: { market_ids: key } },
        { action: 'subscribe', id: 'p5', channel: 'markets', params: { date: key } },
        { action: 'subscribe', id: 'p6', channel: 'markets', params: { offset: key } },
        { action: 'subscribe', id: 'p7', channel: 'markets', params: { main_line: key } },
        { action: 'subscribe', id: 'p8', channel: 'markets', params: { [key]: 1 } },
        { action: 'subscribe', id: 'p9', channel: 'markets', params: { resume_from: { id: key, epoch: key } } },
        { action: 'subscribe', id: key, channel: 'markets' },
        { action: 'unsubscribe', id: key },
        { action: 'snapshot', id: key },
        { action: 'resync', id: key },
        { action: key, id: key },
        { action: 'subscribe', id: 'p10', channel: key },
      ];
      for (const msg of attempts) {
        c.send(msg);
        const answer = await c.next((m) => m.type === 'error' || m.type === 'subscribed');
        assert.equal(answer.type, 'error', JSON.stringify(answer));
        assertNoKey(JSON.stringify(answer), `the answer to ${JSON.stringify(msg).slice(0, 80)}`);
      }
    }
    await c.close();
    assertCleanLog();
  });
});

describe('frames past the bounds: an error, a close, and a server that serves on', () => {
  async function refusedThenClosed(c: TestSocket, code: string, closeCode: number, reason: string) {
    // A flood's first messages may be answered (bad_request) before the rate is passed, when the
    // server reads them in more than one turn: the refusal is the error of that code.
    const error = await c.next((m) => m.type === 'error' && (m.code === code || m.code !== 'bad_request'));
    assert.equal(error.code, code);
    assert.equal(error.id, null);
    const closed = await c.closed;
    assert.deepEqual(closed, { code: closeCode, reason });
  }

  async function stillServes() {
    const c = await open();
    c.send({ action: 'subscribe', id: 'ok', channel: 'markets', params: { event_ids: [E], snapshot: true } });
    assert.equal((await c.next((m) => m.id === 'ok')).type, 'subscribed');
    assert.equal((await c.next((m) => m.type === 'snapshot_complete')).frames, 1);
    await c.close();
    assert.equal((await s.get('/api/v2/sports')).status, 200);
  }

  test('JSON nested past 32 levels: message_too_deep, close 1008', async () => {
    const c = await open();
    const deep = `{"action":"subscribe","id":"d","channel":"markets","params":{"sport_ids":${'['.repeat(20_000)}${']'.repeat(20_000)}}}`;
    assert.ok(deep.length < MAX_CLIENT_MESSAGE);
    c.send(deep);
    await refusedThenClosed(c, 'message_too_deep', 1008, 'message_too_deep');
    await stillServes();
    assertCleanLog();
  });

  test('brackets inside strings do not count as nesting', async () => {
    const c = await open();
    c.send(`{"action":"usage","id":"${'['.repeat(60)}"}`);
    const answer = await c.next();
    assert.equal(answer.type, 'usage');
    await c.close();
  });

  test('a message over the size bound: message_too_large, close 1009', async () => {
    const c = await open();
    c.send(JSON.stringify({ action: 'usage', pad: 'x'.repeat(MAX_CLIENT_MESSAGE) }));
    await refusedThenClosed(c, 'message_too_large', 1009, 'message_too_large');
    await stillServes();
  });

  test('a binary message: unsupported_data, close 1003', async () => {
    const c = await open();
    c.ws.send(Buffer.from('{"action":"usage"}'), { binary: true });
    await refusedThenClosed(c, 'unsupported_data', 1003, 'unsupported_data');
    await stillServes();
  });

  test('a flood past the message rate: rate_limited, close 1008', async () => {
    const c = await open('/api/v2/ws', ultra);
    // Ultra: 50 subscriptions a connection, so a burst of 114 messages; 1000 at once is far past it.
    for (let i = 0; i < 1000; i++) c.send('{"nope":1}');
    await refusedThenClosed(c, 'rate_limited', 1008, 'rate_limited');
    await stillServes();
    assertCleanLog();
  });

  test('the dedicated streams ignore messages, and close past the rate', async () => {
    for (const path of ['/api/v2/ws/markets', '/api/v1/ws']) {
      const key = path === '/api/v1/ws' ? await s.newKey('ultra', { v1: true, v2: false }) : ultra;
      const quiet = await open(path, key);
      quiet.send('{"action":"subscribe"}');
      quiet.ws.send(Buffer.from([1, 2, 3]), { binary: true });
      if (path === '/api/v2/ws/markets') {
        await s.server.ledger.apply(
          batch(new Date().toISOString(), [
            price(E, { market_id: 1, participant_id: 2002, affiliate_id: 19, price: 131 }),
          ]),
        );
        const m = await quiet.next();
        assert.equal(m.meta.type, 'market_price', 'the stream serves on after a message it ignores');
      }
      const flood = await open(path, key);
      for (let i = 0; i < 1000; i++) flood.send('x');
      assert.deepEqual(await flood.closed, { code: 1008, reason: 'rate_limited' });
      assert.equal(quiet.ws.readyState, quiet.ws.OPEN, 'another connection of the key is left alone');
      await quiet.close();
    }
    assertCleanLog();
  });
});
