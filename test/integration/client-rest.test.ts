import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { hashKey } from '../../src/access/keys.ts';
import {
  BadRequestError,
  BootstrapError,
  EventDeltaConsumer,
  ForbiddenError,
  MarketsDeltaConsumer,
  NotFoundError,
  OddsbaseClient,
  RateLimitError,
  type RetryEvent,
  ServerError,
  StatsUnavailableError,
  UnauthorizedError,
} from '../../packages/client/src/index.ts';
import { newKeyRecord, generateKey } from '../../src/access/keys.ts';
import { batch, nbaEvent, nbaPrices, price } from '../helpers/fixtures.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

/** The server's clock: tests move it instead of waiting. */
let clock = Date.parse('2026-11-23T12:00:00.200Z');
const now = () => clock;
const iso = () => new Date(clock).toISOString();
const DAY = '2026-11-23';
const E = 'c1'.repeat(16);
const F = 'c2'.repeat(16);

let s: TestServer;
/** Every URL the clients asked, to show that no key ever rides in one. */
const urls: string[] = [];
const recordingFetch: typeof fetch = (input, init) => {
  urls.push(String(input));
  return fetch(input, init);
};

/** A client whose waits move the server's clock and are recorded, so a retry costs no real time. */
function clientFor(key: string | undefined, opts: { retries?: RetryEvent[]; fetch?: typeof fetch } = {}) {
  return new OddsbaseClient({
    baseUrl: s.url,
    key,
    fetch: opts.fetch ?? recordingFetch,
    random: () => 0.5,
    now,
    sleep: async (ms) => {
      clock += ms;
    },
    onRetry: (e) => opts.retries?.push(e),
  });
}

const ML = (e: string, p: number, aff = 19, market = 1) =>
  price(e, { market_id: market, participant_id: 2002, participant_name: 'Boston', affiliate_id: aff, price: p });

before(async () => {
  s = await startTestServer({ now, limits: { retentionDays: 0 } });
  await s.server.ledger.apply(
    batch(iso(), [
      { kind: 'event', event: nbaEvent(E, DAY, 23) },
      { kind: 'event', event: nbaEvent(F, DAY, 22) },
      ...nbaPrices(E),
      ...nbaPrices(F),
    ]),
  );
});

after(() => s.close());

describe('REST methods', () => {
  test('every method answers its route’s shape, with usage and plan headers parsed', async () => {
    const c = clientFor(s.key);
    const sports = await c.sports();
    assert.ok(sports.data.sports.some((x) => x.sport_id === 4 && typeof x.sport_name === 'string'));
    assert.ok((await c.affiliates()).data.affiliates.every((a) => typeof a.affiliate_id === 'number'));
    assert.ok((await c.sportsbooks()).data.affiliates.some((a) => a.affiliate_id === 19));
    assert.ok((await c.markets()).data.some((m) => m.id === 1 && m.live_variant_id === 41));

    const events = await c.events(4, DAY);
    assert.match(events.data.meta.delta_last_id, /^[1-9]\d*$/);
    assert.deepEqual(events.data.events.map((e) => e.event_id).sort(), [E, F]);
    const ev = events.data.events.find((e) => e.event_id === E)!;
    assert.equal(ev.teams[0]!.is_away, true);
    assert.deepEqual(ev.markets.map((m) => m.market_id).sort(), [1, 2, 3]);
    assert.equal(typeof ev.markets[0]!.participants[0]!.lines[0]!.prices['19']!.price, 'number');
    assert.equal(events.usage.datapoints, 2 * (2 + 14), 'two events of 14 prices each: 2 + 14 points apiece');
    assert.equal(typeof events.usage.used, 'number');
    assert.equal(events.plan.tier, 'Enterprise');
    assert.equal(events.plan.dataDelaySeconds, 0);
    assert.equal(events.plan.bookmakers, 'all');
    assert.equal(events.plan.websocketAccess, true);

    const spread = (await c.event(E, { market_ids: [2], main_line: true })).data.events[0]!.markets;
    assert.deepEqual(
      spread.map((m) => [m.market_id, m.participants.map((p) => p.lines.length)]),
      [[2, [1, 1]]],
      'list and boolean parameters reach the server',
    );
    assert.equal((await c.openers(E)).data.events[0]!.event_id, E);
    assert.equal((await c.closing(E)).data.events[0]!.event_id, E);
    assert.deepEqual((await c.sportOpeners(4, DAY)).data.events.map((e) => e.event_id).sort(), [E, F]);
    assert.deepEqual((await c.sportClosing(4, DAY)).data.events.map((e) => e.event_id).sort(), [E, F]);
    const opening = await c.openingMarkets(E);
    assert.equal(opening.data.meta.event_id, E);
    assert.equal(opening.data.meta.count, Object.keys(opening.data.markets).length);
    const moneyline = Object.values(opening.data.markets['1']!.lines);
    assert.ok(moneyline.some((l) => l.participant_id === 2002 && typeof l.prices['19']!.price === 'number'));
    assert.match(moneyline[0]!.prices['19']!.timestamp, /^\d{4}-\d\d-\d\dT/);
    assert.ok((await c.eventMarkets(E)).data.some((m) => m.id === 2));
    const history = await c.eventHistory(E, { limit: 5 });
    assert.equal(history.data.meta.count, 5);
    assert.equal(typeof history.data.history[0]!.market_line_price_id, 'number');
    const chart = await c.chart(E, 1);
    assert.equal(chart.data.market_id, 1);
    assert.equal(typeof chart.data.series['19']![0]!.p, 'number');
    const mlp = history.data.history[0]!.market_line_price_id;
    assert.equal((await c.marketsHistory({ market_line_price_ids: [mlp] })).data.history[0]!.market_line_price_id, mlp);
    const best = await c.bestLine(E);
    assert.equal(best.data.event_id, E);
    assert.equal(typeof best.data.moneyline.moneyline_away, 'number');
    const delta = await c.marketsDelta({ last_id: '0', limit: 3 });
    assert.equal(delta.data.meta.count, 3);
    assert.equal(delta.data.meta.has_more, true);
    assert.equal(typeof delta.data.deltas[0]!.is_main_line, 'boolean');
    const head = await c.eventDelta();
    assert.match(head.data.meta.delta_last_id, /^[0-9a-f-]{36}$/);
    assert.ok((await c.stats({ sport_id: 4 })).data.every((d) => d.sport_id === 4));
    assert.deepEqual(await c.teamGameStats(E).then((r) => r.data), [], 'a game not started has no box');
    assert.equal((await c.team(2002)).data.team_id, 2002);
    assert.ok((await c.roster(2002)).data.players.length > 0);
    assert.ok((await c.teams(4)).data.teams.some((t) => t.team_id === 2002 && typeof t.conference.name === 'string'));
    assert.ok((await c.seasonTypes()).data.season_types.some((t) => t.sport_id === 4 && t.season_type_id === 2));
    assert.ok((await c.sportDates({ sport_ids: [4] })).data['4']!.dates.includes(DAY));
    assert.ok((await c.datesOf(4)).data.dates.includes(DAY));
    assert.deepEqual((await c.eventIdsOn(DAY, { sport_ids: [4] })).data['4']!.sort(), [E, F]);
    const sides = await c.participants({ event_id: E, market_ids: [3], participant_type: 'TYPE_RESULT' });
    assert.deepEqual(sides.data.participants.map((p) => p.participant_id).sort(), [0, 1]);
    assert.ok((await c.conferences(4)).data.conferences.every((x) => x.sport_id === 4));
    assert.ok((await c.divisions(4)).data.divisions.length > 0);
    assert.ok((await c.marketsOn(DAY, { sport_ids: [4] })).data['4']!.some((m) => m.id === 1));
    assert.ok((await c.sportMarketsOn(4, DAY)).data['4']!.some((m) => m.id === 2));
    const plays = await c.plays(E);
    assert.deepEqual(plays.data.plays, []);
    assert.equal(plays.data.meta.event_id, E);
    assert.deepEqual((await c.playerGameStats(E)).data, []);
    const season = await c.teamSeasonStats(2002);
    assert.equal(season.data[0]!.team.team_id, 2002);
    assert.ok(Array.isArray((await c.playerSeasonStats(2002)).data));
    const rosterPlayer = (await c.roster(2002)).data.players[0]!;
    assert.equal((await c.player(rosterPlayer.player_id)).data.player_id, rosterPlayer.player_id);
    const futures = await c.futures(4);
    assert.equal(futures.data.meta.sport_id, 4);
    assert.ok(Array.isArray(futures.data.events));
    const sample = await c.statsSample();
    assert.ok(sample.data.team_stats.length > 0 && sample.data.player_stats.length > 0);

    const both = clientFor(
      await s.newKey('enterprise', { v1: true, custom: JSON.stringify({ burstPerSecond: 1_000_000 }) }),
    );
    const v1 = await both.v1.events(4, DAY);
    assert.equal(v1.data.events.length, 2);
    assert.equal(typeof v1.data.events[0]!.teams_normalized[0]!.team_id, 'number');
    assert.equal((await both.v1.event(E)).data.event_id, E);
    assert.ok((await both.v1.sports()).data.sports.some((x) => x.sport_id === 4));
    assert.ok((await both.v1.affiliates()).data.affiliates.some((a) => a.affiliate_id === 19));
    assert.ok((await both.v1.seasonTypes()).data.season_types.length > 0);
    assert.ok((await both.v1.dates(4)).data.dates.includes(DAY));
    assert.ok((await both.v1.teams(4)).data.teams.some((t) => t.team_id === 2002));
    assert.ok((await both.v1.conferences(4)).data.conferences.length > 0);
    assert.ok((await both.v1.divisions()).data.divisions.length > 0);
    assert.equal((await both.v1.openers(4, DAY)).data.events.length, 2);
    assert.equal((await both.v1.closing(4, DAY)).data.events.length, 2);
    assert.ok((await both.v1.sportsbooks()).data.affiliates.some((a) => a.affiliate_id === 19));
    const widget = await both.v1.widgetEvents(4, { date: DAY });
    assert.deepEqual(widget.data.events.map((e) => e.event_id).sort(), [E, F]);
    assert.equal(typeof widget.data.events[0]!.lines['19']!.moneyline.moneyline_away, 'number');
    assert.equal((await both.v1.widgetOpening(4, { date: DAY })).data.events.length, 2);
    assert.equal((await both.v1.widgetClosing(4, { date: DAY })).data.events.length, 2);
    const schedule = await both.v1.schedule(4, { from: DAY, limit: 1 });
    assert.equal(schedule.data.schedules.length, 1);
    const first = schedule.data.schedules[0]!;
    assert.ok([E, F].includes(first.event_id));
    assert.equal(typeof first.teams_normalized[0]!.team_id, 'number');
    const rest = await both.v1.schedule(4, { from: DAY, last_event_uuid: first.event_uuid });
    assert.deepEqual(
      [first, ...rest.data.schedules].map((r) => r.event_id).sort(),
      [E, F],
      'the second page continues after the first row',
    );
    const bests = await both.v1.bestLines({ event_ids: [E, F] });
    assert.deepEqual(Object.keys(bests.data), [E, F]);
    assert.equal(bests.data[E]!.event_id, E);
    const v1Delta = await both.v1.eventsDelta(4, { last_id: '0' });
    assert.deepEqual(v1Delta.data.events.map((e) => e.event_id).sort(), [E, F]);
    const lines = await both.v1.lines(E);
    assert.ok(lines.data.lines.some((l) => l.affiliate_id === 19 && typeof l.moneyline.moneyline_away === 'number'));
    const set = lines.data.lines.find((l) => l.line_id !== 0)!;
    assert.equal((await both.v1.lineSet(E, set.line_id)).data.line_id, set.line_id);
    const moneylines = (await both.v1.lineFamily(set.line_id, 'moneyline')).data.moneylines!;
    assert.ok(moneylines.length > 0);
    assert.equal(moneylines[0]!.period_id, set.period_id);
    assert.equal(moneylines[0]!.moneyline_away, set.moneyline.moneyline_away, 'newest first: the current price');
    const spreads = await both.v1.lineFamily(E, 'spread', { include: ['all_periods'] });
    assert.equal(typeof spreads.data.spread_periods!['period_full_game']![0]!.point_spread_away, 'number');
    const totals = await both.v1.lineFamily(set.line_id, 'total');
    assert.equal(totals.data.totals![0]!.line_id, set.line_id);
    assert.ok(Array.isArray((await both.v1.lineFamily(E, 'team_total')).data.team_totals));
    const v1Changed = await both.v1.delta({ last_id: '00000000-0000-0000-0000-000000000000' });
    assert.ok(v1Changed.data.events.some((e) => e.event_id === E));
    const viaV1 = await both.v1.deltaV2({ last_id: '00000000-0000-0000-0000-000000000000' });
    assert.ok(viaV1.data.deltas.some((d) => d.event_id === E && JSON.parse(d.json).event_id === E));
  });

  test('the key travels in the header, never in a URL', async () => {
    assert.ok(urls.length > 10);
    assert.ok(urls.every((u) => !u.includes(s.key) && !/[?&]key=/.test(u)));
    const c = clientFor(s.key);
    await assert.rejects(c.events(4, DAY, { key: 'x' } as never), /header/);
  });
});

describe('errors and retries', () => {
  test('400, 401, 403 and 404 are typed, carry the body’s message or error, and are never retried', async () => {
    const retries: RetryEvent[] = [];
    const c = clientFor(s.key, { retries });
    const bad = await c.events(4, '2026-13-45').catch((e: unknown) => e);
    assert.ok(bad instanceof BadRequestError);
    assert.equal(bad.status, 400);
    assert.match(bad.message, /date/);
    const unknown = await c.event('f'.repeat(32)).catch((e: unknown) => e);
    assert.ok(unknown instanceof NotFoundError);
    assert.match(unknown.message, /not found/);
    const unauthorized = await clientFor('ob_' + '0'.repeat(40), { retries })
      .events(4, DAY)
      .catch((e: unknown) => e);
    assert.ok(unauthorized instanceof UnauthorizedError);
    assert.equal(unauthorized.message, 'unauthorized');
    const free = await s.newKey('free');
    const denied = await clientFor(free, { retries })
      .plays(E)
      .catch((e: unknown) => e);
    assert.ok(denied instanceof ForbiddenError);
    assert.equal(denied.feature, 'plays', 'the message comes from `error` when there is no `message`');
    assert.match(denied.message, /Ultra/);
    assert.equal(denied.plan.tier, 'Free');
    assert.deepEqual(retries, []);
  });

  test('a burst 429 is retried after its Retry-After', async () => {
    const k = await s.newKey('enterprise', { custom: JSON.stringify({ burstPerSecond: 1 }) });
    const retries: RetryEvent[] = [];
    const c = clientFor(k, { retries });
    clock = Math.floor(clock / 1000) * 1000 + 200;
    await c.event(E);
    const second = await c.event(E);
    assert.equal(second.data.events[0]!.event_id, E);
    assert.equal(retries.length, 1);
    assert.ok(retries[0]!.error instanceof RateLimitError);
    assert.equal((retries[0]!.error as RateLimitError).kind, 'burst');
    assert.equal(retries[0]!.delayMs, 1000, 'Retry-After: 1, waited out as sent');
  });

  test('a cap-based 429 is never retried: it is thrown with its kind and reset time', async () => {
    const k = await s.newKey('free');
    await s.server.counters.set(`use:${hashKey(k)}:${DAY}`, 20_000, clock + 86_400_000);
    const retries: RetryEvent[] = [];
    const err = await clientFor(k, { retries })
      .event(E)
      .catch((e: unknown) => e);
    assert.ok(err instanceof RateLimitError);
    assert.equal(err.kind, 'daily_cap');
    assert.equal(err.isCap, true);
    assert.equal(err.message, 'Daily data point limit reached');
    assert.ok(err.retryAfterMs! > 0);
    assert.deepEqual(retries, []);
  });

  test('503 stats_policy_unsupported is retried with bounded backoff, then thrown as such', async () => {
    const k = generateKey();
    await s.server.keys.insert({ ...newKeyRecord(k, 'pro'), created_at: '' });
    const retries: RetryEvent[] = [];
    const err = await clientFor(k, { retries })
      .teamSeasonStats(2002)
      .catch((e: unknown) => e);
    assert.ok(err instanceof StatsUnavailableError);
    assert.equal(err.code, 'stats_policy_unsupported');
    // random() = 0.5: three quarters of each doubling step, the step capped at 30 s.
    assert.deepEqual(
      retries.map((r) => r.delayMs),
      [750, 1500, 3000, 6000, 12000],
    );
  });

  test('other 503s are retried three times with backoff and jitter', async () => {
    const k = generateKey();
    await s.server.keys.insert({ ...newKeyRecord(k, 'pro', { billing: 'weekly' }), created_at: '' });
    const retries: RetryEvent[] = [];
    const err = await clientFor(k, { retries })
      .event(E)
      .catch((e: unknown) => e);
    assert.ok(err instanceof ServerError && !(err instanceof StatsUnavailableError));
    assert.equal(err.status, 503);
    assert.deepEqual(
      retries.map((r) => r.delayMs),
      [375, 750, 1500],
    );
  });

  test('a request whose connection fails is retried and then answered', async () => {
    let calls = 0;
    const flaky: typeof fetch = (input, init) => {
      calls++;
      if (calls === 1) return Promise.reject(new TypeError('fetch failed'));
      return fetch(input, init);
    };
    const retries: RetryEvent[] = [];
    const r = await clientFor(s.key, { retries, fetch: flaky }).event(E);
    assert.equal(r.data.events[0]!.event_id, E);
    assert.equal(retries.length, 1);
  });
});

describe('markets delta consumer', () => {
  test('bootstraps from the snapshot cursor, pages while has_more, and keeps each response’s cursor', async () => {
    const c = clientFor(s.key);
    const consumer = new MarketsDeltaConsumer(c, { scope: { sportId: 4, date: DAY }, limit: 2 });
    await consumer.bootstrap();
    const snap = await c.events(4, DAY);
    assert.equal(consumer.cursor, snap.data.meta.delta_last_id);
    assert.equal(consumer.price(E, 1, 2002, 19)!.price, 130);
    clock += 1000;
    await s.server.ledger.apply(
      batch(iso(), [ML(E, 140), ML(E, 145, 23), ML(F, 150), ML(F, 155, 23), ML(E, 160, 19, 2)]),
    );
    const r = await consumer.poll();
    assert.equal(r.resynced, false);
    assert.equal(r.rows.length, 5, 'three pages of two rows at most');
    assert.equal(consumer.price(E, 1, 2002, 19)!.price, 140);
    assert.equal(consumer.price(F, 1, 2002, 23)!.price, 155);
    assert.equal(r.cursor, String(r.rows.at(-1)!.id));
    assert.equal(consumer.cursor, r.cursor);
    assert.deepEqual((await consumer.poll()).rows, [], 'nothing new');
  });

  test('a live row replaces its prematch twin: one logical market', async () => {
    const c = clientFor(s.key);
    const consumer = new MarketsDeltaConsumer(c, { scope: { eventIds: [E] }, marketIds: [1] });
    await consumer.bootstrap();
    clock += 1000;
    await s.server.ledger.apply(batch(iso(), [ML(E, 210, 19, 41)]));
    await consumer.poll();
    const p = consumer.price(E, 1, 2002, 19)!;
    assert.equal(p.market_id, 41);
    assert.equal(p.logical_market_id, 1);
    assert.equal(p.price, 210);
    assert.equal(consumer.price(E, 41, 2002, 19), p, 'found under either id');
  });

  test('a delayed snapshot is refused as a bootstrap unless accepted', async () => {
    const free = await s.newKey('free');
    const c = clientFor(free);
    // Past the plan's five minutes, so that the event is on its delayed board.
    clock += 6 * 60_000;
    const refused = new MarketsDeltaConsumer(c, { scope: { eventIds: [E] } });
    await assert.rejects(refused.bootstrap(), BootstrapError);
    assert.equal(refused.cursor, undefined, 'never a substituted 0');
  });

  test('a cursor too far behind is recovered with a fresh snapshot', async () => {
    const c = clientFor(s.key);
    const consumer = new MarketsDeltaConsumer(c, { scope: { eventIds: [E] } });
    await consumer.bootstrap();
    const old = consumer.cursor!;
    // A change the consumer never polled, then a day and more: the feed no longer serves it.
    clock += 1000;
    await s.server.ledger.apply(batch(iso(), [ML(E, 300)]));
    clock += 25 * 3_600_000;
    await s.server.ledger.apply(batch(iso(), [ML(E, 333)]));
    clock += 1000;
    const r = await consumer.poll();
    assert.equal(r.resynced, true);
    assert.ok(BigInt(consumer.cursor!) > BigInt(old));
    assert.equal(consumer.price(E, 1, 2002, 19)!.price, 333);
  });
});

describe('event delta consumer', () => {
  test('takes the newest UUID cursor, seeds, and replaces each changed event whole', async () => {
    const c = clientFor(s.key);
    const consumer = new EventDeltaConsumer(c, {
      sportId: 4,
      seed: async () => (await c.events(4, DAY)).data.events,
    });
    await consumer.bootstrap();
    assert.match(consumer.cursor!, /^[0-9a-f-]{36}$/);
    assert.equal(consumer.event(F)!.event_id, F);
    clock += 1000;
    await s.server.ledger.apply(batch(iso(), [ML(F, 444)]));
    const r = await consumer.poll();
    assert.deepEqual(
      r.events.map((e) => e.event_id),
      [F],
    );
    const ml = consumer.event(F)!.markets.find((m) => m.market_id === 1)!;
    const boston = ml.participants.find((p) => p.id === 2002)!;
    assert.equal(boston.lines[0]!.prices['19']!.price, 444);
  });
});
