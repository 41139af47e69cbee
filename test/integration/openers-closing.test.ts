import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { generateKey, newKeyRecord } from '../../src/access/keys.ts';
import { batch, nbaEvent, nbaPrices, price, score } from '../helpers/fixtures.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

/** PAST started yesterday at 19:00; FUTURE starts tomorrow. */
const PAST = 'b1'.repeat(16);
const FUTURE = 'b2'.repeat(16);
const day = (offsetDays: number) => new Date(Date.now() + offsetDays * 86_400_000).toISOString().slice(0, 10);
const PAST_DATE = day(-1);
const START = Date.parse(`${PAST_DATE}T19:00:00Z`);
const at = (minutesFromStart: number) => new Date(START + minutesFromStart * 60_000).toISOString();

let s: TestServer;
let key: string;

const get = (path: string) => s.get(path, { 'X-Service-Key': key });
const ml = (eventId: string, participant: 2002 | 2014, affiliate: number, value: number) =>
  price(eventId, {
    market_id: 1,
    participant_id: participant,
    participant_name: participant === 2002 ? 'Boston' : 'Los Angeles',
    affiliate_id: affiliate,
    price: value,
  });

before(async () => {
  s = await startTestServer();
  // A key whose burst ceiling the tests cannot reach.
  key = generateKey();
  await s.server.keys.insert(
    newKeyRecord(key, 'enterprise', { label: 'closing', custom: JSON.stringify({ burstPerSecond: 1e6 }) }),
  );
  const { ledger } = s.server;
  await ledger.apply(
    batch(at(-180), [
      { kind: 'event', event: nbaEvent(PAST, PAST_DATE, 19) },
      { kind: 'event', event: nbaEvent(FUTURE, day(1), 23) },
      ...nbaPrices(PAST),
      ...nbaPrices(FUTURE),
    ]),
  );
  await ledger.apply(
    batch(at(-120), [
      ml(PAST, 2002, 19, 140),
      ml(FUTURE, 2002, 19, 145),
      { ...ml(PAST, 2014, 23, -150), liquidity_usd: 2500, source_id: 'src-1' },
      price(PAST, {
        market_id: 3,
        participant_id: 1,
        affiliate_id: 23,
        line: '221.5',
        price: -112,
        closed: true,
      }),
    ]),
  );
  // The main spread of Los Angeles at book 19 moves from -3.5 to -4.5 an hour before the start.
  await ledger.apply(
    batch(at(-60), [
      ml(PAST, 2002, 19, 150),
      price(PAST, {
        market_id: 2,
        participant_id: 2014,
        participant_name: 'Los Angeles',
        affiliate_id: 19,
        line: '-4.5',
        price: -102,
        is_main_line: true,
      }),
    ]),
  );
  await ledger.apply(batch(at(0), [ml(PAST, 2014, 19, -170)]));
  // After the start: moves that closing ignores, a line first priced now, and a live price.
  await ledger.apply(
    batch(at(30), [
      { kind: 'score', event_id: PAST, score: score(PAST, 'STATUS_IN_PROGRESS', 10, 12) },
      ml(PAST, 2002, 19, 400),
      ml(PAST, 2014, 19, -600),
      price(PAST, {
        market_id: 2,
        participant_id: 2014,
        participant_name: 'Los Angeles',
        affiliate_id: 19,
        line: '-5.5',
        price: 120,
      }),
      price(PAST, {
        market_id: 41,
        participant_id: 2002,
        participant_name: 'Boston',
        affiliate_id: 19,
        price: 300,
      }),
    ]),
  );
});

after(() => s.close());

type Prices = Map<string, any>;

/** Every price of an envelope's first event, by `${market_id}|${participant}|${line}|${affiliate}`. */
function flatten(body: any): Prices {
  const out: Prices = new Map();
  for (const m of body.events[0]?.markets ?? []) {
    for (const p of m.participants) {
      for (const l of p.lines) {
        for (const [aff, pr] of Object.entries(l.prices)) out.set(`${m.market_id}|${p.id}|${l.value}|${aff}`, pr);
      }
    }
  }
  return out;
}

/** The recorded rows of the prices, oldest first, from /api/v2/markets/history. */
async function rowsOf(ids: string[]): Promise<Map<string, any[]>> {
  const out = new Map<string, any[]>(ids.map((id) => [id, []]));
  for (let i = 0; i < ids.length; i += 50) {
    const r = await get(`/api/v2/markets/history?market_line_price_ids=${ids.slice(i, i + 50).join(',')}`);
    for (const row of [...r.body.history].reverse()) out.get(String(row.market_line_price_id))!.push(row);
  }
  return out;
}

const snapshotOf = (row: any) => ({
  price: Number(row.price),
  is_main_line: row.is_main_line,
  updated_at: row.updated_at,
});

describe('/api/v2/events/{eventID}/openers', () => {
  test('the events envelope, with the first recorded price of every line at every book', async () => {
    const r = await get(`/api/v2/events/${PAST}/openers`);
    assert.equal(r.status, 200);
    assert.equal(typeof r.body.meta.delta_last_id, 'string');
    assert.equal(r.body.events.length, 1);
    const current = await get(`/api/v2/events/${PAST}`);
    assert.deepEqual(Object.keys(r.body.events[0]), Object.keys(current.body.events[0]));
    const openers = flatten(r.body);
    assert.equal(openers.size, 14 + 1 + 1, 'every line, the one first priced after the start, the live price');
    const rows = await rowsOf([...openers.values()].map((p) => p.id));
    for (const [k, p] of openers) {
      const first = rows.get(p.id)![0];
      assert.deepEqual(
        { price: p.price, is_main_line: p.is_main_line, updated_at: p.updated_at },
        snapshotOf(first),
        k,
      );
      assert.equal(first.change_type, 'new');
    }
    assert.equal(openers.get('1|2002||19').price, 130);
    assert.equal(openers.get('1|2002||19').updated_at, at(-180));
    assert.equal(openers.get('41|2002||19').price, 300);
    assert.equal(openers.get('2|2014|-5.5|19').updated_at, at(30));
  });

  test('main_line and hide_closed apply to the recorded row', async () => {
    const main = flatten((await get(`/api/v2/events/${PAST}/openers?main_line=true&market_ids=2`)).body);
    assert.ok(main.has('2|2014|-3.5|19'), 'main when it opened');
    assert.ok(!main.has('2|2014|-4.5|19'), 'not main when it opened');
    assert.ok([...main.values()].every((p) => p.is_main_line));
    const open = flatten((await get(`/api/v2/events/${PAST}/openers?hide_closed=true&market_ids=3`)).body);
    assert.ok(open.has('3|1|221.5|23'), 'it opened before it closed');
  });

  test('markets/opening: the openers in the published layout, keyed by market, participant:line and book', async () => {
    const a = await get(`/api/v2/events/${PAST}/openers?market_ids=1,2`);
    const b = await get(`/api/v2/events/${PAST}/markets/opening?market_ids=1,2`);
    assert.equal(b.status, 200);
    const markets: Record<string, any> = {};
    for (const m of a.body.events[0].markets) {
      if (markets[m.market_id]) continue;
      const lines: Record<string, any> = {};
      for (const p of m.participants) {
        for (const l of p.lines) {
          lines[`${p.id}:${l.value}`] = {
            participant_id: p.id,
            participant_type: p.type,
            participant_name: p.name,
            prices: Object.fromEntries(
              Object.entries<any>(l.prices).map(([book, x]) => [book, { price: x.price, timestamp: x.updated_at }]),
            ),
          };
        }
      }
      markets[m.market_id] = { market_id: m.market_id, market_name: m.name, lines };
    }
    assert.ok(Object.keys(markets).length >= 2);
    assert.deepEqual(b.body, { meta: { event_id: PAST, count: Object.keys(markets).length }, markets });
    assert.equal(b.headers.get('x-datapoints'), a.headers.get('x-datapoints'));
  });
});

describe('/api/v2/events/{eventID}/closing', () => {
  test('the last recorded price at or before the start; later rows and lines are left out', async () => {
    const r = await get(`/api/v2/events/${PAST}/closing`);
    assert.equal(r.status, 200);
    const closing = flatten(r.body);
    assert.equal(closing.size, 14, 'not the line first priced after the start, nor the live price');
    assert.ok(!closing.has('2|2014|-5.5|19'));
    assert.ok(!closing.has('41|2002||19'));
    const { price: p, is_main_line, updated_at } = closing.get('1|2002||19');
    assert.deepEqual({ p, is_main_line, updated_at }, { p: 150, is_main_line: false, updated_at: at(-60) });
    assert.equal(closing.get('1|2014||19').price, -170, 'a row at the start itself counts');
    const rows = await rowsOf([...closing.values()].map((p) => p.id));
    const start = new Date(START).toISOString();
    for (const [k, p] of closing) {
      const last = rows
        .get(p.id)!
        .filter((row) => row.updated_at <= start)
        .at(-1);
      assert.deepEqual({ price: p.price, is_main_line: p.is_main_line, updated_at: p.updated_at }, snapshotOf(last), k);
    }
    const now = flatten(await get(`/api/v2/events/${PAST}`).then((x) => x.body));
    assert.equal(now.get('1|2002||19').price, 400, 'the current price moved on after the start');
  });

  test('main_line and hide_closed apply to the recorded row', async () => {
    const main = flatten((await get(`/api/v2/events/${PAST}/closing?main_line=true&market_ids=2`)).body);
    assert.ok(main.has('2|2014|-4.5|19'));
    assert.ok(!main.has('2|2014|-3.5|19'));
    const all = flatten((await get(`/api/v2/events/${PAST}/closing?market_ids=3`)).body);
    assert.ok(all.has('3|1|221.5|23'));
    const open = flatten((await get(`/api/v2/events/${PAST}/closing?hide_closed=true&market_ids=3`)).body);
    assert.ok(!open.has('3|1|221.5|23'));
    assert.equal(open.size, all.size - 1);
  });

  test('before the start it is provisional: the latest row so far', async () => {
    const closing = flatten((await get(`/api/v2/events/${FUTURE}/closing`)).body);
    const current = flatten((await get(`/api/v2/events/${FUTURE}`)).body);
    assert.equal(closing.size, 14);
    assert.deepEqual(closing, current);
    assert.equal(closing.get('1|2002||19').price, 145);
  });

  test('include=price_delta, liquidity_usd and source_id come from the recorded row', async () => {
    const closing = flatten((await get(`/api/v2/events/${PAST}/closing?include=price_delta`)).body);
    assert.equal(closing.get('1|2002||19').price_delta, 10);
    assert.equal(closing.get('1|2014||23').liquidity_usd, 2500);
    assert.equal(closing.get('1|2014||23').source_id, 'src-1');
    const openers = flatten((await get(`/api/v2/events/${PAST}/openers`)).body);
    assert.equal(openers.get('1|2014||23').liquidity_usd, undefined);
    assert.equal(openers.get('1|2002||19').price_delta, undefined);
  });
});

describe('shared event parameters on openers and closing', () => {
  test('affiliate_ids, participant_ids and participant_type', async () => {
    for (const kind of ['openers', 'closing']) {
      const book = flatten((await get(`/api/v2/events/${PAST}/${kind}?affiliate_ids=23`)).body);
      assert.ok(book.size > 0 && [...book.keys()].every((k) => k.endsWith('|23')), kind);
      const team = flatten((await get(`/api/v2/events/${PAST}/${kind}?participant_ids=2014`)).body);
      assert.ok(team.size > 0 && [...team.keys()].every((k) => k.split('|')[1] === '2014'), kind);
      const results = flatten((await get(`/api/v2/events/${PAST}/${kind}?participant_type=TYPE_RESULT`)).body);
      assert.ok(results.size > 0 && [...results.keys()].every((k) => k.startsWith('3|')), kind);
    }
  });

  test('market_ids: at most 12, live variants added; status filters and hide_no_markets', async () => {
    const twelve = Array.from({ length: 12 }, (_, i) => i + 1).join(',');
    for (const kind of ['openers', 'closing']) {
      assert.equal((await get(`/api/v2/events/${PAST}/${kind}?market_ids=${twelve}`)).status, 200);
      const r = await get(`/api/v2/events/${PAST}/${kind}?market_ids=${twelve},13`);
      assert.equal(r.status, 400, kind);
      assert.match(r.body.error, /12/);
      const none = await get(`/api/v2/events/${PAST}/${kind}?exclude_status=STATUS_IN_PROGRESS`);
      assert.deepEqual(none.body.events, []);
      const empty = await get(`/api/v2/events/${PAST}/${kind}?market_ids=29`);
      assert.equal(empty.body.events[0].markets.length, 0);
      const hidden = await get(`/api/v2/events/${PAST}/${kind}?market_ids=29&hide_no_markets=true`);
      assert.deepEqual(hidden.body.events, []);
    }
    const live = flatten((await get(`/api/v2/events/${PAST}/openers?market_ids=1`)).body);
    assert.ok(live.has('41|2002||19'), 'market 1 brings 41');
  });

  test('unknown event: 404 naming it; bad parameters: 400; no key: 401', async () => {
    for (const path of ['openers', 'closing', 'markets/opening']) {
      const r = await get(`/api/v2/events/nope/${path}`);
      assert.equal(r.status, 404, path);
      assert.match(r.body.message, /event nope/);
      assert.equal((await get(`/api/v2/events/${PAST}/${path}?main_line=perhaps`)).status, 400, path);
      assert.equal((await s.get(`/api/v2/events/${PAST}/${path}`, {})).status, 401, path);
    }
  });
});

describe('/api/v2/sports/{sportID}/openers/{date} and /closing/{date}', () => {
  test('every event of the sport and day, as the event routes give them', async () => {
    for (const kind of ['openers', 'closing']) {
      const r = await get(`/api/v2/sports/4/${kind}/${PAST_DATE}`);
      assert.equal(r.status, 200, kind);
      assert.deepEqual(
        r.body.events.map((e: any) => e.event_id),
        [PAST],
      );
      const one = await get(`/api/v2/events/${PAST}/${kind}`);
      assert.deepEqual(r.body.events, one.body.events);
      const tomorrow = await get(`/api/v2/sports/4/${kind}/${day(1)}`);
      assert.deepEqual(
        tomorrow.body.events.map((e: any) => e.event_id),
        [FUTURE],
      );
    }
  });

  test('offset, event_status, exclude_status, hide_no_markets and the snapshot filters', async () => {
    // Five hours behind UTC, yesterday 19:00Z is still yesterday, tomorrow 23:00Z is still tomorrow.
    const shifted = await get(`/api/v2/sports/4/closing/${PAST_DATE}?offset=300`);
    assert.deepEqual(
      shifted.body.events.map((e: any) => e.event_id),
      [PAST],
    );
    const moved = await get(`/api/v2/sports/4/closing/${PAST_DATE}?offset=-1200`);
    assert.deepEqual(moved.body.events, []);
    const live = await get(`/api/v2/sports/4/openers/${PAST_DATE}?event_status=STATUS_IN_PROGRESS`);
    assert.equal(live.body.events.length, 1);
    const excluded = await get(`/api/v2/sports/4/openers/${PAST_DATE}?exclude_status=STATUS_IN_PROGRESS`);
    assert.deepEqual(excluded.body.events, []);
    const noMarkets = await get(`/api/v2/sports/4/closing/${PAST_DATE}?market_ids=29&hide_no_markets=true`);
    assert.deepEqual(noMarkets.body.events, []);
    const book = flatten((await get(`/api/v2/sports/4/closing/${PAST_DATE}?affiliate_ids=19&main_line=true`)).body);
    assert.ok(book.size > 0 && [...book.keys()].every((k) => k.endsWith('|19')));
    assert.ok([...book.values()].every((p) => p.is_main_line));
  });

  test('bad date or parameters: 400; unknown sport: 404', async () => {
    for (const kind of ['openers', 'closing']) {
      assert.equal((await get(`/api/v2/sports/4/${kind}/2026-02-30`)).status, 400);
      assert.equal((await get(`/api/v2/sports/4/${kind}/${PAST_DATE}?offset=5000`)).status, 400);
      const twelve = Array.from({ length: 13 }, (_, i) => i + 1).join(',');
      assert.equal((await get(`/api/v2/sports/4/${kind}/${PAST_DATE}?market_ids=${twelve}`)).status, 400);
      assert.equal((await get(`/api/v2/sports/999/${kind}/${PAST_DATE}`)).status, 404);
    }
  });
});
