import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { entitlementsFor } from '../../src/access/entitlements.ts';
import { isLiveVariant, isPropMarket } from '../../src/catalog/markets.ts';
import type { PriceUpdate } from '../../src/ledger/updates.ts';
import { batch, nbaEvent, nbaPrices, price, today } from '../helpers/fixtures.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

/**
 * Spec: "Sportsbook coverage, periods and history access also vary by tier"; DESIGN: what a key may
 * see is one plan scope applied by every route. A Free key is covered for four books and the full
 * game only, with no in-play markets and no player props: nothing else may reach it on any route.
 */
const FREE = entitlementsFor('free');
const FREE_BOOKS = new Set(FREE.bookmakers === 'all' ? [] : FREE.bookmakers);
const E = 'fe'.repeat(16);
const DAY = today();

let s: TestServer;

/** Prices of books outside Free's coverage, of a first-half market, an in-play market and a prop. */
function beyondFree(eventId: string): PriceUpdate[] {
  return [
    price(eventId, { market_id: 1, participant_id: 2002, participant_name: 'Boston', affiliate_id: 4, price: 120 }),
    price(eventId, {
      market_id: 1,
      participant_id: 2014,
      participant_name: 'Los Angeles',
      affiliate_id: 4,
      price: -140,
    }),
    price(eventId, {
      market_id: 4,
      period_id: 1,
      participant_id: 2002,
      participant_name: 'Boston',
      affiliate_id: 19,
      price: 110,
    }),
    price(eventId, {
      market_id: 4,
      period_id: 1,
      participant_id: 2014,
      participant_name: 'Los Angeles',
      affiliate_id: 19,
      price: -130,
    }),
    price(eventId, { market_id: 41, participant_id: 2002, participant_name: 'Boston', affiliate_id: 19, price: 150 }),
    price(eventId, {
      market_id: 29,
      participant_id: 901,
      participant_type: 'TYPE_PLAYER',
      participant_name: 'A Player',
      line: '24.5',
      affiliate_id: 19,
      price: -115,
      is_main_line: true,
    }),
  ];
}

before(async () => {
  s = await startTestServer();
  // Described an hour ago: older than Free's five-minute delay, so its view shows all of it.
  const at = new Date(Date.now() - 3_600_000).toISOString();
  await s.server.ledger.apply(
    batch(at, [{ kind: 'event', event: nbaEvent(E, DAY, 23) }, ...nbaPrices(E), ...beyondFree(E)]),
  );
  const later = new Date(Date.now() - 3_000_000).toISOString();
  await s.server.ledger.apply(
    batch(later, [
      price(E, { market_id: 1, participant_id: 2002, participant_name: 'Boston', affiliate_id: 4, price: 125 }),
      price(E, { market_id: 1, participant_id: 2002, participant_name: 'Boston', affiliate_id: 19, price: 135 }),
      price(E, {
        market_id: 4,
        period_id: 1,
        participant_id: 2002,
        participant_name: 'Boston',
        affiliate_id: 19,
        price: 115,
      }),
    ]),
  );
});

after(() => s.close());

/** A fresh Free key per request: the tier's burst ceiling is one request a second. */
const get = async (path: string) => {
  const r = await s.get(path, { 'X-Service-Key': await s.newKey('free') });
  assert.equal(r.status, 200, `${path}: ${JSON.stringify(r.body)}`);
  return r.body;
};

/** Every affiliate, market and period id an answer mentions, wherever it sits. */
function mentioned(body: unknown): { books: Set<number>; markets: Set<number>; periods: Set<number> } {
  const out = { books: new Set<number>(), markets: new Set<number>(), periods: new Set<number>() };
  const walk = (v: unknown, key?: string) => {
    if (typeof v === 'string' && key === 'json') return walk(JSON.parse(v));
    if (Array.isArray(v)) {
      if (key === 'affiliate_ids') for (const id of v) out.books.add(id as number);
      for (const x of v) walk(x);
      return;
    }
    if (!v || typeof v !== 'object') return;
    for (const [k, x] of Object.entries(v)) {
      if (k === 'affiliate_id' && typeof x === 'number') out.books.add(x);
      if ((k === 'market_id' || (k === 'id' && 'live_variant_id' in v)) && typeof x === 'number') out.markets.add(x);
      if (k === 'period_id' && typeof x === 'number') out.periods.add(x);
      // Prices are keyed by affiliate id; chart series too.
      if ((k === 'prices' || k === 'series') && typeof x === 'object' && x) {
        for (const book of Object.keys(x)) out.books.add(Number(book));
      }
      walk(x, k);
    }
  };
  walk(body);
  return out;
}

function assertWithinFree(path: string, body: unknown): void {
  const seen = mentioned(body);
  for (const b of seen.books) assert.ok(FREE_BOOKS.has(b), `${path}: book ${b} is outside the Free plan`);
  for (const p of seen.periods) assert.equal(p, 0, `${path}: period ${p} is outside the Free plan`);
  for (const m of seen.markets) {
    assert.ok(!isLiveVariant(m), `${path}: in-play market ${m} is outside the Free plan`);
    assert.ok(!isPropMarket(m), `${path}: prop market ${m} is outside the Free plan`);
  }
}

describe('a Free key never receives a book, period or market outside its plan', () => {
  const ev = `/api/v2/events/${E}`;
  const routes = [
    `/api/v2/sports/4/events/${DAY}?market_ids=1,2,3,4`,
    `${ev}?market_ids=1,4`,
    `/api/v2/sports/4/events/${DAY}?include=all_periods`,
    `${ev}?include=all_periods&include=price_delta`,
    `${ev}/openers?include=all_periods`,
    `${ev}/closing?include=all_periods`,
    `${ev}/openers?market_ids=1,4`,
    `${ev}/markets/opening?market_ids=1,4`,
    `${ev}/closing?market_ids=1,4`,
    `/api/v2/sports/4/openers/${DAY}?market_ids=1,4`,
    `/api/v2/sports/4/closing/${DAY}?market_ids=1,4`,
    `${ev}/markets/history`,
    `${ev}/markets/history?affiliate_ids=4,19`,
    `${ev}/markets/1/history`,
    `${ev}/markets/4/history`,
    `${ev}/best-line`,
    `${ev}/markets`,
    `/api/v2/sports/4/markets/${DAY}`,
    `/api/v2/sports/markets/${DAY}?sport_ids=4`,
    `/api/v2/markets/participants?event_id=${E}&market_ids=1,4`,
    `/api/v2/markets/delta?last_id=0&limit=5000`,
    `/api/v2/markets/delta?last_id=0&affiliate_ids=4,19&market_ids=1,4,41,29`,
    `/api/v2/markets/delta?last_id=0&event_id=${E}`,
  ];
  for (const path of routes) {
    test(path, async () => assertWithinFree(path, await get(path)));
  }

  test('/api/v2/markets/history by the ids of prices outside the plan', async () => {
    // The Ultra view names every price of the event; a Free key asking for them gets only its own.
    const full = await s.get(`${ev}?market_ids=1,4,41,29&include=price_delta`);
    const ids: string[] = [];
    for (const m of full.body.events[0].markets)
      for (const p of m.participants)
        for (const l of p.lines) for (const x of Object.values(l.prices)) ids.push((x as { id: string }).id);
    assert.ok(ids.length >= 8, `${ids.length} prices`);
    const path = `/api/v2/markets/history?market_line_price_ids=${ids.slice(0, 50).join(',')}`;
    const body = await get(path);
    assert.ok(body.meta.count > 0, 'the covered prices are there');
    assertWithinFree(path, body);
  });

  test('a delayed plan sees at once what describes a time older than its delay (a fresh server’s history)', async () => {
    // Committed a moment ago, describing an hour ago: the delay belongs to the time the data describes.
    const body = await get(`/api/v2/sports/4/events/${DAY}`);
    const event = body.events.find((e: { event_id: string }) => e.event_id === E);
    assert.ok(event, 'the event is on the Free view');
    assert.ok(event.markets.length > 0, 'with its covered markets');
  });

  test('best-line for a period outside the plan is refused as an entitlement (403)', async () => {
    const r = await s.get(`${ev}/best-line?period=1`, { 'X-Service-Key': await s.newKey('free') });
    assert.equal(r.status, 403);
    assert.match(r.body.error, /Period 1/);
    assert.ok(r.body.upgrade_url);
    assert.equal(r.headers.get('x-periods'), '0');
    const live = await s.get(`${ev}/best-line?period=period_live_full_game`, {
      'X-Service-Key': await s.newKey('free'),
    });
    assert.equal(live.status, 403, 'Free has no in-play odds');
    assert.match(live.body.error, /period_live_full_game/);
    const starter = await s.get(`${ev}/best-line?period=period_live_full_game`, {
      'X-Service-Key': await s.newKey('starter'),
    });
    assert.equal(starter.status, 200, 'Starter covers the full game and in-play odds');
  });

  test('/api/v2/delta carries full events within the plan', async () => {
    const first = await get('/api/v2/delta');
    await s.server.ledger.apply(
      batch(new Date(Date.now() - 3_500_000).toISOString(), [
        price(E, { market_id: 1, participant_id: 2002, participant_name: 'Boston', affiliate_id: 4, price: 130 }),
      ]),
    );
    const body = await get(`/api/v2/delta?last_id=${first.meta.delta_last_id}`);
    assert.equal(body.meta.count, 1);
    assertWithinFree('/api/v2/delta', body);
  });

  test('include=all_periods (alone or repeated with price_delta) brings every period’s markets', async () => {
    const markets = (body: any) => body.events[0].markets.map((m: any) => [m.market_id, m.period_id]);
    const plain = await s.get(ev);
    assert.ok(!markets(plain.body).some(([id]: number[]) => id === 4), 'no half market by default');
    for (const path of [
      `${ev}?include=all_periods`,
      `${ev}?include=price_delta&include=all_periods`,
      `${ev}?include=price_delta,all_periods`,
      `/api/v2/sports/4/events/${DAY}?include=all_periods`,
      `${ev}/openers?include=all_periods`,
      `${ev}/closing?include=all_periods`,
    ]) {
      const r = await s.get(path);
      assert.equal(r.status, 200, `${path}: ${JSON.stringify(r.body)}`);
      const found = markets(r.body);
      assert.ok(
        found.some(([id, period]: number[]) => id === 4 && period === 1),
        `${path}: first half`,
      );
      assert.ok(
        found.some(([id]: number[]) => id === 41),
        `${path}: live full game`,
      );
      assert.ok(!found.some(([id]: number[]) => id === 29), `${path}: props are not a period`);
    }
    const both = await s.get(`${ev}?include=price_delta&include=all_periods`);
    const prices = both.body.events[0].markets.flatMap((m: any) =>
      m.participants.flatMap((p: any) => p.lines.flatMap((l: any) => Object.values(l.prices))),
    );
    assert.ok(prices.every((p: any) => typeof p.price_delta === 'number'));
    assert.equal((await s.get(`${ev}?include=all_periods&include=nope`)).status, 400);
  });

  test('the unrestricted key sees what the Free key does not (the data is there to leak)', async () => {
    const all = mentioned((await s.get(`${ev}?market_ids=1,4,41,29`)).body);
    assert.ok(all.books.has(4) && all.periods.has(1) && all.markets.has(41) && all.markets.has(29));
    const delta = mentioned((await s.get('/api/v2/markets/delta?last_id=0&limit=5000')).body);
    assert.ok(delta.books.has(4) && delta.markets.has(41) && delta.markets.has(29));
  });
});
