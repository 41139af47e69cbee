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
  s = await startTestServer({ logLevel: 'trace' });
  port = Number(new URL(s.url).port);
  await s.server.ledger.apply(batch(new Date().toISOString(), [{ kind: 'event', event: nbaEvent(E, D) }, ...nbaPrices(E)]));
  KEY = await s.newKey('ultra');
  // Both keys pass a check before any address reaches the failed-check ceiling.
  assert.equal((await s.get('/api/v2/markets')).status, 200);
  assert.equal((await s.get('/api/v2/markets', { 'X-Service-Key': KEY })).status, 200);
});

after(() => s.close());

/** Each form a key could be echoed in: as sent, percent-encoded, and as the bytes of a logged buffer. */
function secretForms(key: string): string[] {
  const hex = key.slice(3);
  return [hex, hex.toUpperCase(), encodeAll(hex), Array.from(Buffer.from(key)).join(',')];
}
const encodeAll = (s: string) => [...s].map((c) => `%${c.charCodeAt(0).toString(16)}`).join('');

function assertNoKey(text: string, where: string): void {
  for (const key of [KEY, s.key]) {
    for (const form of secretForms(key)) assert.ok(!text.includes(form), `${where} carries a key: ${text.slice(0, 500)}`);
  }
}

interface Answer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

let sources = 0;
/** A loopback source address of its own (all of 127/8 reaches the server), so failed key checks
 * do not pile up on one address unless a test wants them to. */
function freshSource(): string {
  sources++;
  return `127.1.${Math.floor(sources / 250)}.${(sources % 250) + 1}`;
}

/** Splits one response off the front of `buf`; undefined until it is complete. */
function parseResponse(buf: Buffer, head: boolean, closed: boolean): { answer: Answer; rest: Buffer } | undefined {
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
  if (status < 200) return parseResponse(rest, head, closed);
  if (head) return { answer: { status, headers, body: '' }, rest };
  if (headers['content-length'] !== undefined) {
    const n = Number(headers['content-length']);
    if (rest.length < n) return undefined;
    return { answer: { status, headers, body: rest.subarray(0, n).toString('utf8') }, rest: rest.subarray(n) };
  }
  if (headers['transfer-encoding'] === 'chunked') {
    const chunks: Buffer[] = [];
    for (;;) {
      const lineEnd = rest.indexOf('\r\n');
      if (lineEnd < 0) return undefined;
      const size = parseInt(rest.subarray(0, lineEnd).toString('latin1'), 16);
      if (rest.length < lineEnd + 2 + size + 2) return undefined;
      if (size === 0) return { answer: { status, headers, body: Buffer.concat(chunks).toString('utf8') }, rest: rest.subarray(lineEnd + 4) };
      chunks.push(rest.subarray(lineEnd + 2, lineEnd + 2 + size));
      rest = rest.subarray(lineEnd + 2 + size + 2);
    }
  }
  return closed ? { answer: { status, headers, body: rest.toString('utf8') }, rest: Buffer.alloc(0) } : undefined;
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
    const timer = setTimeout(() => fail(new Error(`no complete answer in 10 s: ${buf.toString('latin1').slice(0, 300)}`)), 10_000);
    const fail = (err: Error) => {
      clearTimeout(timer);
      socket.destroy();
      reject(err);
    };
    const step = () => {
      const parsed = parseResponse(buf, first === undefined && opts.head === true, closed);
      if (!parsed) {
        if (closed) fail(new Error(`connection closed ${first ? 'before the next answer' : 'without an answer'}: ${buf.toString('latin1').slice(0, 300)}`));
        return;
      }
      buf = parsed.rest;
      if (first === undefined) {
        first = parsed.answer;
        if (first.headers.connection?.toLowerCase() === 'close') {
          socket.end();
          return;
        }
        socket.write('GET /api/v2/sports HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
        return;
      }
      clearTimeout(timer);
      socket.destroy();
      if (parsed.answer.status !== 200) reject(new Error(`the next request on the connection got ${parsed.answer.status}`));
      else resolve(first);
    };
    socket.on('data', (d: Buffer) => {
      buf = Buffer.concat([buf, d]);
      step();
    });
    socket.on('error', (err) => {
      if (!closed && !(first?.headers.connection === 'close')) fail(err);
    });
    socket.on('close', () => {
      if (first?.headers.connection?.toLowerCase() === 'close') {
        clearTimeout(timer);
        resolve(first);
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

/** A GET with the suite's key in its header unless `headers` says otherwise. */
function get(target: string, headers: Record<string, string> = { 'X-Service-Key': s.key }, method = 'GET'): Promise<Answer> {
  const lines = Object.entries(headers).map(([k, v]) => `${k}: ${v}\r\n`).join('');
  return exchange(`${method} ${target} HTTP/1.1\r\nHost: 127.0.0.1\r\n${lines}\r\n`, { head: method === 'HEAD' }).then((a) =>
    check(a, `${method} ${target.slice(0, 120)}`, method === 'HEAD'),
  );
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
    for (const target of [`/api/v2/markets?api_key=${KEY}`, `/api/v2/markets?key[]=${KEY}`, `/api/v2/markets?KEY=${KEY}`]) {
      assert.equal((await get(target, {})).status, 401, target);
    }
    assert.equal((await get(`/api/v2/events/${KEY}?x=1`)).status, 404);
    assertNoKey(s.logs.join(''), 'the log');
  });

  test('a malformed header block is not logged as raw bytes at trace', async () => {
    const a = check(
      await exchange(`GET /api/v2/markets HTTP/1.1\r\nHost: x\r\nX-Service-Key: ${KEY}\r\nBad Header\r\n\r\n`),
      'bad header',
    );
    assert.equal(a.status, 400);
    assert.ok(s.logs.some((l) => l.includes('HPE_INVALID_HEADER_TOKEN')), 'the refusal is logged by its code');
    assertNoKey(s.logs.join(''), 'the log');
  });

  test('error texts quote a short, truncated value and never a key', async () => {
    const inPath = await get(`/api/v2/events/${KEY}`);
    assert.equal(inPath.status, 404);
    assert.equal(JSON.parse(inPath.body).message, 'event [redacted] not found');
    const cursor = await get(`/api/v2/markets/delta?last_id=${KEY}`);
    assert.equal(cursor.status, 400);
    const huge = await get(`/api/v2/markets/delta?last_id=${'9x'.repeat(4096)}`);
    assert.equal(huge.status, 400);
    assert.ok(huge.body.length < 300, `${huge.body.length} bytes`);
    const uuid = await get(`/api/v2/delta?last_id=${'z'.repeat(8192)}`);
    assert.ok(uuid.body.length < 300, `${uuid.body.length} bytes`);
    const notFound = await get(`/api/v2/${'n'.repeat(8000)}`);
    assert.equal(notFound.status, 404);
    assert.ok(notFound.body.length < 300, `${notFound.body.length} bytes`);
  });

  test('no Host header: 400 JSON that closes', async () => {
    const a = check(await exchange('GET /api/v2/sports HTTP/1.1\r\n\r\n'), 'no host');
    assert.equal(a.status, 400);
    assert.equal(a.headers.connection, 'close');
  });

  test('an unknown Expect: 417 JSON', async () => {
    const a = await get('/api/v2/sports', { Expect: 'the-unexpected' });
    assert.equal(a.status, 417);
  });

  test('a path segment over 200 characters: 414 that says so', async () => {
    const a = await get(`/api/v2/events/${'a'.repeat(201)}`);
    assert.equal(a.status, 414);
    assert.match(JSON.parse(a.body).message, /longer than 200/);
  });

  test('a forbidden docs asset is a 403', async () => {
    for (const path of ['/docs/static/%2e%2e/%2e%2e/package.json', '/docs/static/../x']) {
      const a = await get(path, {});
      assert.equal(a.status, 403, path);
    }
  });

  test('431 and malformed requests close with Connection: close, so a keep-alive client knows', async () => {
    const big = check(await exchange(`GET /api/v2/sports HTTP/1.1\r\nHost: x\r\nX-Big: ${'b'.repeat(20_000)}\r\n\r\n`), '431');
    assert.equal(big.status, 431);
    assert.equal(big.headers.connection, 'close');
    const bad = check(await exchange('GET /api/v2/sports HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n'), 'bad');
    assert.equal(bad.status, 400);
    assert.equal(bad.headers.connection, 'close');
  });

  test('a GET with a 1-2 MB body and Connection: close gets its answer: 200 up to 1 MiB, 413 above', async () => {
    const withBody = (size: number) =>
      exchange(
        Buffer.concat([
          Buffer.from(`GET /api/v2/sports HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Length: ${size}\r\n\r\n`),
          Buffer.alloc(size, 'a'),
        ]),
      );
    for (let i = 0; i < 3; i++) {
      assert.equal(check(await withBody(1_000_000), 'body').status, 200);
      for (const size of [2_000_000, 16_000_000]) {
        const refused = check(await withBody(size), 'big body');
        assert.equal(refused.status, 413);
        assert.equal(refused.headers.connection, 'close');
      }
    }
  });
});
