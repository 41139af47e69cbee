import assert from 'node:assert/strict';
import { type IncomingHttpHeaders, request } from 'node:http';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { generateKey, hashKey, newKeyRecord } from '../../src/access/keys.ts';
import type { Tier } from '../../src/catalog/tiers.ts';
import { batch, nbaEvent, nbaPrices, price, score } from '../helpers/fixtures.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

/** A clock the test moves by hand: commits, delays and limits all read it. */
let clock = Date.parse('2026-11-23T12:00:00.200Z');
const now = () => clock;
const iso = () => new Date(clock).toISOString();
const D = '2026-11-23';
const E = 'ac'.repeat(16);
const LIVE = 'ad'.repeat(16);
let s: TestServer;

const ML = (p: number, aff = 19) =>
  price(E, { market_id: 1, participant_id: 2002, participant_name: 'Boston', affiliate_id: aff, price: p });

before(async () => {
  // The clock jumps days ahead to test plan windows; retention (one day by default) would compact the
  // log behind it whenever its timer fired in between, which is its own tests' business.
  s = await startTestServer({ now, limits: { retentionDays: 0 } });
  await s.server.ledger.apply(
    batch(iso(), [
      { kind: 'event', event: nbaEvent(E, D, 23) },
      { kind: 'event', event: nbaEvent(LIVE, D, 20) },
      ...nbaPrices(E),
      ...nbaPrices(LIVE),
    ]),
  );
  await s.server.ledger.apply(
    batch(iso(), [
      {
        kind: 'score',
        event_id: LIVE,
        score: score(LIVE, 'STATUS_IN_PROGRESS', 3, 5),
        live_game_state: { possession: 'away' },
      },
    ]),
  );
  // Delayed plans (up to five minutes) see these fixtures too.
  clock += 301_000;
});

after(() => s.close());

const get = (path: string, key: string) => s.get(path, { 'X-Service-Key': key });

/** A GET sent from a chosen local address, on a connection of its own. */
function getFrom(
  localAddress: string,
  path: string,
  key: string,
): Promise<{ status: number; body: any; headers: IncomingHttpHeaders }> {
  return new Promise((resolve, reject) => {
    const req = request(`${s.url}${path}`, { localAddress, agent: false, headers: { 'X-Service-Key': key } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(text), headers: res.headers }));
    });
    req.on('error', reject);
    req.end();
  });
}
/** How many requests the server has refused for `reason` (its metrics). */
async function refusals(reason: string): Promise<number> {
  const text = await (await fetch(s.server.metricsUrl!)).text();
  const sample = new RegExp(`^oddsbase_access_refusals_total\\{reason="${reason}"\\} (\\d+)$`, 'm').exec(text);
  return Number(sample?.[1] ?? 0);
}
const events = `/api/v2/sports/4/events/${D}`;
const usedKey = (key: string, period: string) => `use:${hashKey(key)}:${period}`;

describe('keys', () => {
  test('an expired key is refused like a missing one', async () => {
    const k = await s.newKey('ultra', { expiresAt: new Date(clock - 1000).toISOString() });
    const r = await get('/api/v2/markets', k);
    assert.equal(r.status, 401);
    assert.deepEqual(r.body, { message: 'unauthorized' });
    assert.equal(r.headers.get('x-tier'), null, 'no plan is known before the key check passes');
  });

  test('a key whose stored plan the server does not know is refused on every keyed route with a 503', async () => {
    const k = generateKey();
    await s.server.keys.insert({ ...newKeyRecord(k, 'ultra'), tier: 'platinum' as Tier });
    for (const path of [
      events,
      '/api/v2/markets',
      '/api/v2/markets/delta?last_id=0',
      '/api/v2/stats',
      '/api/v2/stats/sample',
      '/api/v2/teams/2002',
      '/api/v2/teams/2002/stats',
      `/api/v2/events/${'a'.repeat(32)}/plays`,
      '/api/v2/sports/4/futures',
      '/api/v1/sports',
    ]) {
      const r = await get(path, k);
      assert.equal(r.status, 503, path);
      assert.equal(r.body.code, 'plan_unsupported', path);
      assert.match(r.body.message, /plan of this key \(platinum\) is not one this server knows/, path);
      assert.equal(r.headers.get('retry-after'), null, path);
      assert.equal(r.headers.get('x-datapoints'), null, `${path}: nothing is counted`);
      assert.equal(r.headers.get('x-tier'), null, `${path}: no plan to name`);
    }
    // Public routes need no key, so they do not ask what the key's plan is.
    assert.equal((await get('/api/v2/sports', k)).status, 200);
  });

  test('a weekly key without a creation date is refused with a 503 too: its weeks cannot be counted', async () => {
    const k = generateKey();
    await s.server.keys.insert({ ...newKeyRecord(k, 'pro', { billing: 'weekly' }), created_at: '' });
    for (const path of [events, '/api/v2/teams/2002/stats', '/api/v2/markets']) {
      const r = await get(path, k);
      assert.equal(r.status, 503, path);
      assert.equal(r.body.code, 'plan_unsupported', path);
      assert.match(r.body.message, /no creation date/, path);
    }
    // A monthly key without one is served; only the stats-access policy needs its date (503 stats_policy_unsupported).
    const monthly = generateKey();
    await s.server.keys.insert({ ...newKeyRecord(monthly, 'pro'), created_at: '' });
    assert.equal((await get(events, monthly)).status, 200);
    const stats = await get('/api/v2/teams/2002/stats', monthly);
    assert.equal(stats.status, 503);
    assert.equal(stats.body.code, 'stats_policy_unsupported');
  });
});

describe('metering', () => {
  test('per event: 1 events + 1 scores point + 1 odds point per price, +1 with live_game_state', async () => {
    const k = await s.newKey('ultra');
    // E: 14 prices, no score. LIVE: 14 prices, live state shown to Ultra.
    const r = await get(`${events}?market_ids=1,2,3`, k);
    assert.equal(r.status, 200);
    const count = (e: any) =>
      e.markets.reduce(
        (n: number, m: any) =>
          n +
          m.participants.reduce(
            (a: number, p: any) => a + p.lines.reduce((b: number, l: any) => b + Object.keys(l.prices).length, 0),
            0,
          ),
        0,
      );
    const hand = r.body.events.reduce((n: number, e: any) => n + 2 + count(e) + (e.live_game_state ? 1 : 0), 0);
    assert.equal(hand, 2 + 14 + (2 + 14 + 1));
    assert.equal(r.headers.get('x-datapoints'), String(hand));
    assert.equal(r.headers.get('x-datapoints-used'), String(hand));
    assert.equal(r.headers.get('x-datapoints-limit'), '100000000');
    assert.equal(r.headers.get('x-datapoints-remaining'), String(100_000_000 - hand));
    assert.equal(r.headers.get('x-datapoints-period'), 'monthly');
    assert.equal(r.headers.get('x-datapoints-reset'), '2026-12-01T00:00:00.000Z');
    const again = await get(`${events}?market_ids=1,2,3`, k);
    assert.equal(again.headers.get('x-datapoints-used'), String(2 * hand));
  });

  test('an event whose prices are all closed costs 2 points under hide_closed=true', async () => {
    const k = await s.newKey('ultra');
    await s.server.ledger.apply(
      batch(
        iso(),
        nbaPrices(E).map((p) => ({ ...p, closed: true })),
      ),
    );
    const r = await get(`/api/v2/events/${E}?hide_closed=true`, k);
    assert.equal(r.headers.get('x-datapoints'), '2');
    await s.server.ledger.apply(batch(iso(), nbaPrices(E)));
  });

  test('entitlement headers say what the plan allows; catalog responses are free', async () => {
    const free = await s.newKey('free');
    const r = await get(events, free);
    assert.equal(r.headers.get('x-tier'), 'Free');
    assert.equal(r.headers.get('x-rate-limit'), '1');
    assert.equal(r.headers.get('x-data-delay-seconds'), '300');
    assert.equal(r.headers.get('x-bookmakers'), '19,22,23,24');
    assert.equal(r.headers.get('x-periods'), '0');
    assert.equal(r.headers.get('x-history-access'), '7');
    assert.equal(r.headers.get('x-live-odds-access'), 'false');
    assert.equal(r.headers.get('x-websocket-access'), 'false');
    assert.equal(r.headers.get('x-datapoints-period'), 'daily');
    assert.ok(r.headers.get('x-datapoints-monthly-used'));
    assert.ok(r.headers.get('x-datapoints-monthly-remaining'));
    assert.equal(r.headers.get('x-datapoints-monthly-reset'), '2026-12-01T00:00:00.000Z');
    await sleep(1000);
    clock += 1000;
    const catalog = await get('/api/v2/markets', free);
    assert.equal(catalog.status, 200);
    assert.equal(catalog.headers.get('x-datapoints'), null);
  });

  test('weekly billing: monthly points x 12 / 52 per 7-day window', async () => {
    const k = await s.newKey('pro', { billing: 'weekly', createdAt: new Date(clock - 3 * 86_400_000) });
    const r = await get(`/api/v2/events/${E}`, k);
    assert.equal(r.headers.get('x-datapoints-period'), 'weekly');
    assert.equal(r.headers.get('x-datapoints-limit'), String(Math.round((25_000_000 * 12) / 52)));
    assert.equal(r.headers.get('x-datapoints-reset'), new Date(clock + 4 * 86_400_000).toISOString());
  });

  test('bonus credits are reported with their expiry', async () => {
    const k = await s.newKey('starter', { credits: 5000, creditsExpiry: '2027-01-01T00:00:00.000Z' });
    const r = await get(`/api/v2/events/${E}`, k);
    assert.equal(r.headers.get('x-datapoints-credit-balance'), '5000');
    assert.equal(r.headers.get('x-datapoints-credit-expiry'), '2027-01-01T00:00:00.000Z');
  });
});

describe('limits', () => {
  test('burst: twice the ceiling in one second gets 429 Rate limit exceeded with Retry-After', async () => {
    const k = await s.newKey('ultra');
    const results = await Promise.all(Array.from({ length: 20 }, () => get('/api/v2/markets', k)));
    const ok = results.filter((r) => r.status === 200).length;
    const limited = results.filter((r) => r.status === 429);
    assert.equal(ok, 10);
    assert.equal(limited.length, 10);
    const body = limited[0]!.body;
    assert.equal(body.error, 'Rate limit exceeded');
    assert.equal(body.limit, 10);
    assert.equal(typeof body.upgrade_url, 'string');
    assert.equal(typeof body.upgrade_message, 'string');
    assert.equal(limited[0]!.headers.get('retry-after'), '1');
    // The refusal names the plan that refused it, and meters nothing.
    assert.equal(limited[0]!.headers.get('x-tier'), 'Ultra');
    assert.equal(limited[0]!.headers.get('x-rate-limit'), '10');
    assert.equal(limited[0]!.headers.get('x-datapoints'), null);
    clock += 1000;
    assert.equal((await get('/api/v2/markets', k)).status, 200, 'the next second is free again');
  });

  test('Free daily cap: 429 once reached; a refused request consumes nothing', async () => {
    const k = await s.newKey('free');
    await s.server.counters.set(usedKey(k, D), 19_999, clock + 86_400_000);
    clock += 1000;
    const last = await get(`/api/v2/events/${E}`, k);
    assert.equal(last.status, 200, 'under the cap: served');
    const used = Number(last.headers.get('x-datapoints-used'));
    assert.ok(used > 20_000);
    clock += 1000;
    const refused = await get(`/api/v2/events/${E}`, k);
    assert.equal(refused.status, 429);
    assert.equal(refused.body.error, 'Daily data point limit reached');
    assert.equal(refused.body.limit, 20_000);
    assert.equal(refused.body.used, used);
    assert.ok(refused.body.upgrade_url && refused.body.upgrade_message);
    assert.ok(Number(refused.headers.get('retry-after')) > 1);
    assert.equal(refused.headers.get('x-tier'), 'Free');
    assert.equal(refused.headers.get('x-bookmakers'), '19,22,23,24');
    assert.equal(await s.server.counters.get(usedKey(k, D)), used, 'nothing consumed');
  });

  test('Free monthly cap: 429 Monthly data point limit reached with the period', async () => {
    const k = await s.newKey('free');
    await s.server.counters.set(usedKey(k, '2026-11'), 200_000, clock + 30 * 86_400_000);
    clock += 1000;
    const r = await get(`/api/v2/events/${E}`, k);
    assert.equal(r.status, 429);
    assert.equal(r.body.error, 'Monthly data point limit reached');
    assert.equal(r.body.limit, 200_000);
    assert.equal(r.body.used, 200_000);
    assert.equal(r.body.period, '2026-11');
    assert.ok(r.headers.get('retry-after'));
    assert.equal(r.headers.get('x-tier'), 'Free');
  });

  test('paid tiers accrue overage; a hard budget cap then answers 403', async () => {
    const k = await s.newKey('starter', { budgetCapUsd: 0.01 });
    await s.server.counters.set(usedKey(k, '2026-11'), 5_000_000, clock + 30 * 86_400_000);
    clock += 1000;
    const over = await get(`/api/v2/events/${E}`, k);
    assert.equal(over.status, 200, 'past the included points a paid plan keeps going');
    assert.equal(over.headers.get('x-datapoints-remaining'), '0');
    // 0.01 USD at 0.002 per point: five points of overage exhaust the cap.
    clock += 1000;
    const capped = await get(`/api/v2/events/${E}`, k);
    assert.equal(capped.status, 403);
    assert.equal(capped.body.error, 'Budget limit reached');
    assert.ok(capped.body.upgrade_url);
    assert.equal(capped.headers.get('x-tier'), 'Starter');
  });
});

describe('entitlements', () => {
  test('player props need Starter: 403 with error and upgrade_url', async () => {
    const r = await get(`${events}?market_ids=29`, await s.newKey('free'));
    assert.equal(r.status, 403);
    assert.match(r.body.error, /Starter/);
    assert.ok(r.body.upgrade_url);
    assert.equal(r.headers.get('x-tier'), 'Free', 'a refusal in a route names the plan too');
    assert.equal(r.headers.get('x-periods'), '0');
    clock += 1000;
    assert.equal((await get(`${events}?market_ids=29`, await s.newKey('starter'))).status, 200);
  });

  test('history window: 403 with earliest_available_date and history_days_limit; offset does not move it', async () => {
    const k = await s.newKey('free');
    const r = await get('/api/v2/sports/4/events/2026-11-15', k);
    assert.equal(r.status, 403);
    assert.equal(r.body.earliest_available_date, '2026-11-16');
    assert.equal(r.body.history_days_limit, 7);
    assert.ok(r.body.upgrade_url);
    assert.equal(r.headers.get('x-tier'), 'Free');
    assert.equal(r.headers.get('x-history-access'), '7');
    clock += 1000;
    assert.equal((await get('/api/v2/sports/4/events/2026-11-16', k)).status, 200);
    clock += 1000;
    assert.equal((await get('/api/v2/sports/4/events/2026-11-15?offset=1440', k)).status, 403);
    clock += 1000;
    assert.equal((await get(`/api/v2/events/${E}`, k)).status, 200, 'an event by id is not gated');
  });

  test('coverage: a Free key sees only its books, full-game periods and no in-play markets', async () => {
    await s.server.ledger.apply(
      batch(iso(), [
        price(E, {
          market_id: 4,
          period_id: 1,
          participant_id: 2002,
          participant_name: 'Boston',
          affiliate_id: 19,
          price: 120,
        }),
        price(E, {
          market_id: 41,
          participant_id: 2002,
          participant_name: 'Boston',
          affiliate_id: 19,
          price: 125,
        }),
      ]),
    );
    clock += 301_000;
    const r = await get(`/api/v2/events/${E}?market_ids=1,4&affiliate_ids=19,3`, await s.newKey('free'));
    const e = r.body.events[0];
    assert.deepEqual(
      e.markets.map((m: any) => m.market_id),
      [1],
    );
    for (const m of e.markets)
      for (const p of m.participants) for (const l of p.lines) assert.deepEqual(Object.keys(l.prices), ['19']);
  });
});

describe('data delay', () => {
  test('a Free key sees the state of five minutes ago; an Ultra key sees it now', async () => {
    clock += 1000;
    await s.server.ledger.apply(batch(iso(), [ML(300)]));
    const ultra = await s.newKey('ultra');
    const free = await s.newKey('free');
    const priceOf = (body: any) =>
      body.events[0].markets.find((m: any) => m.market_id === 1).participants.find((p: any) => p.id === 2002).lines[0]
        .prices['19'].price;
    const u = await get(`/api/v2/events/${E}`, ultra);
    assert.equal(priceOf(u.body), 300);
    assert.equal(u.headers.get('x-data-delay-seconds'), '0');
    const f = await get(`/api/v2/events/${E}`, free);
    assert.notEqual(priceOf(f.body), 300);
    assert.equal(f.headers.get('x-data-delay-seconds'), '300');
    assert.ok(Number(f.body.meta.delta_last_id) < Number(u.body.meta.delta_last_id));
    // Rows newer than the delay are not in the Free key's delta either.
    clock += 1000;
    const d = await get(`/api/v2/markets/delta?last_id=${f.body.meta.delta_last_id}`, free);
    assert.ok(d.body.deltas.every((row: any) => row.price !== '300'));
    clock += 300_000;
    await sleep(300);
    const later = await get(`/api/v2/events/${E}`, free);
    assert.equal(priceOf(later.body), 300, 'five minutes on, the change is visible');
  });
});

describe('subscriptions and security', () => {
  test('a V1-only plan may use the two delta feeds and nothing else of V2', async () => {
    const k = await s.newKey('ultra', { v1: true, v2: false });
    clock += 1000;
    const snap = await get(`/api/v2/events/${E}`, k);
    assert.equal(snap.status, 403);
    assert.match(snap.body.error, /V2 subscription/);
    assert.equal(snap.headers.get('x-tier'), 'Ultra');
    clock += 1000;
    assert.equal((await get('/api/v2/markets/delta?last_id=0&limit=1', k)).status, 200);
    clock += 1000;
    assert.equal((await get('/api/v2/delta', k)).status, 200);
  });

  test('repeated invalid keys from one address are slowed down', async () => {
    const started: number[] = [];
    for (let i = 0; i < 10; i++) {
      const t = performance.now();
      assert.equal((await get('/api/v2/markets', `ob_wrong${i}`)).status, 401);
      started.push(performance.now() - t);
    }
    // Five free failures, then 100 ms more each: the tenth waits about half a second.
    assert.ok(started[9]! >= 400, `tenth failure answered after ${started[9]} ms`);
    assert.ok(started[0]! < 400);
  });

  test('past 30 failed key checks an address gets 429 for new keys; keys in use go on at full speed', async () => {
    // Loopback answers on all of 127/8: these addresses are apart from the rest of the file's.
    const from = (address: string, key: string) => getFrom(address, '/api/v2/markets', key);
    const inUse = await s.newKey('ultra');
    const unused = await s.newKey('ultra');
    assert.equal((await from('127.0.0.2', inUse)).status, 200);
    const failures = await Promise.all(Array.from({ length: 30 }, (_, i) => from('127.0.0.2', `ob_guess${i}`)));
    assert.ok(failures.every((r) => r.status === 401));
    // A held answer is counted as such when the hold begins, so the counts tell whether any answer
    // below was held, however slow the machine.
    const held = await refusals('failed_key_throttle');
    const ceiling = await refusals('failed_key_ceiling');
    const guesses = await Promise.all(Array.from({ length: 50 }, (_, i) => from('127.0.0.2', `ob_more${i}`)));
    assert.equal(await refusals('failed_key_throttle'), held, 'refused at once, not held');
    assert.equal(await refusals('failed_key_ceiling'), ceiling + 50);
    for (const r of guesses) {
      assert.equal(r.status, 429);
      assert.equal(r.body.error, 'Too many failed key checks');
      assert.ok(Number(r.headers['retry-after']) > 0 && Number(r.headers['retry-after']) <= 60);
    }
    clock += 1000;
    assert.equal((await from('127.0.0.2', inUse)).status, 200, 'a key in use still works');
    assert.equal(await refusals('failed_key_throttle'), held, 'and is not slowed');
    assert.equal((await from('127.0.0.2', unused)).status, 429, 'a key never used waits for the window');
    assert.equal((await from('127.0.0.3', unused)).status, 200, 'from another address it works');
  });
});

describe('history access', () => {
  test('history rows cost one point each and stop at the plan window; dated openers are gated', async () => {
    const ultra = await s.newKey('ultra');
    const r = await get(`/api/v2/events/${E}/markets/history?limit=5`, ultra);
    assert.equal(r.status, 200);
    assert.equal(r.body.meta.count, 5);
    assert.equal(r.headers.get('x-datapoints'), '5');
    const chart = await get(`/api/v2/events/${E}/markets/1/history?limit=3`, ultra);
    assert.equal(chart.headers.get('x-datapoints'), '3');

    // Eight days on, everything recorded above lies outside a Free key's seven-day window.
    clock += 8 * 86_400_000;
    const free = await s.newKey('free');
    const old = await get(`/api/v2/events/${E}/markets/history`, free);
    assert.equal(old.status, 200);
    assert.equal(old.body.meta.count, 0);
    clock += 1000;
    assert.ok((await get(`/api/v2/events/${E}/markets/history`, await s.newKey('ultra'))).body.meta.count > 0);
    clock += 1000;
    const dated = await get(`/api/v2/sports/4/openers/${D}`, free);
    assert.equal(dated.status, 403);
    assert.equal(dated.body.history_days_limit, 7);
    clock += 1000;
    assert.equal((await get(`/api/v2/events/${E}/openers`, free)).status, 200, 'event openers are not gated');
  });
});
