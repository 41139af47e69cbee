import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WebSocket } from 'ws';
import { generateKey, newKeyRecord } from '../../src/access/keys.ts';
import type { Tier } from '../../src/catalog/tiers.ts';
import { after, before, describe, test } from 'node:test';
import { BURST_FACTOR } from '../../src/stream/connection.ts';
import { batch, nbaEvent, nbaPrices, price } from '../helpers/fixtures.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { connect, refusal } from '../helpers/ws-client.ts';

/**
 * /api/v2/ws/markets: the upgrade's refusals, filters with the live variants, one market_price per
 * price change and none for a liquidity-only change, heartbeats on the injected clock, and the
 * per-client queue that drops (and counts) what a slow client cannot take.
 */
const E1 = 'e1'.repeat(16);
const E2 = 'e2'.repeat(16);
/** The server's clock runs an hour behind: heartbeats must show its time, not the wall clock's. */
const SKEW_MS = 3_600_000;
const QUEUE = 16;

let s: TestServer;
let ultra: string;
let wsUrl: string;
const at = () => new Date().toISOString();

before(async () => {
  s = await startTestServer({
    now: () => Date.now() - SKEW_MS,
    limits: { streamHeartbeatMs: 150, streamQueueMessages: QUEUE },
  });
  ultra = await s.newKey('ultra');
  wsUrl = s.url.replace('http', 'ws');
  await s.server.ledger.apply(
    batch(at(), [
      { kind: 'event', event: nbaEvent(E1) },
      { kind: 'event', event: nbaEvent(E2) },
      ...nbaPrices(E1),
      ...nbaPrices(E2),
    ]),
  );
});

after(() => s.close());

const markets = (query = '') => `${wsUrl}/api/v2/ws/markets${query}`;

describe('the upgrade', () => {
  test('no key, a wrong key: 401 unauthorized before the handshake', async () => {
    for (const r of [await refusal(markets()), await refusal(markets(), { 'X-Service-Key': 'ob_0000' })]) {
      assert.equal(r.status, 401);
      assert.deepEqual(r.body, { message: 'unauthorized' });
    }
  });

  test('a Pro key: 403 with the entitlement body (WebSocket access is Ultra and above)', async () => {
    const r = await refusal(markets(), { 'X-Service-Key': await s.newKey('pro') });
    assert.equal(r.status, 403);
    assert.match(r.body.error, /WebSocket streams require Ultra plan or higher/);
    assert.equal(typeof r.body.upgrade_url, 'string');
    // As REST refusals after a key check: the plan that refused it, in the entitlement headers.
    assert.equal(r.headers['x-tier'], 'Pro');
    assert.equal(r.headers['x-websocket-access'], 'false');
  });

  test('a key whose stored plan is unknown: 503 plan_unsupported, as on REST', async () => {
    const k = generateKey();
    await s.server.keys.insert({ ...newKeyRecord(k, 'ultra'), tier: 'platinum' as Tier });
    const r = await refusal(markets(), { 'X-Service-Key': k });
    assert.equal(r.status, 503);
    assert.equal(r.body.code, 'plan_unsupported');
  });

  test('a bad filter: 400 naming it', async () => {
    const r = await refusal(markets(`?market_ids=1,x&key=${ultra}`));
    assert.equal(r.status, 400);
    assert.match(r.body.error, /market_ids/);
  });

  test('an unknown path: 404', async () => {
    const r = await refusal(`${wsUrl}/api/v2/ws/nothing`, { 'X-Service-Key': ultra });
    assert.equal(r.status, 404);
  });

  test('a plain GET on a stream path: 426 in JSON naming the protocol, free of data points; without a key 401', async () => {
    const both = await s.newKey('ultra', { v1: true });
    for (const path of ['/api/v2/ws/markets', '/api/v2/ws', '/api/v1/ws']) {
      const r = await s.get(path, { 'X-Service-Key': both });
      assert.equal(r.status, 426, path);
      assert.equal(r.headers.get('upgrade'), 'websocket');
      assert.equal(
        r.body.message,
        `${path} is a WebSocket endpoint: open it with a WebSocket client at wss://<host>${path}`,
      );
      assert.equal(r.headers.get('x-datapoints'), null, 'free: no usage headers');
      assert.equal((await s.get(path, {})).status, 401);
    }
  });

  test('the key in the header or in the key query parameter opens the stream', async () => {
    const a = await connect(markets(), { 'X-Service-Key': ultra });
    const b = await connect(markets(`?key=${ultra}`));
    await a.close();
    await b.close();
  });
});

test('filters: event_ids and market_ids=1 (with 41); every field of the spec table; nothing else', async () => {
  const c = await connect(markets(`?event_ids=${E1}&market_ids=1&affiliate_ids=19`), { 'X-Service-Key': ultra });
  await s.server.ledger.apply(
    batch(at(), [
      price(E2, { market_id: 1, participant_id: 2002, affiliate_id: 19, price: 140 }),
      price(E1, { market_id: 2, participant_id: 2002, affiliate_id: 19, line: '3.5', price: -115 }),
      price(E1, { market_id: 1, participant_id: 2002, affiliate_id: 23, price: 150 }),
      price(E1, { market_id: 1, participant_id: 2002, participant_name: 'Boston', affiliate_id: 19, price: 135 }),
      price(E1, {
        market_id: 41,
        participant_id: 2014,
        participant_name: 'Los Angeles',
        affiliate_id: 19,
        price: -120,
      }),
    ]),
  );
  const first = await c.next();
  assert.deepEqual(Object.keys(first.meta), ['type', 'version', 'timestamp']);
  assert.equal(first.meta.type, 'market_price');
  assert.equal(first.meta.version, 'v2');
  assert.equal(Number.isInteger(first.meta.timestamp), true);
  const d = first.data;
  for (const field of [
    'id',
    'event_id',
    'affiliate_id',
    'market_id',
    'market_participant_id',
    'normalized_market_participant_id',
    'normalized_market_participant_type',
    'line',
    'price',
    'previous_price',
    'price_delta',
    'is_main_line',
    'sport_id',
    'updated_at',
    'snapshot',
  ]) {
    assert.ok(field in d, field);
  }
  assert.equal(d.event_id, E1);
  assert.equal(d.market_id, 1);
  assert.equal(d.price, '135');
  assert.equal(d.previous_price, '130');
  assert.equal(d.price_delta, 5);
  assert.equal(d.normalized_market_participant_id, 2002);
  assert.equal(d.normalized_market_participant_type, 1);
  assert.equal(d.snapshot, false);
  assert.equal('liquidity_usd' in d, false);
  const second = await c.next();
  assert.equal(second.data.market_id, 41, 'the live variant comes with market 1');
  assert.deepEqual(await c.collect(150), [], 'E2, market 2 and book 23 are filtered out');
  await c.close();
});

test('a liquidity-only change sends nothing; the next price change does, with its liquidity', async () => {
  const c = await connect(markets(`?event_ids=${E2}&market_ids=1&affiliate_ids=23`), { 'X-Service-Key': ultra });
  const line = { market_id: 1, participant_id: 2014, participant_name: 'Los Angeles', affiliate_id: 23 } as const;
  await s.server.ledger.apply(batch(at(), [price(E2, { ...line, price: -150, liquidity_usd: 5000 })]));
  await s.server.ledger.apply(batch(at(), [price(E2, { ...line, price: -155, liquidity_usd: 6000 })]));
  const m = await c.next();
  assert.equal(m.data.price, '-155');
  assert.equal(m.data.liquidity_usd, 6000);
  assert.deepEqual(await c.collect(100), []);
  await c.close();
});

test('spec: every delivered message is metered as data points: one point per market_price message', async () => {
  const key = await s.newKey('ultra');
  const used = async () => {
    const r = await s.get(`/api/v2/events/${E2}?market_ids=1`, { 'X-Service-Key': key });
    return { used: Number(r.headers.get('x-datapoints-used')), points: Number(r.headers.get('x-datapoints')) };
  };
  const c = await connect(markets(`?event_ids=${E1}&market_ids=1`), { 'X-Service-Key': key });
  const before = await used();
  await s.server.ledger.apply(
    batch(
      at(),
      [170, 171, 172].map((p) => price(E1, { market_id: 1, participant_id: 2002, affiliate_id: 19, price: p })),
    ),
  );
  for (let i = 0; i < 3; i++) assert.equal((await c.next()).meta.type, 'market_price');
  const after = await used();
  assert.equal(after.used - before.used, after.points + 3);
  await c.close();
});

test('heartbeats: {meta: {type: heartbeat}, data: {now}} on the server clock', async () => {
  const c = await connect(markets(), { 'X-Service-Key': ultra });
  const hb = await c.next((m) => m.meta?.type === 'heartbeat', 2000);
  const serverNow = (Date.now() - SKEW_MS) / 1000;
  assert.ok(Math.abs(hb.data.now - serverNow) < 5, `heartbeat time ${hb.data.now} is the server's ${serverNow}`);
  await c.close();
});

test('a client more than the queue behind loses messages, and /metrics counts them', async () => {
  const scrape = async () => {
    const text = await (await fetch(s.server.metricsUrl!)).text();
    return Number(/^oddsbase_ws_dropped_messages_total (\d+)/m.exec(text)?.[1] ?? 0);
  };
  const before = await scrape();
  const c = await connect(markets(`?event_ids=${E1}&market_ids=29`), { 'X-Service-Key': ultra });
  // More in one batch than even a reading client's queue takes (BURST_FACTOR queues).
  const n = QUEUE * BURST_FACTOR + 24;
  await s.server.ledger.apply(
    batch(
      at(),
      Array.from({ length: n }, (_, i) =>
        price(E1, {
          market_id: 29,
          participant_id: 200201,
          participant_type: 'TYPE_PLAYER',
          affiliate_id: 19,
          line: String(10 + i),
          price: -110,
        }),
      ),
    ),
  );
  const got = await c.collect(300);
  assert.equal(
    got.length,
    QUEUE * BURST_FACTOR,
    'the batch arrives at once: the queue keeps its bound, the rest are dropped',
  );
  assert.equal(c.ws.readyState, c.ws.OPEN, 'the dedicated stream drops rather than closes');
  assert.equal((await scrape()) - before, n - QUEUE * BURST_FACTOR);
  await c.close();
});

test('behind a TLS-terminating proxy (stream transport proxy): plain ws:// is refused, X-Forwarded-Proto https passes', async () => {
  const p = await startTestServer({ streamTransport: 'proxy' });
  try {
    const url = `${p.url.replace('http', 'ws')}/api/v2/ws/markets`;
    const r = await refusal(url, { 'X-Service-Key': p.key });
    assert.equal(r.status, 403);
    assert.equal(r.body.error, 'WebSocket connections must use wss://');
    const c = await connect(url, { 'X-Service-Key': p.key, 'X-Forwarded-Proto': 'https' });
    await c.close();
  } finally {
    await p.close();
  }
});

test('with a certificate configured the port speaks TLS: wss:// opens, plain ws:// cannot', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'oddsbase-tls-'));
  const certFile = join(dir, 'cert.pem');
  const keyFile = join(dir, 'key.pem');
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-keyout',
      keyFile,
      '-out',
      certFile,
      '-days',
      '1',
      '-subj',
      '/CN=127.0.0.1',
    ],
    { stdio: 'ignore' },
  );
  const t = await startTestServer({ tls: { certFile, keyFile } });
  try {
    assert.match(t.url, /^https:/);
    const port = new URL(t.url).port;
    const secure = new WebSocket(`wss://127.0.0.1:${port}/api/v2/ws/markets`, {
      headers: { 'X-Service-Key': t.key },
      rejectUnauthorized: false,
    });
    await new Promise<void>((resolve, reject) => {
      secure.once('open', () => resolve());
      secure.once('error', reject);
    });
    secure.close();
    const plain = new WebSocket(`ws://127.0.0.1:${port}/api/v2/ws/markets`, { headers: { 'X-Service-Key': t.key } });
    const outcome = await new Promise<string>((resolve) => {
      plain.once('open', () => resolve('open'));
      plain.once('error', () => resolve('refused'));
      plain.once('unexpected-response', () => resolve('refused'));
    });
    assert.equal(outcome, 'refused');
  } finally {
    await t.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
