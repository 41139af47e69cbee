import assert from 'node:assert/strict';
import { test } from 'node:test';
import { WebSocket } from 'ws';
import { startTestServer, type TestServer } from '../helpers/server.ts';

/**
 * Behind a reverse proxy every client comes from the proxy's address. With --trust-proxy the
 * failed-key ceiling counts the client the proxy names, so one client's guesses do not lock out
 * another behind the same proxy; without it X-Forwarded-For is ignored (a client could write any).
 */

const CEILING = 30;

/** CEILING wrong keys from `forwardedFor`, at once (each later one is answered more slowly). */
async function guess(s: TestServer, forwardedFor: string): Promise<void> {
  await Promise.all(
    Array.from({ length: CEILING }, (_, i) =>
      s.get('/api/v2/markets', {
        'X-Service-Key': `ob_${String(i).padStart(40, '0')}`,
        'X-Forwarded-For': forwardedFor,
      }),
    ),
  );
}

function upgradeStatus(s: TestServer, key: string, forwardedFor: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`${s.url.replace('http', 'ws')}/api/v2/ws`, {
      headers: { 'X-Service-Key': key, 'X-Forwarded-For': forwardedFor },
    });
    ws.once('open', () => {
      ws.close();
      resolve(101);
    });
    ws.once('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
    ws.once('error', reject);
  });
}

test('from a trusted proxy, the failed-key ceiling holds the guessing client only, on REST and WebSocket', async () => {
  const s = await startTestServer({ trustProxy: '127.0.0.1' });
  try {
    await guess(s, '203.0.113.5');
    const fresh = await s.newKey('ultra');
    const other = await s.get('/api/v2/markets', { 'X-Service-Key': fresh, 'X-Forwarded-For': '198.51.100.7' });
    assert.equal(other.status, 200, 'another client behind the same proxy is not held');
    const again = await s.newKey('ultra');
    const guesser = await s.get('/api/v2/markets', { 'X-Service-Key': again, 'X-Forwarded-For': '203.0.113.5' });
    assert.equal(guesser.status, 429, 'the guessing client is held');
    // A client cannot escape by writing its own X-Forwarded-For: the proxy appends the address it saw.
    const spoofed = await s.get('/api/v2/markets', {
      'X-Service-Key': again,
      'X-Forwarded-For': '198.51.100.99, 203.0.113.5',
    });
    assert.equal(spoofed.status, 429);
    const wsKey = await s.newKey('ultra');
    assert.equal(await upgradeStatus(s, wsKey, '203.0.113.5'), 429);
    assert.equal(await upgradeStatus(s, wsKey, '198.51.100.7'), 101);
  } finally {
    await s.close();
  }
});

test('without --trust-proxy, X-Forwarded-For is ignored: the ceiling holds the socket address', async () => {
  const s = await startTestServer();
  try {
    await guess(s, '203.0.113.5');
    const fresh = await s.newKey('ultra');
    const res = await s.get('/api/v2/markets', { 'X-Service-Key': fresh, 'X-Forwarded-For': '198.51.100.7' });
    assert.equal(res.status, 429);
  } finally {
    await s.close();
  }
});

/** The addresses the access log gave the requests of a server started with `trustProxy`. */
async function loggedAddresses(trustProxy: string | undefined): Promise<string[]> {
  const s = await startTestServer({ trustProxy, logLevel: 'info', accessLog: true });
  await s.get('/api/v2/sports', { 'X-Forwarded-For': '198.51.100.99, 203.0.113.5' });
  await s.close();
  return s.logs
    .join('')
    .split('\n')
    .filter((l) => l.includes('"incoming request"'))
    .map((l) => (JSON.parse(l) as { req: { ip: string } }).req.ip);
}

test('the logs name the client a trusted proxy forwards, and the socket address otherwise', async () => {
  assert.deepEqual(await loggedAddresses('127.0.0.1'), ['203.0.113.5']);
  assert.deepEqual(await loggedAddresses(undefined), ['127.0.0.1']);
});
