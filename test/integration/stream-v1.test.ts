import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { AFFILIATES } from '../../src/catalog/affiliates.ts';
import { BURST_FACTOR } from '../../src/stream/connection.ts';
import { batch, nbaEvent, nbaPrices, price } from '../helpers/fixtures.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { connect, refusal, type TestSocket } from '../helpers/ws-client.ts';

/**
 * /api/v1/ws, the V1 counterpart of the markets stream: one `line` message per line set (event, book,
 * V1 period) a committed batch changed, each exactly the V1 REST line set of that line id after the
 * batch; filters; heartbeats; the V1 plan rules at the upgrade, with V1 error bodies; metering.
 */
const E1 = 'a1'.repeat(16);
const E2 = 'a2'.repeat(16);
const QUEUE = 4;

let s: TestServer;
/** Ultra with a V1 subscription only, and with both. */
let v1Only: string;
let both: string;
let wsUrl: string;
const at = () => new Date().toISOString();
const apply = (...updates: Parameters<typeof batch>[1]) => s.server.ledger.apply(batch(at(), updates));
const v1 = (query = '') => `${wsUrl}/api/v1/ws${query}`;
const open = (query = '', key = v1Only) => connect(v1(query), { 'X-Service-Key': key });

before(async () => {
  s = await startTestServer({ limits: { streamHeartbeatMs: 150, streamQueueMessages: QUEUE } });
  v1Only = await s.newKey('ultra', { v1: true, v2: false });
  both = await s.newKey('ultra', { v1: true });
  wsUrl = s.url.replace('http', 'ws');
  await apply(
    { kind: 'event', event: nbaEvent(E1) },
    { kind: 'event', event: nbaEvent(E2) },
    ...nbaPrices(E1),
    ...nbaPrices(E2),
    price(E1, { market_id: 4, period_id: 1, participant_id: 2002, affiliate_id: 23, price: 135 }),
    price(E1, { market_id: 4, period_id: 1, participant_id: 2014, affiliate_id: 23, price: -155 }),
  );
});

after(() => s.close());

/** The V1 REST line set of the message's line id, read now. */
async function restLine(m: any): Promise<unknown> {
  const r = await s.get(`/api/v1/events/${m.data.event_id}/lines/${m.data.line_id}`, { 'X-Service-Key': both });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body;
}

const key = (m: any) => `${m.data.event_id}|${m.data.affiliate_id}|${m.data.period_id}`;

async function lineMessages(c: TestSocket, n: number): Promise<any[]> {
  const out = [];
  for (let i = 0; i < n; i++) out.push(await c.next());
  assert.deepEqual(await c.collect(120), [], 'no more messages');
  return out;
}

test('one line message per changed line set, each equal to the V1 REST line set of its line id', async () => {
  const c = await open(`?event_ids=${E1}`);
  await apply(
    // Book 19, full game: the away moneyline and the home spread move: one set, one message.
    price(E1, { market_id: 1, participant_id: 2002, affiliate_id: 19, price: 125 }),
    price(E1, { market_id: 2, participant_id: 2014, affiliate_id: 19, line: '-3.5', price: -115, is_main_line: true }),
    // Book 23: the full game's total and the first half's moneyline: two sets.
    price(E1, { market_id: 3, participant_id: 0, affiliate_id: 23, line: '221.5', price: -105, is_main_line: true }),
    price(E1, { market_id: 4, period_id: 1, participant_id: 2014, affiliate_id: 23, price: -160 }),
    // Another event: filtered out.
    price(E2, { market_id: 1, participant_id: 2002, affiliate_id: 19, price: 140 }),
  );
  const got = await lineMessages(c, 3);
  assert.deepEqual(got.map(key).sort(), [`${E1}|19|0`, `${E1}|23|0`, `${E1}|23|1`]);
  for (const m of got) {
    assert.deepEqual(Object.keys(m.meta), ['type', 'version', 'timestamp']);
    assert.equal(m.meta.type, 'line');
    assert.equal(m.meta.version, 'v1');
    assert.equal(Number.isInteger(m.meta.timestamp), true);
    // The line set carries affiliate_id itself: only event_id and sport_id are the message's own.
    const { event_id, sport_id, ...set } = m.data;
    const affiliate_id = set.affiliate_id;
    assert.equal(sport_id, 4);
    assert.equal(affiliate_id, set.affiliate.affiliate_id);
    assert.equal(Number.isInteger(set.line_id) && set.line_id > 0, true);
    assert.deepEqual(set, await restLine(m), `${event_id} ${affiliate_id} ${set.period_id}`);
  }
  const [full19] = got.filter((m) => key(m) === `${E1}|19|0`);
  assert.equal(full19.data.moneyline.moneyline_away, 125, 'the V2 price it comes from');
  assert.equal(full19.data.moneyline.moneyline_away_delta, -5);
  assert.equal(full19.data.moneyline.moneyline_draw, 0.0001, 'no draw: off the board');
  assert.equal(full19.data.spread.point_spread_home_money, -115);
  assert.equal(full19.data.spread.point_spread_home, -3.5);
  assert.deepEqual(
    full19.data.spread.extended_spreads.map((x: any) => x.point_spread_home),
    [-4.5],
    'the alternate line rides along',
  );
  const [half] = got.filter((m) => key(m) === `${E1}|23|1`);
  assert.equal(half.data.period_description, '1st Half');
  assert.equal(half.data.moneyline.moneyline_home, -160);
  await c.close();
});

test('a liquidity-only change and a team total send nothing; the next price change does', async () => {
  const c = await open(`?event_ids=${E2}`);
  const line = { market_id: 1, participant_id: 2014, affiliate_id: 23, liquidity_usd: 5000 } as const;
  await apply(price(E2, { ...line, price: -150 }));
  await apply(price(E2, { ...line, price: -150, liquidity_usd: 9000 }));
  await apply(
    price(E2, {
      market_id: 94,
      participant_id: 2002,
      affiliate_id: 19,
      line: 'Over 108.5',
      price: -115,
      is_main_line: true,
    }),
  );
  assert.deepEqual(await c.collect(150), []);
  await apply(price(E2, { ...line, price: -155, liquidity_usd: 9000 }));
  const [m] = await lineMessages(c, 1);
  assert.equal(m.data.moneyline.moneyline_home, -155, 'the next price change is sent');
  await c.close();
});

describe('filters', () => {
  test('affiliate_ids and sport_ids narrow; another sport gets nothing', async () => {
    const books = await open(`?sport_ids=4&affiliate_ids=23`);
    const other = await open(`?sport_ids=11`, both);
    await apply(
      price(E2, { market_id: 1, participant_id: 2002, affiliate_id: 19, price: 145 }),
      price(E2, { market_id: 1, participant_id: 2002, affiliate_id: 23, price: 150 }),
    );
    const [m] = await lineMessages(books, 1);
    assert.equal(key(m), `${E2}|23|0`);
    assert.equal(m.data.moneyline.moneyline_away, 150);
    assert.deepEqual(await other.collect(50), []);
    await books.close();
    await other.close();
  });

  test('period by name or id: only those periods’ line sets', async () => {
    const byName = await open(`?event_ids=${E1}&period=period_first_half`);
    const byId = await open(`?event_ids=${E1}&period=1,7`);
    await apply(
      price(E1, { market_id: 1, participant_id: 2002, affiliate_id: 23, price: 120 }),
      price(E1, { market_id: 4, period_id: 1, participant_id: 2002, affiliate_id: 23, price: 140 }),
    );
    for (const c of [byName, byId]) {
      const [m] = await lineMessages(c, 1);
      assert.equal(key(m), `${E1}|23|1`);
      assert.equal(m.data.moneyline.moneyline_away, 140);
      await c.close();
    }
  });

  test('a bad filter: 400 with error', async () => {
    for (const [query, name] of [
      [`?event_ids=${E1},!x`, /event_ids/],
      ['?period=period_fifth_half', /period must be V1 period names or ids/],
    ] as const) {
      const r = await refusal(v1(query), { 'X-Service-Key': v1Only });
      assert.equal(r.status, 400);
      assert.match(r.body.error, name);
    }
  });
});

test('heartbeats: {meta: {type: heartbeat, version: v1, timestamp}, data: {now}}', async () => {
  const c = await connect(v1(`?key=${v1Only}`));
  const hb = await c.next((m) => m.meta?.type === 'heartbeat', 2000);
  assert.equal(hb.meta.version, 'v1');
  assert.equal(hb.data.now, hb.meta.timestamp);
  assert.ok(Math.abs(hb.data.now - Date.now() / 1000) < 5);
  await c.close();
});

describe('the upgrade: V1 plan rules, V1 error bodies', () => {
  test('no key, an unknown key: 401 with error', async () => {
    for (const r of [
      await refusal(v1()),
      await refusal(v1(), { 'X-Service-Key': 'ob_0000' }),
      await refusal(v1('?key=ob_1')),
    ]) {
      assert.equal(r.status, 401);
      assert.deepEqual(r.body, { error: 'unauthorized', message: 'unauthorized' });
    }
  });

  test('a V2-only Ultra key: 403, the V1 error naming the V1 subscription', async () => {
    const r = await refusal(v1(), { 'X-Service-Key': await s.newKey('ultra') });
    assert.equal(r.status, 403);
    assert.match(r.body.error, /needs a V1 subscription/);
    assert.equal(typeof r.body.upgrade_url, 'string');
  });

  test('a V1 key below Ultra: 403 (WebSocket access is Ultra and above)', async () => {
    const r = await refusal(v1(), { 'X-Service-Key': await s.newKey('pro', { v1: true, v2: false }) });
    assert.equal(r.status, 403);
    assert.match(r.body.error, /WebSocket streams require Ultra plan or higher/);
  });

  test('a V1-only key is refused on the V2 markets stream', async () => {
    const r = await refusal(`${wsUrl}/api/v2/ws/markets`, { 'X-Service-Key': v1Only });
    assert.equal(r.status, 403);
    assert.match(r.body.error, /V2 subscription/);
  });

  test('a V1-only key gets a stream token, which opens /api/v1/ws once', async () => {
    const res = await fetch(`${s.url}/api/v2/ws/token`, { method: 'POST', headers: { 'X-Service-Key': v1Only } });
    assert.equal(res.status, 200);
    const { token } = (await res.json()) as { token: string };
    const c = await connect(v1(`?token=${token}`));
    await c.close();
    const again = await refusal(v1(`?token=${token}`));
    assert.equal(again.status, 401);
    assert.equal(again.body.error, 'unauthorized');
  });

  test('the connection cap counts V1 and V2 streams together (Ultra: 5)', async () => {
    const k = await s.newKey('ultra', { v1: true });
    const open4 = await Promise.all([1, 2, 3, 4].map(() => open('', k)));
    const v2 = await connect(`${wsUrl}/api/v2/ws/markets`, { 'X-Service-Key': k });
    const r = await refusal(v1(), { 'X-Service-Key': k });
    assert.equal(r.status, 429);
    assert.equal(r.body.error, 'WebSocket connection limit reached');
    for (const c of [...open4, v2]) await c.close();
  });
});

test('a client more than the queue behind loses messages, counted in /metrics; the stream stays open', async () => {
  const scrape = async () => {
    const text = await (await fetch(s.server.metricsUrl!)).text();
    return Number(/^oddsbase_ws_dropped_messages_total (\d+)/m.exec(text)?.[1] ?? 0);
  };
  const before = await scrape();
  // A key of its own: the upgrade tests before it spend the shared key's ten requests a second
  // (Ultra), so on a quick machine this upgrade came within the same second and was refused (429).
  const c = await open(`?event_ids=${E1},${E2}&period=0`, await s.newKey('ultra', { v1: true, v2: false }));
  const books = AFFILIATES.map((a) => a.affiliate_id);
  const sets = books.length * 2;
  assert.ok(sets > QUEUE * BURST_FACTOR);
  // One batch: a line set per book and event at once, more than even a reading client's queue takes.
  await apply(
    ...[E1, E2].flatMap((e) =>
      books.map((affiliate_id) => price(e, { market_id: 1, participant_id: 2002, affiliate_id, price: 161 })),
    ),
  );
  const got = await c.collect(200);
  assert.equal(got.length, QUEUE * BURST_FACTOR);
  assert.equal(c.ws.readyState, c.ws.OPEN);
  assert.equal((await scrape()) - before, sets - QUEUE * BURST_FACTOR);
  await c.close();
});

test('metering: one odds point per price the delivered line set shows', async () => {
  const usage = await connect(`${wsUrl}/api/v2/ws`, { 'X-Service-Key': both });
  const used = async (id: string) => {
    usage.send({ action: 'usage', id });
    return (await usage.next((m) => m.type === 'usage' && m.id === id)).used as number;
  };
  const c = await open(`?event_ids=${E1}&affiliate_ids=19`, both);
  const before = await used('u1');
  await apply(price(E1, { market_id: 1, participant_id: 2014, affiliate_id: 19, price: -145 }));
  const [m] = await lineMessages(c, 1);
  // Book 19's full game: two moneyline sides, the spread's two mains and one alternate, the total's two.
  const shown = 7;
  assert.equal(m.data.moneyline.moneyline_home, -145);
  assert.equal((await used('u2')) - before, shown);
  await c.close();
  await usage.close();
});
