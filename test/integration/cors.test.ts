import assert from 'node:assert/strict';
import { test } from 'node:test';
import { today } from '../helpers/fixtures.ts';
import { startTestServer } from '../helpers/server.ts';

const ORIGIN = 'https://odds.example.com';
const PATH = `/api/v2/sports/4/events/${today()}`;

function preflight(url: string, origin: string): Promise<Response> {
  return fetch(url + PATH, {
    method: 'OPTIONS',
    headers: { origin, 'access-control-request-method': 'GET', 'access-control-request-headers': 'x-service-key' },
  });
}

test('with --cors-origins a preflight is answered and every answer to the origin carries CORS headers', async () => {
  const s = await startTestServer({ corsOrigins: ORIGIN });
  try {
    const pre = await preflight(s.url, ORIGIN);
    assert.equal(pre.status, 204);
    assert.equal(pre.headers.get('access-control-allow-origin'), ORIGIN);
    assert.match(pre.headers.get('access-control-allow-headers') ?? '', /X-Service-Key/i);
    assert.match(pre.headers.get('access-control-allow-methods') ?? '', /GET/);
    // Polled twice: the second answer may come from the kept body, and is a CORS answer all the same.
    for (let i = 0; i < 3; i++) {
      const res = await fetch(s.url + PATH, { headers: { origin: ORIGIN, 'x-service-key': s.key } });
      assert.equal(res.status, 200);
      assert.equal(res.headers.get('access-control-allow-origin'), ORIGIN, `poll ${i}`);
      assert.match(res.headers.get('access-control-expose-headers') ?? '', /X-Datapoints-Remaining/);
    }
    const refused = await fetch(s.url + PATH, { headers: { origin: ORIGIN } });
    assert.equal(refused.status, 401);
    assert.equal(refused.headers.get('access-control-allow-origin'), ORIGIN, 'a browser script can read the refusal');
    const stranger = await fetch(s.url + PATH, {
      headers: { origin: 'https://elsewhere.example', 'x-service-key': s.key },
    });
    assert.equal(stranger.headers.get('access-control-allow-origin'), null);
    assert.equal(
      (await preflight(s.url, 'https://elsewhere.example')).headers.get('access-control-allow-origin'),
      null,
    );
  } finally {
    await s.close();
  }
});

test('--cors-origins * allows any origin', async () => {
  const s = await startTestServer({ corsOrigins: '*' });
  try {
    const pre = await preflight(s.url, 'https://any.example');
    assert.equal(pre.status, 204);
    assert.equal(pre.headers.get('access-control-allow-origin'), '*');
  } finally {
    await s.close();
  }
});

test('CORS is off by default: no CORS headers, and OPTIONS is not a method of the routes', async () => {
  const s = await startTestServer();
  try {
    const pre = await preflight(s.url, ORIGIN);
    assert.equal(pre.status, 405);
    assert.equal(pre.headers.get('access-control-allow-origin'), null);
    const res = await fetch(s.url + PATH, { headers: { origin: ORIGIN, 'x-service-key': s.key } });
    assert.equal(res.headers.get('access-control-allow-origin'), null);
  } finally {
    await s.close();
  }
});
