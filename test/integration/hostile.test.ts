import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { batch, nbaEvent, nbaPrices, today } from '../helpers/fixtures.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

/**
 * Hostile input against the real server, over raw sockets so that anything can be sent. Every
 * answer must be below 500, JSON with `message` or `error` when it is an error, say
 * `Connection: close` when the server closes (and otherwise serve a next request on the same
 * connection), and carry no key; no log line, at level trace, may carry one either.
 */

const E = 'e1'.repeat(16);
const D = today();
let s: TestServer;
let port: number;
/** A valid key sent in every wrong place; it and the suite's own key must never be echoed. */
let KEY: string;

before(async () => {
  // Every request's lines too, so that none of them can carry a key unseen.
  s = await startTestServer({ logLevel: 'trace', accessLog: true });
  port = Number(new URL(s.url).port);
  const at = new Date().toISOString();
  await s.server.ledger.apply(batch(at, [{ kind: 'event', event: nbaEvent(E, D) }, ...nbaPrices(E)]));
  KEY = await s.newKey('ultra');
  // Both keys pass a check before any address reaches the failed-check ceiling.
  assert.equal((await s.get('/api/v2/markets')).status, 200);
  assert.equal((await s.get('/api/v2/markets', { 'X-Service-Key': KEY })).status, 200);
});

after(() => s.close());

const encodeAll = (text: string) => [...text].map((c) => `%${c.charCodeAt(0).toString(16)}`).join('');

/** Each form a key could be echoed in: as sent, percent-encoded, and as the bytes of a logged buffer. */
function secretForms(key: string): string[] {
  const hex = key.slice(3);
  return [hex, hex.toUpperCase(), encodeAll(hex), Array.from(Buffer.from(key)).join(',')];
}

function assertNoKey(text: string, where: string): void {
  for (const key of [KEY, s.key]) {
    for (const form of secretForms(key)) {
      assert.ok(!text.includes(form), `${where} carries a key: ${text.slice(0, 500)}`);
    }
  }
}

interface Answer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Request bytes: the request line, a Host header, the given headers, then the body. */
function raw(line: string, headers: Record<string, string> = {}, body: string | Buffer = ''): Buffer {
  const fields = Object.entries(headers)
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join('');
  return Buffer.concat([Buffer.from(`${line}\r\nHost: 127.0.0.1\r\n${fields}\r\n`), Buffer.from(body)]);
}

let sources = 0;
/**
 * A loopback source address of its own (all of 127/8 reaches the server), so that failed key
 * checks pile up on one address only where a test wants them to.
 */
function freshSource(): string {
  sources++;
  return `127.1.${Math.floor(sources / 250)}.${(sources % 250) + 1}`;
}

type Parsed = { answer: Answer; rest: Buffer } | undefined;

/** Splits one response off the front of `buf`; undefined until it is complete. */
function parseResponse(buf: Buffer, head: boolean, closed: boolean): Parsed {
  const end = buf.indexOf('\r\n\r\n');
  if (end < 0) return undefined;
  const [statusLine, ...lines] = buf.subarray(0, end).toString('latin1').split('\r\n');
  const status = Number(statusLine!.split(' ')[1]);
  const headers: Record<string, string> = {};
  for (const l of lines) {
    const i = l.indexOf(':');
    headers[l.slice(0, i).trim().toLowerCase()] = l.slice(i + 1).trim();
  }
  let rest = buf.subarray(end + 4);
  const done = (body: Buffer, after: Buffer): Parsed => ({
    answer: { status, headers, body: body.toString('utf8') },
    rest: after,
  });
  if (status < 200) return parseResponse(rest, head, closed);
  if (head) return done(Buffer.alloc(0), rest);
  if (headers['content-length'] !== undefined) {
    const n = Number(headers['content-length']);
    return rest.length < n ? undefined : done(rest.subarray(0, n), rest.subarray(n));
  }
  if (headers['transfer-encoding'] === 'chunked') {
    const chunks: Buffer[] = [];
    for (;;) {
      const lineEnd = rest.indexOf('\r\n');
      if (lineEnd < 0) return undefined;
      const size = parseInt(rest.subarray(0, lineEnd).toString('latin1'), 16);
      if (rest.length < lineEnd + 2 + size + 2) return undefined;
      if (size === 0) return done(Buffer.concat(chunks), rest.subarray(lineEnd + 4));
      chunks.push(rest.subarray(lineEnd + 2, lineEnd + 2 + size));
      rest = rest.subarray(lineEnd + 2 + size + 2);
    }
  }
  return closed ? done(rest, Buffer.alloc(0)) : undefined;
}

/**
 * Sends raw bytes and reads the answer. When it says `Connection: close` the server must then close;
 * otherwise the same connection must serve a plain request next.
 */
function exchange(request: string | Buffer, opts: { from?: string; head?: boolean } = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port, localAddress: opts.from ?? freshSource() });
    let buf: Buffer = Buffer.alloc(0);
    let first: Answer | undefined;
    let closed = false;
    const closing = () => first?.headers.connection?.toLowerCase() === 'close';
    const fail = (why: string) => {
      clearTimeout(timer);
      socket.destroy();
      reject(new Error(`${why}: ${buf.toString('latin1').slice(0, 300)}`));
    };
    const timer = setTimeout(() => fail('no complete answer in 10 s'), 10_000);
    const step = () => {
      const parsed = parseResponse(buf, first === undefined && opts.head === true, closed);
      if (!parsed) {
        if (closed) fail(first ? 'closed before the next answer' : 'closed without an answer');
        return;
      }
      buf = parsed.rest;
      if (first === undefined) {
        first = parsed.answer;
        if (closing()) socket.end();
        else socket.write(raw('GET /api/v2/sports HTTP/1.1'));
        return;
      }
      clearTimeout(timer);
      socket.destroy();
      if (parsed.answer.status === 200) resolve(first);
      else reject(new Error(`the next request on the connection got ${parsed.answer.status}`));
    };
    socket.on('data', (d: Buffer) => {
      buf = Buffer.concat([buf, d]);
      step();
    });
    socket.on('error', (err) => {
      if (!closing()) fail(String(err));
    });
    socket.on('close', () => {
      if (closing()) {
        clearTimeout(timer);
        resolve(first!);
        return;
      }
      closed = true;
      step();
    });
    socket.write(request);
  });
}

/** The properties every answer must have; the answer to a HEAD has no body to check. */
function check(a: Answer, what: string, head = false): Answer {
  assert.ok(a.status < 500, `${what}: ${a.status} ${a.body.slice(0, 300)}`);
  assertNoKey(JSON.stringify(a.headers) + a.body, what);
  assert.equal(a.headers['set-cookie'], undefined, what);
  if (a.status >= 400 && !head) {
    assert.match(a.headers['content-type'] ?? '', /^application\/json/, `${what}: ${a.body.slice(0, 200)}`);
    const body = JSON.parse(a.body);
    assert.ok(typeof body.message === 'string' || typeof body.error === 'string', `${what}: ${a.body}`);
  }
  return a;
}

/** Sends raw bytes from a fresh address and checks the answer. */
const send = async (request: Buffer | string, what: string) => check(await exchange(request), what);

/** A request carrying the suite's key in its header unless `headers` says otherwise. */
async function get(
  target: string,
  headers: Record<string, string> = { 'X-Service-Key': s.key },
  method = 'GET',
): Promise<Answer> {
  const head = method === 'HEAD';
  const a = await exchange(raw(`${method} ${target} HTTP/1.1`, headers), { head });
  return check(a, `${method} ${target.slice(0, 120)}`, head);
}

describe('defects, each answered before its fix with a key or a wrong shape', () => {
  test('a malformed URL with a key in its query: 400 JSON without the URL', async () => {
    for (const path of [
      `/api/v2/nope/%E0%A4%A?x=1&key=${KEY}`,
      `/api/v2/sports/4/events/%zz?key=${KEY}`,
      `/api/v2/sports/4/events/%?key=${KEY}`,
      `/api/v2/sports/4/events/%c0?key=${KEY}`,
      `/api/v2/sports/4/events/%E0%A4%A?key=${KEY}`,
    ]) {
      const a = await get(path, {});
      assert.equal(a.status, 400);
      assert.match(JSON.parse(a.body).message, /malformed URL/);
    }
  });

  test('the key parameter however spelt is accepted as the key and redacted from the log', async () => {
    for (const name of ['%6Bey', 'k%65y', '%6b%65%79']) {
      assert.equal((await get(`/api/v2/markets?${name}=${KEY}`, {})).status, 200, name);
    }
    for (const name of ['api_key', 'key[]', 'KEY']) {
      assert.equal((await get(`/api/v2/markets?${name}=${KEY}`, {})).status, 401, name);
    }
    assert.equal((await get(`/api/v2/events/${KEY}?x=1`)).status, 404);
    assertNoKey(s.logs.join(''), 'the log');
  });

  test('a malformed header block is not logged as raw bytes at trace', async () => {
    const headers = { 'X-Service-Key': KEY, 'Bad Header': '' };
    const a = await send(raw('GET /api/v2/markets HTTP/1.1', headers), 'bad header');
    assert.equal(a.status, 400);
    assert.ok(
      s.logs.some((l) => l.includes('HPE_INVALID_HEADER_TOKEN')),
      'the refusal is logged by its code',
    );
    assertNoKey(s.logs.join(''), 'the log');
  });

  test('error texts quote a short, truncated value and never a key', async () => {
    const inPath = await get(`/api/v2/events/${KEY}`);
    assert.equal(inPath.status, 404);
    assert.equal(JSON.parse(inPath.body).message, 'event [redacted] not found');
    assert.equal((await get(`/api/v2/markets/delta?last_id=${KEY}`)).status, 400);
    for (const target of [
      `/api/v2/markets/delta?last_id=${'9x'.repeat(4096)}`,
      `/api/v2/delta?last_id=${'z'.repeat(8192)}`,
      `/api/v2/${'n'.repeat(8000)}`,
    ]) {
      const a = await get(target);
      assert.ok(a.status === 400 || a.status === 404);
      assert.ok(a.body.length < 300, `${a.body.length} bytes`);
    }
  });

  test('no Host header: 400 JSON that closes', async () => {
    const a = await send('GET /api/v2/sports HTTP/1.1\r\n\r\n', 'no host');
    assert.equal(a.status, 400);
    assert.equal(a.headers.connection, 'close');
  });

  test('an unknown Expect: 417 JSON', async () => {
    assert.equal((await get('/api/v2/sports', { Expect: 'the-unexpected' })).status, 417);
  });

  test('a path segment over 200 characters: 414 that says so', async () => {
    const a = await get(`/api/v2/events/${'a'.repeat(201)}`);
    assert.equal(a.status, 414);
    assert.match(JSON.parse(a.body).message, /longer than 200/);
  });

  test('a forbidden docs asset is a 403', async () => {
    for (const path of ['/docs/static/%2e%2e/%2e%2e/package.json', '/docs/static/../x']) {
      assert.equal((await get(path, {})).status, 403, path);
    }
  });

  test('431 and malformed requests close with Connection: close, so a keep-alive client knows', async () => {
    const big = await send(raw('GET /api/v2/sports HTTP/1.1', { 'X-Big': 'b'.repeat(20_000) }), '431');
    assert.equal(big.status, 431);
    assert.equal(big.headers.connection, 'close');
    const twice = raw('GET /api/v2/sports HTTP/1.1', { 'Content-Length': '1', 'content-length': '2' });
    const bad = await send(twice, 'two lengths');
    assert.equal(bad.status, 400);
    assert.equal(bad.headers.connection, 'close');
  });

  test('a GET with a 1-2 MB body and Connection: close gets its answer: 200 to 1 MiB, 413 above', async () => {
    const withBody = (size: number) =>
      raw(
        'GET /api/v2/sports HTTP/1.1',
        { Connection: 'close', 'Content-Length': String(size) },
        Buffer.alloc(size, 'a'),
      );
    for (let i = 0; i < 3; i++) {
      assert.equal((await send(withBody(1_000_000), 'body')).status, 200);
      for (const size of [2_000_000, 16_000_000]) {
        const refused = await send(withBody(size), 'big body');
        assert.equal(refused.status, 413);
        assert.equal(refused.headers.connection, 'close');
      }
    }
  });
});

describe('hostile input', () => {
  test('bad ids and dates', async () => {
    for (const id of ["' OR 1=1 --", '../../etc/passwd', '%00', '%ff%fe', 'ééé', '-1', '0x10', '1e9', '%20', '[]']) {
      // Percent signs are sent as they are, to reach the server's decoding.
      const sent = encodeURI(id).replace(/%25/g, '%');
      for (const path of [
        `/api/v2/events/${sent}`,
        `/api/v2/events/${sent}/markets/history`,
        `/api/v2/events/${E}/markets/${sent}/history`,
        `/api/v2/sports/${sent}/events/${D}`,
        `/api/v2/sports/4/events/${sent}`,
        `/api/v2/teams/${sent}`,
        `/api/v2/sports/${sent}/teams`,
      ]) {
        await get(path);
      }
    }
    for (const date of ['2026-02-30', '2026-13-01', '0000-00-00', '99999-01-01', '2026-1-1', `${D}T00:00:00Z`]) {
      assert.equal((await get(`/api/v2/sports/4/events/${date}`)).status, 400, date);
    }
    assert.equal((await get(`/api/v2/sports/99999999999999999999/events/${D}`)).status, 400);
  });

  test('huge, repeated and percent-encoded parameters', async () => {
    const many = Array.from({ length: 2000 }, (_, i) => i).join(',');
    for (const q of [
      `market_ids=${many}`,
      `affiliate_ids=${many}`,
      `participant_ids=${many}`,
      'market_ids=1,2,3,4,5,6,7,8,9,10,11,12,13',
      'market_ids=1&market_ids=2',
      'main_line=true&main_line=false',
      'offset=1&offset=2',
      '%6Darket_ids=1',
      'market_ids=%31%2C%32',
      'market_ids=%2531',
      'main_line=%74rue',
      'offset=99999999999999999999999',
      'offset=-0',
      'exclude_status=STATUS_%00',
      `include=${'x,'.repeat(2000)}`,
    ]) {
      await get(`/api/v2/sports/4/events/${D}?${q}`);
      await get(`/api/v2/events/${E}?${q}`);
    }
    await get(`/api/v2/markets/history?market_line_price_ids=${many}`);
    await get(`/api/v2/sports/dates?sport_ids=${many}`);
  });

  test('injection strings and control characters', async () => {
    for (const v of [
      "'; DROP TABLE prices; --",
      '<script>alert(1)</script>',
      '${jndi:ldap://x/a}',
      '{{7*7}}',
      '%0d%0aSet-Cookie:%20x=y',
      '%00%01%02%7f',
      '\u202e\ufeff',
    ]) {
      const q = encodeURI(v).replace(/%25/g, '%');
      await get(`/api/v2/sports/4/events/${D}?event_status=${q}&participant_type=${q}`);
      await get(`/api/v2/markets/participants?event_id=${q}`);
      await get(`/api/v2/markets/delta?last_id=0&event_id=${q}`);
      await get(`/api/v2/events/${E}/markets/history?from=${q}`);
    }
    // Raw control characters and spaces in the request line or a header are malformed HTTP.
    for (const line of ['GET /api/v2/sp\x01orts HTTP/1.1', 'GET /api/v2/sports HTTP/1.1\x00', 'GET /a b HTTP/1.1']) {
      assert.equal((await send(raw(line), JSON.stringify(line))).status, 400);
    }
    assert.equal((await send(raw('GET /api/v2/sports HTTP/1.1', { 'X-A': 'a\x01b' }), 'ctl')).status, 400);
  });

  test('path traversal', async () => {
    for (const path of [
      '/docs/static/../../../../etc/passwd',
      '/docs/static/%2e%2e/%2e%2e/%2e%2e/etc/passwd',
      '/docs/static/..%5c..%5cpackage.json',
      '/docs/static/..%2f..%2fpackage.json',
      '/api/v2/../../etc/passwd',
      '/api/v2/events/..%2f..%2fetc%2fpasswd',
      '//api/v2/sports/../../..//etc/passwd',
      '/openapi.json/../package.json',
    ]) {
      const a = await get(path);
      assert.ok(!a.body.includes('"dependencies"') && !a.body.includes('root:'), path);
    }
  });

  test('long URLs and headers, and many headers', async () => {
    assert.equal((await get(`/api/v2/sports?x=${'a'.repeat(15_000)}`)).status, 200);
    assert.equal((await send(raw(`GET /api/v2/sports?x=${'a'.repeat(20_000)} HTTP/1.1`), 'url')).status, 431);
    const headers: Record<string, string> = { 'X-Service-Key': s.key };
    for (let i = 0; i < 300; i++) headers[`X-H${i}`] = String(i);
    assert.equal((await get('/api/v2/markets', headers)).status, 200);
  });

  test('odd methods', async () => {
    for (const method of ['POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'TRACE', 'PROPFIND', 'SEARCH', 'HEAD']) {
      await get('/api/v2/sports', { 'X-Service-Key': s.key }, method);
      await get(`/api/v2/events/${E}`, { 'X-Service-Key': s.key }, method);
    }
    for (const method of ['BREW', 'get', 'G ET', 'GET\t']) {
      await send(raw(`${method} /api/v2/sports HTTP/1.1`), method);
    }
    assert.equal((await send(raw('CONNECT 127.0.0.1:22 HTTP/1.1'), 'CONNECT')).status, 405);
    await send(raw('GET /api/v2/sports HTTP/9.9'), 'HTTP/9.9');
    await send('GET /api/v2/sports HTTP/1.0\r\n\r\n', 'HTTP/1.0');
  });

  test('bodies on GET and on other methods', async () => {
    const line = 'GET /api/v2/sports HTTP/1.1';
    assert.equal((await send(raw(line, { 'Content-Length': '5' }, 'abcde'), 'small')).status, 200);
    const chunked = { 'Transfer-Encoding': 'chunked' };
    assert.equal((await send(raw(line, chunked, '5\r\nabcde\r\n0\r\n\r\n'), 'chunked')).status, 200);
    const bigChunks = `10000\r\n${'c'.repeat(0x10000)}\r\n`.repeat(20) + '0\r\n\r\n';
    assert.equal((await send(raw(line, chunked, bigChunks), 'big chunked')).status, 413);
    const expect = { Expect: '100-continue', 'Content-Length': '3' };
    assert.equal((await send(raw(line, expect, 'abc'), '100-continue')).status, 200);
    for (const [type, body] of [
      ['application/json', '{"a":'],
      ['application/json', ''],
      ['text/plain', 'x'],
      ['application/x-www-form-urlencoded', `key=${KEY}`],
      ['multipart/form-data; boundary=x', '--x--'],
    ] as const) {
      const headers = { 'Content-Type': type, 'Content-Length': String(body.length) };
      await send(raw('POST /api/v2/sports HTTP/1.1', headers, body), `POST ${type}`);
    }
  });

  test('bad keys in every place', async () => {
    const bad = `ob_${'0'.repeat(40)}`;
    const own = { 'X-Service-Key': s.key };
    const cases: [string, Record<string, string>][] = [
      ['/api/v2/markets', { 'X-Service-Key': '' }],
      ['/api/v2/markets', { 'X-Service-Key': bad }],
      ['/api/v2/markets', { 'X-Service-Key': 'k'.repeat(10_000) }],
      ['/api/v2/markets', { 'X-Service-Key': `${KEY} ` }],
      ['/api/v2/markets', { 'x-SERVICE-key': KEY }],
      ['/api/v2/markets', { 'X-Service-Key': 'ö€' }],
      ['/api/v2/markets', { 'X-Service-Key': KEY, 'x-service-key': bad }],
      [`/api/v2/markets?key=${KEY}&key=${KEY}`, {}],
      [`/api/v2/markets?key=${bad}`, {}],
      ['/api/v2/markets?key=', {}],
      [`/api/v2/markets?key=${'k'.repeat(10_000)}`, {}],
      [`/api/v2/markets?key=${encodeAll(KEY)}`, {}],
      [`/api/v2/markets?k%2565y=${KEY}`, {}],
      [`/api/v2/markets?x=1;key=${KEY}`, {}],
      [`/api/v2/markets#key=${KEY}`, {}],
      [`/api/v2/events/${KEY}/markets?key=${bad}`, {}],
      [`/api/v2/markets/delta?last_id=0&event_id=${KEY}`, own],
      [`/api/v2/sports/4/events/${KEY}`, own],
      [`/api/v2/markets/history?market_line_price_ids=${KEY}`, own],
      [`/api/v2/events/${E}/markets/history?from=${KEY}`, own],
    ];
    for (const [target, headers] of cases) await get(target, headers);
  });

  test('cursors out of range', async () => {
    for (const q of ['-1', '99999999999999999', '9999999999999999', '1e10', '0x1f', ' 1', '1.5', '']) {
      await get(`/api/v2/markets/delta?last_id=${encodeURIComponent(q)}`);
    }
    for (const q of ['00000000-0000-7000-8000-000000000000', 'ffffffff-ffff-7fff-bfff-ffffffffffff', '12', 'x']) {
      await get(`/api/v2/delta?last_id=${q}`);
    }
    for (const limit of ['0', '-5', '5001', '99999999999999999999', 'all']) {
      await get(`/api/v2/markets/delta?last_id=0&limit=${limit}`);
      await get(`/api/v2/events/${E}/markets/history?limit=${limit}`);
    }
  });

  test('bursts of valid and invalid keys from one address', async () => {
    const from = freshSource();
    const burst = async (key: string) =>
      check(await exchange(raw('GET /api/v2/markets HTTP/1.1', { 'X-Service-Key': key }), { from }), 'burst');
    const answers = await Promise.all(
      Array.from({ length: 300 }, (_, i) => burst(i % 3 === 0 ? s.key : `ob_${String(i).padStart(40, 'f')}`)),
    );
    const counts = new Map<number, number>();
    for (const a of answers) counts.set(a.status, (counts.get(a.status) ?? 0) + 1);
    assert.equal(counts.get(200), 100, `the suite's key is served throughout: ${[...counts]}`);
    assert.ok((counts.get(429) ?? 0) > 0, 'the guesses met the ceiling');
  });

  test('the server still serves, and no log line carries a key', async () => {
    assert.equal((await s.get('/api/v2/sports')).status, 200);
    assert.equal((await s.get(`/api/v2/events/${E}`)).status, 200);
    assert.ok(s.logs.length > 100);
    assertNoKey(s.logs.join(''), 'the log');
  });
});
