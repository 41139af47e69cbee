import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { hashKey } from '../../src/access/keys.ts';
import { today } from '../helpers/fixtures.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { connect, refusal } from '../helpers/ws-client.ts';

const EVENTS = `/api/v2/sports/4/events/${today()}`;

/** Waits for the next second of the clock: a Starter key may make 2 requests in one. */
const nextSecond = () => new Promise((r) => setTimeout(r, 1000 - (Date.now() % 1000) + 5));

/** The session cookie's `name=value` from a sign-in answer. */
function cookieOf(res: Response): string {
  const set = res.headers.get('set-cookie') ?? '';
  const pair = set.split(';')[0]!;
  assert.match(pair, /^oddsbase_session=[\w-]{40,}$/);
  return pair;
}

async function signIn(s: TestServer, key: string, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(s.url + '/session', {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ key }),
  });
}

describe('sessions: a key exchanged for a cookie that acts as the key', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer({ simulator: true, sports: [4], limits: { authCacheMs: 100 } });
  });
  after(() => s.close());

  test('POST /session sets an HttpOnly SameSite=Strict cookie and never sends the key back', async () => {
    const key = await s.newKey('ultra');
    const res = await signIn(s, key);
    assert.equal(res.status, 200);
    const set = res.headers.get('set-cookie') ?? '';
    assert.match(set, /HttpOnly/i);
    assert.match(set, /SameSite=Strict/i);
    assert.match(set, /Path=\//);
    assert.match(set, /Max-Age=43200/);
    assert.doesNotMatch(set, /Secure/i, 'plain http: no Secure flag');
    const text = await res.text();
    const body = JSON.parse(text) as { tier: string; expires_at: string };
    assert.equal(body.tier, 'Ultra');
    assert.ok(Math.abs(Date.parse(body.expires_at) - Date.now() - 12 * 3_600_000) < 60_000);
    const cookie = cookieOf(res);
    const state = await fetch(s.url + '/session', { headers: { cookie } });
    assert.equal(state.status, 200);
    const stateText = await state.text();
    assert.deepEqual(JSON.parse(stateText), { ...body, demo: false });
    for (const seen of [text, stateText, set, cookie, JSON.stringify([...state.headers])]) {
      assert.ok(!seen.includes(key), 'the key appears in no answer');
    }
  });

  test('a cookie has the key’s entitlements and metering on REST', async () => {
    const key = await s.newKey('starter');
    const cookie = cookieOf(await signIn(s, key));
    await nextSecond();
    const byKey = await fetch(s.url + EVENTS, { headers: { 'x-service-key': key } });
    assert.equal(byKey.status, 200);
    const byCookie = await fetch(s.url + EVENTS, { headers: { cookie } });
    assert.equal(byCookie.status, 200);
    assert.equal(byCookie.headers.get('x-tier'), 'Starter');
    assert.equal(byCookie.headers.get('x-data-delay-seconds'), byKey.headers.get('x-data-delay-seconds'));
    const points = Number(byCookie.headers.get('x-datapoints'));
    assert.ok(points > 0);
    assert.equal(
      Number(byCookie.headers.get('x-datapoints-used')),
      Number(byKey.headers.get('x-datapoints-used')) + points,
      'one allowance, counted by key and cookie alike',
    );
    // Starter has no WebSocket access: the stream token route refuses the cookie as it refuses the key.
    await nextSecond();
    const token = await fetch(s.url + '/api/v2/ws/token', { method: 'POST', headers: { cookie } });
    assert.equal(token.status, 403);
    assert.equal(token.headers.get('x-tier'), 'Starter');
    const ws = await refusal(s.url.replace('http', 'ws') + '/api/v2/ws', { cookie });
    assert.equal(ws.status, 403);
  });

  test('a cookie opens both WebSocket endpoints as its key, same-origin only', async () => {
    const key = await s.newKey('ultra');
    const cookie = cookieOf(await signIn(s, key));
    const base = s.url.replace('http', 'ws');
    const own = { cookie, origin: s.url };
    const day = (await (await fetch(s.url + EVENTS, { headers: { cookie } })).json()) as {
      events: { event_id: string }[];
    };
    const multiplex = await connect(base + '/api/v2/ws', own);
    multiplex.send({
      action: 'subscribe',
      id: 'm',
      channel: 'markets',
      params: { event_ids: [day.events[0]!.event_id] },
    });
    const ack = await multiplex.next((m) => m.id === 'm');
    assert.equal(ack.type, 'subscribed');
    const markets = await connect(base + '/api/v2/ws/markets?sport_id=4', own);
    await markets.close();
    await multiplex.close();
    for (const path of ['/api/v2/ws', '/api/v2/ws/markets?sport_id=4']) {
      const foreign = await refusal(base + path, { cookie, origin: 'http://elsewhere.example' });
      assert.equal(foreign.status, 403, path);
      assert.match(foreign.body.message, /own pages/);
    }
    assert.equal((await refusal(base + '/api/v2/ws', { cookie: 'oddsbase_session=unknown' })).status, 401);
  });

  test('a page of another origin cannot use or open a session', async () => {
    const key = await s.newKey('ultra');
    const cookie = cookieOf(await signIn(s, key));
    const foreign: Record<string, string>[] = [
      { origin: 'http://elsewhere.example' },
      { origin: 'null' },
      { origin: s.url.replace(/:\d+$/, ':1') },
      { 'sec-fetch-site': 'cross-site' },
      { 'sec-fetch-site': 'same-site' },
    ];
    for (const headers of foreign) {
      const rest = await fetch(s.url + EVENTS, { headers: { cookie, ...headers } });
      assert.equal(rest.status, 403, JSON.stringify(headers));
      assert.match(((await rest.json()) as { message: string }).message, /own pages/);
      assert.equal((await fetch(s.url + '/session', { headers: { cookie, ...headers } })).status, 403);
      assert.equal((await signIn(s, key, headers)).status, 403);
    }
    const own = await fetch(s.url + EVENTS, { headers: { cookie, origin: s.url, 'sec-fetch-site': 'same-origin' } });
    assert.equal(own.status, 200);
    // A key is the caller's own credential: another origin may present it (CORS decides what it reads).
    const keyed = await fetch(s.url + EVENTS, {
      headers: { 'x-service-key': key, origin: 'http://elsewhere.example' },
    });
    assert.equal(keyed.status, 200);
  });

  test('a bad key is 401 and counts as a failed key check; a bad body is 400', async () => {
    const res = await signIn(s, 'ob_not_a_key');
    assert.equal(res.status, 401);
    assert.deepEqual(await res.json(), { message: 'unauthorized' });
    assert.equal(res.headers.get('set-cookie'), null);
    // Past the first few failures from one address, each further one is held back (and counted so).
    const throttled = async () => {
      const text = await (await fetch(s.server.metricsUrl!)).text();
      return Number(/oddsbase_access_refusals_total\{reason="failed_key_throttle"\} (\d+)/.exec(text)?.[1] ?? 0);
    };
    const before = await throttled();
    for (let i = 0; i < 6; i++) assert.equal((await signIn(s, `ob_wrong_${i}`)).status, 401);
    assert.ok((await throttled()) > before, 'failures at POST /session count toward the failed-key ceiling');
    const bad = await fetch(s.url + '/session', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"nokey":1}',
    });
    assert.equal(bad.status, 400);
    assert.equal(typeof ((await bad.json()) as { message: unknown }).message, 'string');
  });

  test('DELETE /session ends it and its streams; revoking the key ends every session of it', async () => {
    const key = await s.newKey('ultra');
    const first = cookieOf(await signIn(s, key));
    const second = cookieOf(await signIn(s, key));
    const firstStream = await connect(s.url.replace('http', 'ws') + '/api/v2/ws', { cookie: first });
    // A page may also open its stream with a token it asked for by its session: that stream is the session's too.
    const issued = await fetch(s.url + '/api/v2/ws/token', { method: 'POST', headers: { cookie: first } });
    const { token } = (await issued.json()) as { token: string };
    const tokenStream = await connect(s.url.replace('http', 'ws') + `/api/v2/ws?token=${token}`);
    const out = await fetch(s.url + '/session', { method: 'DELETE', headers: { cookie: first } });
    assert.equal(out.status, 204);
    assert.match(out.headers.get('set-cookie') ?? '', /oddsbase_session=;.*(Max-Age=0|Expires=Thu, 01 Jan 1970)/i);
    assert.equal((await fetch(s.url + EVENTS, { headers: { cookie: first } })).status, 401);
    assert.equal((await fetch(s.url + EVENTS, { headers: { cookie: second } })).status, 200);
    // Its streams end with it (the next access check), with the reason said in-band first.
    assert.equal((await firstStream.closed).reason, 'policy_violation:session_ended');
    assert.equal(firstStream.messages.at(-1)?.code, 'session_ended');
    assert.equal((await tokenStream.closed).reason, 'policy_violation:session_ended');
    const base = s.url.replace('http', 'ws');
    const stream = await connect(base + '/api/v2/ws', { cookie: second });
    await s.server.keys.revoke({ hash: hashKey(key) }, new Date().toISOString());
    await new Promise((r) => setTimeout(r, 300));
    assert.equal((await fetch(s.url + EVENTS, { headers: { cookie: second } })).status, 401);
    assert.equal((await fetch(s.url + '/session', { headers: { cookie: second } })).status, 401);
    const closed = await stream.closed;
    assert.match(closed.reason, /key_revoked/);
  });
});

test('a session expires after its time, and its streams with it', async () => {
  const s = await startTestServer({ limits: { sessionTtlMs: 1000 } });
  try {
    const res = await signIn(s, s.key);
    assert.match(res.headers.get('set-cookie') ?? '', /Max-Age=1\b/);
    const cookie = cookieOf(res);
    assert.equal((await fetch(s.url + EVENTS, { headers: { cookie } })).status, 200);
    const stream = await connect(s.url.replace('http', 'ws') + '/api/v2/ws', { cookie });
    await new Promise((r) => setTimeout(r, 1100));
    assert.equal((await fetch(s.url + EVENTS, { headers: { cookie } })).status, 401);
    assert.equal((await stream.closed).reason, 'policy_violation:session_ended');
    assert.equal((await fetch(s.url + '/session', { headers: { cookie } })).status, 401);
  } finally {
    await s.close();
  }
});

test('the demo session: on a loopback-only server, never elsewhere', async () => {
  const local = await startTestServer();
  try {
    const res = await fetch(local.url + '/session/demo', { method: 'POST' });
    assert.equal(res.status, 200);
    assert.equal(((await res.json()) as { tier: string }).tier, 'Ultra');
    const cookie = cookieOf(res);
    const state = (await (await fetch(local.url + '/session', { headers: { cookie } })).json()) as { demo: boolean };
    assert.equal(state.demo, true);
    assert.equal((await fetch(local.url + EVENTS, { headers: { cookie } })).status, 200);
    const foreign = await fetch(local.url + '/session/demo', {
      method: 'POST',
      headers: { origin: 'http://elsewhere.example' },
    });
    assert.equal(foreign.status, 403);
  } finally {
    await local.close();
  }
  const open = await startTestServer({ host: '0.0.0.0' });
  try {
    const res = await fetch(open.url + '/session/demo', { method: 'POST' });
    assert.equal(res.status, 403);
    assert.match(((await res.json()) as { message: string }).message, /loopback/);
    assert.equal(res.headers.get('set-cookie'), null);
  } finally {
    await open.close();
  }
});
