import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { batch, nbaEvent, nbaPrices, price, score, today } from '../helpers/fixtures.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

/** The line-based interface over fixtures: every route's shape, errors, entitlements and paging. */

const E1 = '1'.repeat(32);
const E2 = '2'.repeat(32);
const E3 = '3'.repeat(32);
const SOCCER = '4'.repeat(32);
const D = today();
const NIL = '00000000-0000-0000-0000-000000000000';
// Rows describe times ten minutes back, so delayed plans (Free: five minutes) see them at once.
const at = (minute: number) => new Date(Date.now() - (10 - minute) * 60_000).toISOString();

let s: TestServer;
/** Enterprise keys without a burst ceiling worth the name: V1 and V2, and V1 only. */
let both: string;
let v1Only: string;
const get = (path: string, key = both) => s.get(path, { 'X-Service-Key': key });
const ok = async (path: string, key = both) => {
  const r = await get(path, key);
  assert.equal(r.status, 200, `${path}: ${JSON.stringify(r.body)}`);
  return r;
};

before(async () => {
  s = await startTestServer();
  const custom = JSON.stringify({ burstPerSecond: 1_000_000 });
  both = await s.newKey('enterprise', { v1: true, custom });
  v1Only = await s.newKey('enterprise', { v1: true, v2: false, custom });
  const soccer = { ...nbaEvent(SOCCER, D, 15), sport_id: 11 };
  delete soccer.rotation_number_away;
  delete soccer.rotation_number_home;
  const team = (market_id: number, participant_id: number, affiliate_id: number, p: number, extra = {}) =>
    price(E1, { market_id, participant_id, participant_name: 'Team', affiliate_id, price: p, ...extra });
  await s.server.ledger.apply(
    batch(at(0), [
      // E1 starts at the day's last second: "later today" holds whenever the test runs (at 23:00
      // it had begun, and its closing lines were no longer the current ones).
      { kind: 'event', event: { ...nbaEvent(E1, D, 23), event_date: `${D}T23:59:59Z` } },
      { kind: 'event', event: nbaEvent(E2, D, 20) },
      { kind: 'event', event: nbaEvent(E3, D, 21) },
      { kind: 'event', event: soccer },
      ...nbaPrices(E1),
      ...nbaPrices(E2),
      // First-half moneyline at book 23, team totals at book 19.
      price(E1, { market_id: 4, period_id: 1, participant_id: 2002, affiliate_id: 23, price: 135 }),
      price(E1, { market_id: 4, period_id: 1, participant_id: 2014, affiliate_id: 23, price: -155 }),
      team(94, 2002, 19, -115, { line: 'Over 108.5', is_main_line: true }),
      team(94, 2002, 19, -105, { line: 'Under 108.5' }),
      team(94, 2014, 19, -110, { line: 'Over 112.5', is_main_line: true }),
      team(94, 2014, 19, -110, { line: 'Under 112.5' }),
      ...[
        [2002, 260],
        [2, 240],
        [2014, -105],
      ].map(([id, p]) =>
        price(SOCCER, {
          market_id: 1,
          participant_id: id!,
          participant_type: id === 2 ? 'TYPE_RESULT' : 'TYPE_TEAM',
          participant_name: id === 2 ? 'Draw' : 'Team',
          affiliate_id: 19,
          price: p!,
        }),
      ),
    ]),
  );
  // E2 goes live: prematch closed, the in-play moneyline at book 19.
  await s.server.ledger.apply(
    batch(at(1), [
      { kind: 'score', event_id: E2, score: score(E2, 'STATUS_IN_PROGRESS', 10, 12) },
      ...nbaPrices(E2).map((p) => ({ ...p, closed: true })),
      price(E2, { market_id: 41, participant_id: 2002, affiliate_id: 19, price: 160 }),
      price(E2, { market_id: 41, participant_id: 2014, affiliate_id: 19, price: -190 }),
    ]),
  );
  // E1 moves: the away moneyline at 19, then the home spread's main line at 19 from -3.5 to -4.5.
  await s.server.ledger.apply(
    batch(at(2), [price(E1, { market_id: 1, participant_id: 2002, affiliate_id: 19, price: 125 })]),
  );
  await s.server.ledger.apply(
    batch(at(3), [
      price(E1, {
        market_id: 2,
        participant_id: 2014,
        affiliate_id: 19,
        line: '-4.5',
        price: -108,
        is_main_line: true,
      }),
      price(E1, { market_id: 2, participant_id: 2002, affiliate_id: 19, line: '4.5', price: -112, is_main_line: true }),
    ]),
  );
});

after(() => s.close());

const events = async (query = '') => (await ok(`/api/v1/sports/4/events/${D}${query}`)).body;
const lineOf = async (eventId: string, book: string) => (await ok(`/api/v1/events/${eventId}`)).body.lines[book];

describe('reference and listings', () => {
  test('sports, affiliates, sportsbooks and season types are the V2 lists, with a key', async () => {
    for (const [v1, v2] of [
      ['/api/v1/sports', '/api/v2/sports'],
      ['/api/v1/affiliates', '/api/v2/affiliates'],
      ['/api/v1/sportsbooks?include=regions', '/api/v2/affiliates?include=regions'],
      ['/api/v1/season_types', '/api/v2/season_types'],
    ]) {
      assert.deepEqual((await ok(v1!)).body, (await ok(v2!)).body, v1);
      const anonymous = await s.get(v1!, {});
      assert.equal(anonymous.status, 401);
      assert.deepEqual(anonymous.body, { error: 'unauthorized', message: 'unauthorized' });
    }
    assert.equal((await get('/api/v1/affiliates?include=everything')).status, 400);
  });

  test('dates, teams, conferences and divisions', async () => {
    assert.deepEqual((await ok('/api/v1/sports/4/dates')).body, { dates: [D] });
    assert.deepEqual((await ok('/api/v1/sports/4/dates?format=epoch')).body, { dates: [Date.parse(D) / 1000] });
    assert.deepEqual((await ok('/api/v1/sports/4/teams')).body, (await ok('/api/v2/sports/4/teams')).body);
    const conferences = await ok('/api/v1/conferences?sport_id=4');
    assert.deepEqual(conferences.body, (await ok('/api/v2/sports/4/conferences')).body);
    assert.deepEqual((await ok('/api/v1/divisions?sport_id=4')).body, (await ok('/api/v2/sports/4/divisions')).body);
    // The published OpenAPI's per-sport paths answer the same lists.
    assert.deepEqual((await ok('/api/v1/sports/4/conferences')).body, conferences.body);
    assert.deepEqual((await ok('/api/v1/sports/4/divisions')).body, (await ok('/api/v2/sports/4/divisions')).body);
    assert.equal((await get('/api/v1/sports/99/divisions')).status, 404);
    const all = (await ok('/api/v1/conferences')).body.conferences;
    assert.ok(all.length > conferences.body.conferences.length);
    assert.ok(all.some((c: any) => c.sport_id === 11));
    assert.ok((await ok('/api/v1/divisions')).body.divisions.length >= 6);
  });

  test('listing errors carry error', async () => {
    for (const [path, status] of [
      ['/api/v1/sports/abc/dates', 400],
      ['/api/v1/sports/99/teams', 404],
      ['/api/v1/conferences?sport_id=x', 400],
      ['/api/v1/divisions?sport_id=99', 404],
      ['/api/v1/sports/4/dates?format=unix', 400],
    ] as const) {
      const r = await get(path);
      assert.equal(r.status, status, path);
      assert.equal(typeof r.body.error, 'string', path);
    }
  });
});

describe('events', () => {
  test('the snapshot: envelope, header, teams, schedule and full-game line sets', async () => {
    const body = await events();
    assert.equal(body.meta.delta_last_id, String(s.server.ledger.headId));
    assert.deepEqual(
      body.events.map((e: any) => e.event_id),
      [E2, E3, E1],
      'by start',
    );
    const e1 = body.events[2];
    assert.deepEqual(Object.keys(e1).sort(), [
      'event_date',
      'event_id',
      'event_uuid',
      'lines',
      'rotation_number_away',
      'rotation_number_home',
      'schedule',
      'sport_id',
      'teams',
      'teams_normalized',
    ]);
    assert.deepEqual(e1.teams[0], {
      team_id: 2002,
      team_normalized_id: 2002,
      name: 'Boston',
      is_away: true,
      is_home: false,
    });
    assert.deepEqual(e1.teams_normalized[1], {
      team_id: 2014,
      name: 'Los Angeles',
      mascot: 'Lakers',
      abbreviation: 'LAL',
      ranking: 0,
      record: '9-6',
      is_away: false,
      is_home: true,
    });
    assert.deepEqual(e1.schedule, {
      season_type: 'Regular Season',
      season_year: 2026,
      event_name: 'Boston at Los Angeles',
      attendance: 0,
    });
    assert.deepEqual(Object.keys(e1.lines), ['19', '23']);
    const l19 = e1.lines['19'];
    assert.equal(l19.moneyline.moneyline_away, 125);
    assert.equal(l19.moneyline.moneyline_away_delta, -5);
    assert.deepEqual(
      [l19.spread.point_spread_away, l19.spread.point_spread_home, l19.spread.point_spread_home_delta],
      [4.5, -4.5, -1],
    );
    assert.ok(Number.isInteger(l19.line_id));
    // Every object names its line, and spread and total (and their alternates) their event and book.
    assert.equal(l19.affiliate_id, 19);
    for (const o of [l19.moneyline, l19.spread, l19.total]) assert.equal(o.line_id, l19.line_id);
    for (const o of [l19.spread, l19.total, ...l19.spread.extended_spreads, ...l19.total.extended_totals]) {
      assert.deepEqual([o.event_id, o.affiliate_id], [E1, 19]);
    }
    assert.ok(l19.spread.extended_spreads.length > 0);
    assert.deepEqual(body.events[1].lines, {}, 'no odds yet');
  });

  test('metering: 1 events + 1 scores point per event and 1 point per price shown', async () => {
    const r = await ok(`/api/v1/sports/4/events/${D}`);
    // E1: 8 at 19 (the old main lines pair as an alternate), 7 at 23; E2: 7 closed at each book; E3: none.
    const count = (set: any) =>
      [set.moneyline.moneyline_away, set.moneyline.moneyline_home, set.moneyline.moneyline_draw].filter(
        (x: number) => x !== 0.0001,
      ).length +
      [
        set.spread.point_spread_away_money,
        set.spread.point_spread_home_money,
        set.total.total_over_money,
        set.total.total_under_money,
      ].filter((x: number) => x !== 0.0001).length +
      set.spread.extended_spreads
        .flatMap((x: any) => [x.point_spread_away_money, x.point_spread_home_money])
        .filter((x: number) => x !== 0.0001).length +
      set.total.extended_totals
        .flatMap((x: any) => [x.total_over_money, x.total_under_money])
        .filter((x: number) => x !== 0.0001).length;
    const prices = r.body.events.reduce(
      (n: number, e: any) => n + Object.values(e.lines).reduce((m: number, set: any) => m + count(set), 0),
      0,
    );
    assert.equal(prices, 8 + 7 + 14);
    assert.equal(r.headers.get('x-datapoints'), String(3 * 2 + prices));
  });

  test('include=scores, include=all_periods, affiliate_ids; the soccer draw', async () => {
    const body = await events('?include=scores,all_periods&affiliate_ids=19');
    const e2 = body.events[0];
    assert.equal(e2.score.event_status, 'STATUS_IN_PROGRESS');
    assert.equal(e2.score.score_home, 12);
    // The spec's Score: event_id and updated_at included.
    assert.equal(e2.score.event_id, E2);
    assert.equal(typeof e2.score.updated_at, 'string');
    assert.ok(Number.isFinite(Date.parse(e2.score.updated_at)));
    assert.deepEqual(Object.keys(e2.lines), ['19']);
    const live = e2.line_periods['19'].period_live_full_game;
    assert.deepEqual(
      [live.period_id, live.period_description, live.moneyline.moneyline_away, live.moneyline.moneyline_home],
      [7, 'Live Full Game', 160, -190],
    );
    assert.equal(Object.keys(e2.line_periods['19']).length, 8);
    const unpriced = body.events[2].line_periods['19'].period_first_half;
    assert.deepEqual(unpriced.line_id, 0);
    // A set the book does not price still carries a date (clients parse it), and its place.
    for (const o of [unpriced.moneyline, unpriced.spread, unpriced.total]) {
      assert.ok(Number.isFinite(Date.parse(o.date_updated)), JSON.stringify(o));
      assert.equal(o.line_id, 0);
    }
    assert.deepEqual([unpriced.affiliate_id, unpriced.spread.event_id, unpriced.total.affiliate_id], [19, E1, 19]);
    const withBook23 = await events('?include=all_periods');
    assert.equal(withBook23.events[2].line_periods['23'].period_first_half.moneyline.moneyline_home, -155);
    const soccer = (await ok(`/api/v1/sports/11/events/${D}`)).body.events[0];
    assert.deepEqual(
      [
        soccer.lines['19'].moneyline.moneyline_away,
        soccer.lines['19'].moneyline.moneyline_draw,
        soccer.lines['19'].moneyline.moneyline_home,
      ],
      [260, 240, -105],
    );
    assert.equal(soccer.rotation_number_away, undefined);
  });

  test('the widget routes: events, opening and closing of a sport with the date as a parameter', async () => {
    for (const [widget, dated] of [
      ['events', 'events'],
      ['opening', 'openers'],
      ['closing', 'closing'],
    ]) {
      const byWidget = await ok(`/api/v1/sports/4/widget/${widget}?date=${D}&include=scores`);
      const byDate = await ok(`/api/v1/sports/4/${dated}/${D}?include=scores`);
      assert.deepEqual(byWidget.body, byDate.body, widget);
      assert.equal(byWidget.headers.get('x-datapoints'), byDate.headers.get('x-datapoints'));
      const today = (await ok(`/api/v1/sports/4/${dated}/${D}`)).body;
      assert.deepEqual((await ok(`/api/v1/sports/4/widget/${widget}`)).body, today, 'today (UTC) by default');
      assert.equal((await get(`/api/v1/sports/4/widget/${widget}?date=2026-13-01`)).status, 400);
    }
  });

  test('one event is the bare event object; errors carry error', async () => {
    const r = await ok(`/api/v1/events/${E1}?include=scores`);
    assert.equal(r.body.event_id, E1);
    assert.equal(r.body.events, undefined);
    assert.equal(r.body.meta, undefined);
    const missing = await get('/api/v1/events/nope');
    assert.equal(missing.status, 404);
    assert.match(missing.body.error, /event nope not found/);
    for (const path of [
      `/api/v1/sports/4/events/${D}?include=odds`,
      `/api/v1/sports/4/events/2026-02-30`,
      `/api/v1/sports/x/events/${D}`,
      `/api/v1/sports/4/events/${D}?affiliate_ids=a`,
      `/api/v1/sports/4/events/${D}?offset=9999`,
    ]) {
      const bad = await get(path);
      assert.equal(bad.status, 400, path);
      assert.equal(typeof bad.body.error, 'string', path);
    }
    const unknown = await get('/api/v1/no/such/path');
    assert.equal(unknown.status, 404);
    assert.match(unknown.body.error, /path not found/);
    const posted = await fetch(`${s.url}/api/v1/sports/4/events/${D}`, {
      method: 'POST',
      headers: { 'X-Service-Key': both },
    });
    assert.equal(posted.status, 405);
    assert.equal(posted.headers.get('allow'), 'GET, HEAD');
    const text = `method POST is not allowed on /api/v1/sports/4/events/${D}; it answers GET, HEAD`;
    assert.deepEqual(await posted.json(), { error: text, message: text });
  });

  test('openers and closing of a date price the line sets from the recorded rows', async () => {
    const openers = (await ok(`/api/v1/sports/4/openers/${D}`)).body;
    const e1 = openers.events.find((e: any) => e.event_id === E1);
    assert.equal(e1.lines['19'].moneyline.moneyline_away, 130);
    assert.deepEqual(
      [e1.lines['19'].spread.point_spread_home, e1.lines['19'].spread.point_spread_home_money],
      [-3.5, -110],
    );
    assert.equal(e1.lines['19'].line_id, (await lineOf(E1, '19')).line_id);
    // E1 starts later today: its closing lines are the current ones, so far.
    const closing = (await ok(`/api/v1/sports/4/closing/${D}`)).body.events.find((e: any) => e.event_id === E1);
    assert.deepEqual(closing.lines, (await lineOf(E1, '19')) && (await ok(`/api/v1/events/${E1}`)).body.lines);
    assert.equal((await get(`/api/v1/sports/4/closing/2026-13-01`)).status, 400);
  });
});

describe('schedule', () => {
  test('rows in start order, paged by last_event_uuid', async () => {
    const all = (await ok(`/api/v1/sports/4/schedule?from=${D}`)).body.schedules;
    assert.deepEqual(
      all.map((r: any) => r.event_id),
      [E2, E3, E1],
    );
    assert.deepEqual(all[0], {
      event_id: E2,
      event_uuid: all[0].event_uuid,
      sport_id: 4,
      event_date: `${D}T20:00:00Z`,
      event_name: 'Boston at Los Angeles',
      league_name: 'NBA',
      season_type: 'Regular Season',
      season_type_id: 2,
      season_year: 2026,
      event_status: 'STATUS_IN_PROGRESS',
      away_team_id: 2002,
      away_team: 'Boston',
      home_team_id: 2014,
      home_team: 'Los Angeles',
      venue_name: 'Arena',
      venue_location: 'Los Angeles, CA',
      broadcast: '',
      id: all[0].id,
      date_event: `${D}T20:00:00Z`,
      neutral_site: false,
      conference_competition: false,
      away_score: 10,
      home_score: 12,
      event_location: 'Los Angeles, CA',
      updated_at: all[0].updated_at,
      event_status_detail: all[0].event_status_detail,
      attendance: 0,
      teams_normalized: (await ok(`/api/v1/events/${E2}`)).body.teams_normalized,
    });
    assert.ok(Number.isSafeInteger(all[0].id) && all[0].id > 0);
    assert.notEqual(all[0].id, all[1].id);
    assert.ok(Number.isFinite(Date.parse(all[0].updated_at)));
    assert.equal(typeof all[0].event_status_detail, 'string');
    // Before a score: zeros, and the start as the row's time.
    assert.deepEqual([all[1].away_score, all[1].home_score, all[1].updated_at], [0, 0, all[1].event_date]);
    const first = await ok(`/api/v1/sports/4/schedule?from=${D}&limit=2`);
    assert.equal(first.headers.get('x-datapoints'), '2');
    const next = (
      await ok(`/api/v1/sports/4/schedule?from=${D}&limit=2&last_event_uuid=${first.body.schedules[1].event_uuid}`)
    ).body;
    assert.deepEqual(
      [...first.body.schedules, ...next.schedules].map((r: any) => r.event_id),
      [E2, E3, E1],
    );
    const desc = (await ok(`/api/v1/sports/4/schedule?from=${D}&sort=desc`)).body.schedules;
    assert.deepEqual(
      desc.map((r: any) => r.event_id),
      [E1, E3, E2],
    );
  });

  test('filters and errors', async () => {
    const ids = async (q: string) => (await ok(`/api/v1/sports/4/schedule?from=${D}&${q}`)).body.schedules.length;
    assert.equal(await ids('team_id=2002'), 3);
    assert.equal(await ids('team_id=2003'), 0);
    assert.equal(await ids('season_year=2026&season_type_id=2'), 3);
    assert.equal(await ids('season_year=2025'), 0);
    assert.equal(await ids('season_type_id=3'), 0);
    const tomorrow = new Date(Date.parse(D) + 86_400_000).toISOString().slice(0, 10);
    assert.equal((await ok(`/api/v1/sports/4/schedule?from=${tomorrow}`)).body.schedules.length, 0);
    assert.equal((await ok(`/api/v1/sports/4/schedule?from=${tomorrow}&sort=desc`)).body.schedules.length, 3);
    for (const q of ['sort=up', 'limit=501', 'limit=0', 'from=2026-1-1', 'season_type_id=9', 'last_event_uuid=nope']) {
      const r = await get(`/api/v1/sports/4/schedule?${q}`);
      assert.equal(r.status, 400, q);
      assert.equal(typeof r.body.error, 'string');
    }
  });
});

describe('lines', () => {
  test('an event’s line sets, and one of them by its line id', async () => {
    const r = await ok(`/api/v1/events/${E1}/lines`);
    assert.deepEqual(
      r.body.lines.map((l: any) => [l.period_description, l.affiliate.affiliate_id]),
      [
        ['Full Game', 19],
        ['Full Game', 23],
        ['1st Half', 23],
      ],
    );
    const half = r.body.lines[2];
    assert.notEqual(half.line_id, r.body.lines[1].line_id);
    const one = await ok(`/api/v1/events/${E1}/lines/${half.line_id}`);
    assert.deepEqual(one.body, half);
    assert.equal((await ok(`/api/v1/events/${E1}/lines?affiliate_ids=19`)).body.lines.length, 1);
    assert.equal((await get(`/api/v1/events/${E2}/lines/${half.line_id}`)).status, 404);
    assert.equal((await get(`/api/v1/events/${E1}/lines/abc`)).status, 400);
    assert.equal((await get(`/api/v1/events/nope/lines`)).status, 404);
  });

  test('a line’s moneyline history: newest first, the newest as the event shows it', async () => {
    const line = await lineOf(E1, '19');
    const r = await ok(`/api/v1/lines/${line.line_id}/moneyline`);
    const ml = r.body.moneylines;
    assert.deepEqual(
      ml.map((x: any) => [x.moneyline_away, x.moneyline_home]),
      [
        [125, -150],
        [130, -150],
      ],
    );
    assert.deepEqual(ml[0], { ...line.moneyline, period_id: 0, period_description: 'Full Game' });
    assert.equal(r.headers.get('x-datapoints'), '2');
    assert.equal((await ok(`/api/v1/lines/${line.line_id}/moneyline?limit=1`)).body.moneylines.length, 1);
  });

  test('spread and total histories; every period with include=all_periods', async () => {
    const line = await lineOf(E1, '19');
    const spreads = (await ok(`/api/v1/lines/${line.line_id}/spread`)).body.spreads;
    // Opening, then the move (both sides' rows at one moment count once).
    assert.equal(spreads.length, 2);
    assert.deepEqual(spreads[0], { ...line.spread, period_id: 0, period_description: 'Full Game' });
    assert.deepEqual(
      [spreads[1].point_spread_home, spreads[1].point_spread_home_money, spreads[1].point_spread_home_delta],
      [-3.5, -110, 0],
    );
    const totals = (await ok(`/api/v1/lines/${line.line_id}/total`)).body.totals;
    assert.deepEqual(totals, [{ ...line.total, period_id: 0, period_description: 'Full Game' }]);
    const periods = (await ok(`/api/v1/lines/${line.line_id}/moneyline?include=all_periods`)).body.moneyline_periods;
    assert.equal(Object.keys(periods).length, 8);
    assert.equal(periods.period_full_game.length, 2);
    // Every entry names its period.
    for (const [name, entries] of Object.entries<any[]>(periods)) {
      for (const e of entries) assert.equal(name, ['period_full_game', 'period_first_half'][e.period_id]);
    }
    const e23 = (await ok(`/api/v1/events/${E1}?include=all_periods`)).body.line_periods['23'];
    const half = (await ok(`/api/v1/lines/${e23.period_full_game.line_id}/moneyline?include=all_periods`)).body
      .moneyline_periods.period_first_half;
    assert.deepEqual(
      half.map((e: any) => [e.period_id, e.period_description, e.line_id]),
      [[1, '1st Half', e23.period_first_half.line_id]],
    );
    assert.deepEqual(periods.period_first_half, [], 'book 19 prices no first half');
  });

  test('an event id on the line routes answers that event’s current objects of the family, per book', async () => {
    const e1 = (await ok(`/api/v1/events/${E1}?include=all_periods`)).body;
    const at0 = { period_id: 0, period_description: 'Full Game' };
    const r = await ok(`/api/v1/lines/${E1}/moneyline`);
    assert.deepEqual(r.body, {
      moneylines: [
        { ...e1.lines['19'].moneyline, ...at0 },
        { ...e1.lines['23'].moneyline, ...at0 },
      ],
    });
    assert.equal(r.headers.get('x-datapoints'), '4');
    assert.deepEqual((await ok(`/api/v1/lines/${E1}/spread?affiliate_ids=23`)).body, {
      spreads: [{ ...e1.lines['23'].spread, ...at0 }],
    });
    const periods = (await ok(`/api/v1/lines/${E1}/moneyline?include=all_periods`)).body.moneyline_periods;
    assert.deepEqual(periods.period_first_half, [
      { ...e1.line_periods['23'].period_first_half.moneyline, period_id: 1, period_description: '1st Half' },
    ]);
    const tt = (await ok(`/api/v1/lines/${E1}/team_total`)).body.team_totals;
    assert.deepEqual([tt.length, tt[0].affiliate_id, tt[0].total_over_away], [1, 19, 108.5]);
    const missing = await get('/api/v1/lines/nope/moneyline');
    assert.equal(missing.status, 404);
    assert.match(missing.body.error, /line or event nope not found/);
  });

  test('team totals: each team’s main Over line and the Under at its number', async () => {
    const line = await lineOf(E1, '19');
    const [tt] = (await ok(`/api/v1/lines/${line.line_id}/team_total`)).body.team_totals;
    assert.deepEqual(
      [tt.total_over_away, tt.total_over_away_money, tt.total_under_away, tt.total_under_away_money],
      [108.5, -115, 108.5, -105],
    );
    assert.deepEqual([tt.total_over_home, tt.total_over_home_money, tt.total_under_home_money], [112.5, -110, -110]);
  });

  test('line errors: unknown, not a line id, not an integer', async () => {
    const line = await lineOf(E1, '19');
    for (const [path, status] of [
      ['/api/v1/lines/999999/moneyline', 404],
      ['/api/v1/lines/x/total', 404],
      // A price id that is not the smallest of its book's prices names no line.
      [`/api/v1/lines/${line.line_id + 1}/spread`, 404],
      [`/api/v1/lines/${line.line_id}/total?include=scores`, 400],
      [`/api/v1/lines/${line.line_id}/total?limit=0`, 400],
    ] as const) {
      const r = await get(path);
      assert.equal(r.status, status, path);
      assert.equal(typeof r.body.error, 'string');
    }
  });

  test('best lines of several events, as the V2 best line has them', async () => {
    const r = await ok(`/api/v1/lines/best?event_ids=${E1},${E2}`);
    // An object keyed by event id, as existing clients read it.
    assert.deepEqual(r.body, {
      [E1]: (await ok(`/api/v2/events/${E1}/best-line`)).body,
      [E2]: (await ok(`/api/v2/events/${E2}/best-line`)).body,
    });
    const live = await ok(`/api/v1/lines/best?event_ids=${E2}&period=period_live_full_game&affiliate_ids=19`);
    assert.equal(live.body[E2].moneyline.moneyline_away, 160);
    assert.equal(live.headers.get('x-datapoints'), '2');
    assert.equal((await get('/api/v1/lines/best')).status, 400);
    assert.equal((await get(`/api/v1/lines/best?event_ids=${E1},nope`)).status, 404);
    assert.equal((await get(`/api/v1/lines/best?event_ids=${E1}&period=period_tenth`)).status, 400);
  });
});

describe('delta feeds', () => {
  test('a sport’s changed events behind the integer cursor, paged', async () => {
    const seen: string[] = [];
    let cursor = '0';
    for (let i = 0; i < 10; i++) {
      const r = (await ok(`/api/v1/sports/4/events/delta?last_id=${cursor}&limit=1`)).body;
      assert.ok(r.meta.count <= 1);
      seen.push(...r.events.map((e: any) => e.event_id));
      cursor = r.meta.delta_last_id;
      if (!r.meta.has_more) break;
    }
    // Every event once per page it changed in; E1 changed last.
    assert.deepEqual([...new Set(seen)].sort(), [E1, E2, E3].sort());
    assert.equal(seen[seen.length - 1], E1);
    assert.equal(cursor, String(s.server.ledger.headId));
    const head = (await events()).meta.delta_last_id;
    const none = (await ok(`/api/v1/sports/4/events/delta?last_id=${head}`)).body;
    const epoch = s.server.ledger.position.epoch;
    assert.deepEqual(none, { meta: { delta_last_id: head, count: 0, has_more: false, epoch }, events: [] });
    const e1 = (await ok(`/api/v1/sports/4/events/delta?last_id=${Number(head) - 1}&include=scores`)).body;
    assert.deepEqual(e1.events, [(await ok(`/api/v1/events/${E1}?include=scores`)).body]);
    for (const q of ['', 'last_id=abc', `last_id=${Number(head) + 10}`, 'last_id=0&limit=501']) {
      const r = await get(`/api/v1/sports/4/events/delta?${q}`);
      assert.equal(r.status, 400, q);
      assert.equal(typeof r.body.error, 'string');
    }
  });

  test('/api/v1/delta: every sport’s changed events behind the UUID cursor, paged', async () => {
    const first = (await ok('/api/v1/delta')).body;
    assert.deepEqual([first.meta.count, first.events], [0, []]);
    const seen: string[] = [];
    let cursor = NIL;
    for (let i = 0; i < 10; i++) {
      const r = (await ok(`/api/v1/delta?last_id=${cursor}&limit=2`)).body;
      seen.push(...r.events.map((e: any) => e.event_id));
      cursor = r.meta.delta_last_id;
      if (!r.meta.has_more) break;
    }
    assert.deepEqual([...new Set(seen)].sort(), [E1, E2, E3, SOCCER].sort());
    assert.equal(cursor, first.meta.delta_last_id);
    const soccer = (await ok(`/api/v1/delta?last_id=${NIL}&sport_id=11`)).body;
    assert.deepEqual(
      soccer.events.map((e: any) => e.event_id),
      [SOCCER],
    );
    assert.equal((await get(`/api/v1/delta?last_id=${first.meta.delta_last_id.slice(0, 8)}`)).status, 400);
    // The integer meta.delta_last_id of a V1 events response is a cursor here too (the official client's
    // documentation says so): the same page as the UUID of the same position.
    const snapshot = await events();
    const head = Number(snapshot.meta.delta_last_id);
    const byInteger = (await ok(`/api/v1/delta?last_id=${head - 1}`)).body;
    assert.deepEqual(byInteger.events, [(await ok(`/api/v1/events/${E1}`)).body]);
    assert.match(byInteger.meta.delta_last_id, /^[0-9a-f]{8}-/);
    const atHead = (await ok(`/api/v1/delta?last_id=${head}`)).body;
    assert.deepEqual([atHead.meta.count, atHead.meta.delta_last_id], [0, byInteger.meta.delta_last_id]);
    assert.equal((await get(`/api/v1/delta?last_id=${head + 10}`)).status, 400);
  });

  test('/api/v1/deltaV2 answers what /api/v2/delta answers', async () => {
    const v1 = await ok(`/api/v1/deltaV2?last_id=${NIL}&limit=3`);
    const v2 = await ok(`/api/v2/delta?last_id=${NIL}&limit=3`);
    assert.deepEqual(v1.body, v2.body);
    assert.equal(v1.headers.get('x-datapoints'), v2.headers.get('x-datapoints'));
    assert.equal((await get('/api/v1/deltaV2?last_id=7')).status, 400);
  });
});

describe('plans', () => {
  test('a V1-only plan reaches V1 and the two V2 delta feeds, and gets 403 elsewhere in V2', async () => {
    await ok(`/api/v1/sports/4/events/${D}`, v1Only);
    await ok(`/api/v1/events/${E1}`, v1Only);
    await ok('/api/v1/delta', v1Only);
    await ok('/api/v2/delta', v1Only);
    await ok('/api/v2/markets/delta?last_id=0&limit=1', v1Only);
    for (const path of [
      `/api/v2/sports/4/events/${D}`,
      `/api/v2/events/${E1}`,
      '/api/v2/markets',
      '/api/v2/sports/4/teams',
    ]) {
      const r = await get(path, v1Only);
      assert.equal(r.status, 403, path);
      assert.match(r.body.error, /V2 subscription/);
    }
  });

  test('a V2-only plan gets 403 with error on every V1 route; the key query parameter works', async () => {
    for (const path of ['/api/v1/sports', `/api/v1/events/${E1}`, '/api/v1/deltaV2', '/api/v1/sports/4/schedule']) {
      const r = await s.get(path);
      assert.equal(r.status, 403, path);
      assert.match(r.body.error, /V1 subscription/);
      assert.equal(r.headers.get('x-tier'), 'Enterprise');
    }
    assert.equal((await s.get(`/api/v1/sports?key=${v1Only}`, {})).status, 200);
  });

  test('plan coverage narrows the line sets: Free sees its books, the full game, no in-play prices', async () => {
    const free = await s.newKey('free', { v1: true });
    // Free allows one request a second.
    const pause = () => new Promise((r) => setTimeout(r, 1100));
    const r = await ok(`/api/v1/events/${E2}?include=all_periods`, free);
    assert.equal(r.headers.get('x-data-delay-seconds'), '300');
    assert.deepEqual(Object.keys(r.body.line_periods), ['19', '23']);
    assert.equal(r.body.line_periods['19'].period_live_full_game.moneyline.moneyline_away, 0.0001);
    assert.equal(r.body.line_periods['19'].period_live_full_game.line_id, 0);
    assert.equal(r.body.lines['19'].moneyline.moneyline_away, 130);
    await pause();
    const half = (await ok(`/api/v1/events/${E1}/lines`, free)).body.lines;
    assert.ok(half.every((l: any) => l.period_id === 0));
    await pause();
    const best = await get(`/api/v1/lines/best?event_ids=${E2}&period=period_live_full_game`, free);
    assert.equal(best.status, 403);
    assert.equal(typeof best.body.error, 'string');
  });
});

describe('documentation', () => {
  test('the OpenAPI document lists the V1 routes', async () => {
    const doc = (await s.get('/openapi.json', {})).body;
    for (const path of [
      '/api/v1/sports',
      '/api/v1/sports/{sportID}/events/{date}',
      '/api/v1/events/{eventID}',
      '/api/v1/lines/{lineID}/moneyline',
      '/api/v1/lines/best',
      '/api/v1/sports/{sportID}/schedule',
      '/api/v1/deltaV2',
      '/api/v1/sports/{sportID}/conferences',
      '/api/v1/sports/{sportID}/divisions',
      '/api/v1/sports/{sportID}/widget/events',
      '/api/v1/sports/{sportID}/widget/opening',
      '/api/v1/sports/{sportID}/widget/closing',
    ]) {
      assert.ok(doc.paths[path], path);
    }
  });
});
