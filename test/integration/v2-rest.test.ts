import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { batch, nbaEvent, nbaPrices, price, score, today } from '../helpers/fixtures.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

const E1 = '1'.repeat(32);
const E2 = '2'.repeat(32);
const E3 = '3'.repeat(32);
const SOCCER = '4'.repeat(32);
const D = today();

let s: TestServer;

before(async () => {
  s = await startTestServer();
  const at = new Date().toISOString();
  const soccer = {
    ...nbaEvent(SOCCER, D, 15),
    sport_id: 11,
    rotation_number_away: undefined,
    rotation_number_home: undefined,
  };
  delete soccer.rotation_number_away;
  delete soccer.rotation_number_home;
  await s.server.ledger.apply(
    batch(at, [
      { kind: 'event', event: nbaEvent(E1, D, 23) },
      { kind: 'event', event: nbaEvent(E2, D, 20) },
      { kind: 'event', event: nbaEvent(E3, D, 21) },
      { kind: 'event', event: soccer },
      ...nbaPrices(E1),
      ...nbaPrices(E2),
      price(SOCCER, {
        market_id: 563,
        participant_id: 2,
        participant_type: 'TYPE_RESULT',
        participant_name: 'Draw',
        affiliate_id: 19,
        price: 240,
      }),
      price(SOCCER, { market_id: 1, participant_id: 2002, affiliate_id: 19, price: 150 }),
    ]),
  );
  // E2 is live: its prematch lines closed, the live variants priced.
  await s.server.ledger.apply(
    batch(at, [
      {
        kind: 'score',
        event_id: E2,
        score: score(E2, 'STATUS_IN_PROGRESS', 10, 12),
        live_game_state: { possession: 'home' },
      },
      ...nbaPrices(E2).map((p) => ({ ...p, closed: true })),
      price(E2, {
        market_id: 41,
        participant_id: 2002,
        participant_name: 'Boston',
        affiliate_id: 19,
        price: 160,
      }),
      price(E2, {
        market_id: 41,
        participant_id: 2014,
        participant_name: 'Los Angeles',
        affiliate_id: 19,
        price: -190,
      }),
    ]),
  );
});

after(async () => {
  await s.close();
});

const events = async (query = '', sport = 4) => {
  const r = await s.get(`/api/v2/sports/${sport}/events/${D}${query}`);
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body as { meta: { delta_last_id: string }; events: any[] };
};
const byId = (list: any[], id: string) => list.find((e) => e.event_id === id);
const prices = (ev: any) =>
  ev.markets.flatMap((m: any) =>
    m.participants.flatMap((p: any) =>
      p.lines.flatMap((l: any) => Object.entries(l.prices).map(([aff, pr]) => ({ m, p, l, aff, pr }))),
    ),
  );

describe('authentication', () => {
  test('the two public endpoints need no key', async () => {
    const sports = await s.get('/api/v2/sports', {});
    assert.equal(sports.status, 200);
    // The spec's 33 sport ids and the futures-only golf (40) and motor racing (41).
    assert.equal(sports.body.sports.length, 35);
    assert.ok(sports.body.sports.every((x: any) => Number.isInteger(x.sport_id) && typeof x.sport_name === 'string'));
    assert.equal((await s.get('/api/v2/affiliates', {})).status, 200);
  });

  test('missing, invalid and revoked keys get 401 {"message":"unauthorized"}', async () => {
    const attempts: Record<string, string>[] = [{}, { 'X-Service-Key': 'ob_nope' }];
    for (const headers of attempts) {
      const r = await s.get('/api/v2/markets', headers);
      assert.equal(r.status, 401);
      assert.deepEqual(r.body, { message: 'unauthorized' });
    }
    const k = await s.newKey('pro');
    assert.equal((await s.get('/api/v2/markets', { 'X-Service-Key': k })).status, 200);
    await s.server.keys.revoke({ prefix: k.slice(0, 10) }, new Date().toISOString());
    await new Promise((r) => setTimeout(r, 2100));
    assert.equal((await s.get('/api/v2/markets', { 'X-Service-Key': k })).status, 401);
  });

  test('the key header is matched in any case, and the key query parameter works', async () => {
    assert.equal((await s.get('/api/v2/markets', { 'x-service-key': s.key })).status, 200);
    assert.equal((await s.get('/api/v2/markets', { 'X-SERVICE-KEY': s.key })).status, 200);
    assert.equal((await s.get(`/api/v2/markets?key=${s.key}`, {})).status, 200);
  });

  test('the sportsbooks alias is not public', async () => {
    assert.equal((await s.get('/api/v2/sportsbooks', {})).status, 401);
    const r = await s.get('/api/v2/sportsbooks');
    assert.equal(r.status, 200);
    assert.deepEqual(r.body, (await s.get('/api/v2/affiliates', {})).body);
  });
});

describe('reference and listings', () => {
  test('affiliates carry status; regions only with include=regions', async () => {
    const plain = await s.get('/api/v2/affiliates', {});
    const ids = plain.body.affiliates.map((a: any) => a.affiliate_id);
    for (const id of [19, 23, 24, 25, 26, 28]) assert.ok(ids.includes(id), `affiliate ${id}`);
    assert.ok(plain.body.affiliates.length >= 12);
    assert.ok(plain.body.affiliates.every((a: any) => a.regions === undefined));
    assert.equal(plain.body.affiliates.find((a: any) => a.affiliate_id === 28).status, 'beta');
    const withRegions = await s.get('/api/v2/affiliates?include=regions', {});
    assert.ok(withRegions.body.affiliates.every((a: any) => Array.isArray(a.regions)));
    assert.equal((await s.get('/api/v2/affiliates?include=everything', {})).status, 400);
    const repeated = await s.get('/api/v2/affiliates?include=regions&include=regions', {});
    assert.deepEqual(repeated.body, withRegions.body);
  });

  test('market definitions list live variants', async () => {
    const r = await s.get('/api/v2/markets');
    assert.ok(Array.isArray(r.body));
    const ml = r.body.find((m: any) => m.id === 1);
    assert.equal(ml.live_variant_id, 41);
    assert.equal(typeof ml.line_value_is_participant, 'boolean');
    assert.equal(r.body.find((m: any) => m.id === 29).proposition, true);
  });

  test('season types, one row per sport', async () => {
    const r = await s.get('/api/v2/season_types');
    const of = (sport: number) => r.body.season_types.filter((t: any) => t.sport_id === sport);
    assert.deepEqual(of(4), [
      { sport_id: 4, sport_name: 'NBA', season_type_id: 2, season_type_name: 'Regular Season' },
    ]);
    assert.deepEqual(
      [of(23)[0].season_type_id, of(23)[0].season_type_name, of(24)[0].season_type_id],
      [1, 'Preseason', 3],
    );
    assert.equal(r.body.season_types.length, 35);
  });

  test('dates per sport and for one sport', async () => {
    const all = await s.get('/api/v2/sports/dates?sport_ids=4,11');
    assert.deepEqual(all.body['4'], { dates: [D] });
    assert.deepEqual(all.body['11'], { dates: [D] });
    const one = await s.get('/api/v2/sports/4/dates');
    assert.deepEqual(one.body, { dates: [D] });
    // An offset of -120 minutes moves a 23:00Z start into the next local day.
    const shifted = await s.get('/api/v2/sports/4/dates?offset=-120');
    assert.ok(shifted.body.dates.length === 2);
  });

  test('dates as ISO 8601 instants or Unix seconds (format=iso8601, format=epoch)', async () => {
    const midnight = Date.parse(`${D}T00:00:00Z`);
    const iso = await s.get('/api/v2/sports/dates?sport_ids=4&format=iso8601');
    assert.deepEqual(iso.body, { '4': { dates: [new Date(midnight).toISOString()] } });
    const epoch = await s.get('/api/v2/sports/4/dates?format=epoch');
    assert.deepEqual(epoch.body, { dates: [midnight / 1000] });
    // With an offset of 300 minutes the local day starts at 05:00Z.
    const shifted = await s.get('/api/v2/sports/dates?sport_ids=4&format=epoch&offset=300');
    assert.deepEqual(shifted.body['4'].dates, [midnight / 1000 + 300 * 60]);
    for (const bad of ['unix', 'constructor']) {
      const r = await s.get(`/api/v2/sports/4/dates?format=${bad}`);
      assert.equal(r.status, 400);
      assert.match(r.body.error, /iso8601/);
    }
  });

  test('event ids of a date, per sport', async () => {
    const r = await s.get(`/api/v2/sports/events/${D}?sport_ids=4`);
    assert.deepEqual(r.body['4'].sort(), [E1, E2, E3].sort());
  });

  test('markets of a date, per sport and for one sport', async () => {
    const r = await s.get(`/api/v2/sports/markets/${D}?sport_ids=4`);
    const ids = r.body['4'].map((m: any) => m.id);
    assert.deepEqual(ids, [1, 2, 3, 41]);
    const open = await s.get(`/api/v2/sports/markets/${D}?sport_ids=4&hide_closed_markets=1`);
    assert.deepEqual(
      open.body['4'].map((m: any) => m.id),
      [1, 2, 3, 41],
    );
    // The one-sport route answers the same shape, keyed by the sport id; a day without events is empty.
    const one = await s.get(`/api/v2/sports/4/markets/${D}`);
    assert.deepEqual(one.body, r.body);
    const tomorrow = new Date(Date.parse(D) + 86_400_000).toISOString().slice(0, 10);
    assert.deepEqual((await s.get(`/api/v2/sports/4/markets/${tomorrow}`)).body, { '4': [] });
  });

  test('markets available for an event: an array of market records', async () => {
    const r = await s.get(`/api/v2/events/${E2}/markets`);
    assert.ok(Array.isArray(r.body));
    assert.deepEqual(
      r.body.map((m: any) => [m.id, m.period_id]),
      [
        [1, 0],
        [2, 0],
        [3, 0],
        [41, 0],
      ],
    );
    const ml = r.body[0];
    assert.deepEqual(
      [ml.name, ml.line_value_is_participant, ml.proposition, ml.live_variant_id],
      ['Moneyline', true, false, 41],
    );
    assert.equal(typeof ml.description, 'string');
    assert.equal(r.body[3].live_variant_id, undefined);
    assert.equal((await s.get(`/api/v2/events/${'f'.repeat(32)}/markets`)).status, 404);
  });

  test('teams with conference and division; conferences; divisions', async () => {
    const r = await s.get('/api/v2/sports/4/teams');
    assert.equal(r.body.teams.length, 30);
    const bos = r.body.teams.find((t: any) => t.team_id === 2002);
    assert.equal(bos.record, '10-5');
    assert.equal(bos.conference.sport_id, 4);
    assert.equal(bos.division.conference_id, bos.conference.conference_id);
    const confs = await s.get('/api/v2/sports/4/conferences');
    assert.equal(confs.body.conferences.length, 2);
    const divs = await s.get('/api/v2/sports/4/divisions');
    assert.equal(divs.body.divisions.length, 6);
  });
});

describe('events snapshot', () => {
  test('envelope, delta_last_id and default markets with their live variants', async () => {
    const body = await events();
    assert.equal(body.meta.delta_last_id, String(s.server.ledger.headId));
    assert.equal(body.events.length, 3);
    const e2 = byId(body.events, E2);
    assert.deepEqual(
      e2.markets.map((m: any) => m.market_id).sort((a: number, b: number) => a - b),
      [1, 2, 3, 41],
    );
    assert.equal(e2.score.event_status, 'STATUS_IN_PROGRESS');
    assert.equal(byId(body.events, E1).score, undefined, 'no score object before the start');
    assert.deepEqual(byId(body.events, E3).markets, [], 'no odds yet: empty markets');
    assert.ok(body.events.every((e: any) => e.event_id !== e.event_uuid));
  });

  test('the shapes of markets, participants, lines and prices', async () => {
    const e1 = byId((await events()).events, E1);
    for (const { m, p, l, aff, pr } of prices(e1)) {
      assert.ok(Number.isInteger(m.id) && typeof m.name === 'string' && typeof m.market_description === 'string');
      assert.ok(['TYPE_TEAM', 'TYPE_RESULT'].includes(p.type));
      assert.match(l.id, /^[0-9a-f]{32}$/);
      assert.match(pr.id, /^\d+$/);
      assert.ok(/^\d+$/.test(aff));
      assert.equal(typeof pr.price, 'number');
      assert.equal(typeof pr.is_main_line, 'boolean');
      assert.equal(pr.price_delta, undefined);
      assert.equal(pr.closed_at, undefined);
    }
    const ml = e1.markets.find((m: any) => m.market_id === 1);
    assert.equal(ml.participants[0].id, e1.teams[0].team_id, 'TYPE_TEAM id is the team id');
    assert.equal(ml.participants[0].lines[0].value, '');
  });

  test('market_ids filters and still adds live variants; 12 is the maximum', async () => {
    const only2 = await events('?market_ids=2');
    assert.ok(only2.events.flatMap((e) => e.markets).every((m: any) => m.market_id === 2 || m.market_id === 42));
    const one = await events('?market_ids=1');
    assert.deepEqual(
      byId(one.events, E2)
        .markets.map((m: any) => m.market_id)
        .sort(),
      [1, 41],
    );
    assert.equal((await s.get(`/api/v2/sports/4/events/${D}?market_ids=1,2,3,4,5,6,29,33,35,38,39,87`)).status, 200);
    const over = await s.get(`/api/v2/sports/4/events/${D}?market_ids=1,2,3,4,5,6,29,33,35,38,39,87,88`);
    assert.equal(over.status, 400);
    assert.match(over.body.error, /12/);
    assert.match(over.body.error, /batch/);
  });

  test('soccer defaults include 563', async () => {
    const body = await events('', 11);
    assert.deepEqual(
      body.events[0].markets.map((m: any) => m.market_id).sort((a: number, b: number) => a - b),
      [1, 563],
    );
    assert.equal(body.events[0].rotation_number_away, undefined);
  });

  test('affiliate_ids, main_line, participant_ids, participant_type', async () => {
    const e1 = (q: string) => events(q).then((b) => byId(b.events, E1));
    assert.ok(prices(await e1('?affiliate_ids=23')).every((x: any) => x.aff === '23'));
    const main = prices(await e1('?main_line=true'));
    assert.ok(main.length > 0 && main.every((x: any) => x.pr.is_main_line));
    assert.ok(main.every((x: any) => x.l.value !== '-4.5'));
    assert.ok(prices(await e1('?participant_ids=2014')).every((x: any) => x.p.id === 2014));
    assert.ok(prices(await e1('?participant_type=TYPE_RESULT')).every((x: any) => x.p.type === 'TYPE_RESULT'));
  });

  test('hide_closed drops closed prices; hide_no_markets drops events without markets', async () => {
    const withClosed = byId((await events()).events, E2);
    assert.ok(withClosed.markets.some((m: any) => m.market_id === 1));
    const open = byId((await events('?hide_closed=true')).events, E2);
    assert.deepEqual(
      open.markets.map((m: any) => m.market_id),
      [41],
    );
    const shown = await events('?hide_no_markets=true');
    assert.equal(byId(shown.events, E3), undefined);
    assert.equal(shown.events.length, 2);
  });

  test('event_status includes, then exclude_status excludes', async () => {
    const live = await events('?event_status=STATUS_IN_PROGRESS');
    assert.deepEqual(
      live.events.map((e) => e.event_id),
      [E2],
    );
    const notLive = await events('?exclude_status=STATUS_IN_PROGRESS');
    assert.equal(notLive.events.length, 2);
    const none = await events('?event_status=STATUS_IN_PROGRESS&exclude_status=STATUS_IN_PROGRESS');
    assert.equal(none.events.length, 0);
  });

  test('include=price_delta adds price_delta', async () => {
    const e1 = byId((await events('?include=price_delta')).events, E1);
    assert.ok(prices(e1).every((x: any) => typeof x.pr.price_delta === 'number'));
  });

  test('offset shifts the day boundary', async () => {
    // With offset=-180 the day runs from 21:00Z the day before to 21:00Z: 23:00Z falls out.
    const body = await events('?offset=-180');
    assert.equal(byId(body.events, E1), undefined);
    assert.ok(byId(body.events, E2));
  });

  test('live_game_state is served to Ultra keys only', async () => {
    // A Pro key sees the board 30 s late. On a server of its own, the clock moves past that delay
    // after the commit, so the Pro board holds the live event (whether the delay counts from the
    // commit or from the batch time) and only the gate can withhold its live state.
    let clock = Date.now();
    const own = await startTestServer({ now: () => clock });
    try {
      await own.server.ledger.apply(
        batch(new Date(clock).toISOString(), [
          { kind: 'event', event: nbaEvent(E2, D, 20) },
          {
            kind: 'score',
            event_id: E2,
            score: score(E2, 'STATUS_IN_PROGRESS', 10, 12),
            live_game_state: { possession: 'home' },
          },
        ]),
      );
      clock += 31_000;
      const seenBy = async (tier: 'pro' | 'ultra') => {
        const r = await own.get(`/api/v2/sports/4/events/${D}`, { 'X-Service-Key': await own.newKey(tier) });
        assert.equal(r.status, 200, JSON.stringify(r.body));
        const event = byId(r.body.events, E2);
        assert.equal(event?.score?.score_home, 12, `the ${tier} board has the live score`);
        return event;
      };
      assert.deepEqual((await seenBy('ultra')).live_game_state, { possession: 'home' });
      assert.equal((await seenBy('pro')).live_game_state, undefined);
    } finally {
      await own.close();
    }
  });

  test('one event by id, with the same parameters and envelope', async () => {
    const r = await s.get(`/api/v2/events/${E1}?market_ids=3`);
    assert.equal(r.status, 200);
    assert.equal(r.body.events.length, 1);
    assert.equal(r.body.meta.delta_last_id, String(s.server.ledger.headId));
    assert.ok(r.body.events[0].markets.every((m: any) => m.market_id === 3));
  });

  test('a snapshot reflects a new commit at once', async () => {
    const before = byId((await events()).events, E1);
    await s.server.ledger.apply(
      batch(new Date().toISOString(), [
        price(E1, {
          market_id: 1,
          participant_id: 2002,
          participant_name: 'Boston',
          affiliate_id: 19,
          price: 111,
        }),
      ]),
    );
    const afterBody = await events();
    const e1 = byId(afterBody.events, E1);
    assert.notDeepEqual(e1, before);
    assert.equal(afterBody.meta.delta_last_id, String(s.server.ledger.headId));
    const p = prices(e1).find((x: any) => x.m.market_id === 1 && x.p.id === 2002 && x.aff === '19');
    assert.equal(p.pr.price, 111);
  });
});

describe('errors', () => {
  const cases: [string, number, RegExp][] = [
    ['/api/v2/sports/abc/events/2026-11-23', 400, /sport_id/],
    ['/api/v2/sports/99/events/2026-11-23', 404, /sport 99/],
    ['/api/v2/sports/4/events/2026-13-01', 400, /YYYY-MM-DD/],
    ['/api/v2/sports/4/events/23-11-2026', 400, /YYYY-MM-DD/],
    ['/api/v2/sports/4/events/2026-02-30', 400, /YYYY-MM-DD/],
    ['/api/v2/sports/4/events/2026-11-23?event_status=STATUS_SLEEPING', 400, /event status/],
    ['/api/v2/sports/4/events/2026-11-23?participant_type=TYPE_ROBOT', 400, /participant_type/],
    ['/api/v2/sports/4/events/2026-11-23?main_line=maybe', 400, /main_line/],
    ['/api/v2/sports/4/events/2026-11-23?market_ids=1,x', 400, /market_ids/],
    ['/api/v2/sports/4/events/2026-11-23?offset=abc', 400, /offset/],
    ['/api/v2/sports/4/events/2026-11-23?include=nothing', 400, /include/],
    [
      `/api/v2/sports/4/events/2026-11-23?participant_ids=${Array.from({ length: 100 }, (_, i) => i).join(',')}`,
      400,
      /99/,
    ],
    ['/api/v2/events/nope', 404, /event nope/],
    ['/api/v2/sports/abc/teams', 400, /sport_id/],
    ['/api/v2/sports/99/teams', 404, /sport 99/],
    ['/api/v2/sports/dates?sport_ids=4,z', 400, /sport_ids/],
    ['/api/v2/no/such/path', 404, /path not found/],
    ['/api/v3/sports', 404, /path not found/],
  ];
  for (const [path, status, pattern] of cases) {
    test(`${path} -> ${status}`, async () => {
      const r = await s.get(path);
      assert.equal(r.status, status, JSON.stringify(r.body));
      const text = r.body.message ?? r.body.error;
      assert.equal(typeof text, 'string');
      assert.match(text, pattern);
      if (status === 400) assert.equal(r.body.error, r.body.message);
    });
  }

  test('another method on a routed path: 405 with Allow before any key check, not 404; an unknown path stays 404', async () => {
    const D = '2026-11-23';
    for (const method of ['POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS']) {
      const res = await fetch(`${s.url}/api/v2/sports/4/events/${D}`, { method });
      assert.equal(res.status, 405, method);
      assert.equal(res.headers.get('allow'), 'GET, HEAD', method);
      const body = (await res.json()) as { message: string };
      assert.equal(
        body.message,
        `method ${method} is not allowed on /api/v2/sports/4/events/${D}; it answers GET, HEAD`,
      );
    }
    const token = await fetch(`${s.url}/api/v2/ws/token`, { headers: { 'X-Service-Key': s.key } });
    assert.equal(token.status, 405);
    assert.equal(token.headers.get('allow'), 'POST');
    const unknown = await fetch(`${s.url}/api/v2/no/such/path`, { method: 'POST' });
    assert.equal(unknown.status, 404);
    assert.equal(unknown.headers.get('allow'), null);
  });

  test('a parameter that takes one value, sent twice: 400 saying so, not the schema\'s "must be string"', async () => {
    for (const [path, name] of [
      [`/api/v2/sports/4/events/${D}?market_ids=1&market_ids=2`, 'market_ids'],
      [`/api/v2/sports/4/events/${D}?main_line=true&main_line=false`, 'main_line'],
      ['/api/v2/markets/delta?last_id=1&last_id=2', 'last_id'],
      ['/api/v2/markets/history?market_line_price_ids=1&market_line_price_ids=2', 'market_line_price_ids'],
    ] as const) {
      const r = await s.get(path);
      assert.equal(r.status, 400, path);
      const text = `${name} is given more than once; give it once (a list as one comma-separated value)`;
      assert.deepEqual(r.body, { error: text, message: text }, path);
    }
    // Parameters that take a list in repeats keep doing so.
    assert.equal((await s.get('/api/v2/affiliates?include=regions&include=regions')).status, 200);
  });

  test('a hostile query never produces a 500', async () => {
    const nasty = [
      '?market_ids=' + '9'.repeat(5000),
      '?market_ids[]=1&market_ids[]=2',
      '?market_ids=1&market_ids=2',
      '?offset=1e309',
      '?affiliate_ids=%00',
      '?participant_ids=-1',
      '?event_status=%E2%80%AE',
    ];
    for (const q of nasty) {
      const r = await s.get(`/api/v2/sports/4/events/${D}${q}`);
      assert.ok(r.status === 200 || r.status === 400, `${q} -> ${r.status}`);
    }
  });
});

describe('documentation', () => {
  test('the OpenAPI document lists every route, and /docs serves a page', async () => {
    const r = await s.get('/openapi.json', {});
    assert.equal(r.status, 200);
    assert.match(r.body.openapi, /^3\./);
    for (const path of [
      '/api/v2/sports',
      '/api/v2/affiliates',
      '/api/v2/sportsbooks',
      '/api/v2/markets',
      '/api/v2/season_types',
      '/api/v2/sports/dates',
      '/api/v2/sports/{sportID}/dates',
      '/api/v2/sports/events/{date}',
      '/api/v2/sports/markets/{date}',
      '/api/v2/sports/{sportID}/teams',
      '/api/v2/sports/{sportID}/conferences',
      '/api/v2/sports/{sportID}/divisions',
      '/api/v2/events/{eventID}/markets',
      '/api/v2/sports/{sportID}/markets/{date}',
      '/api/v2/sports/{sportID}/events/{date}',
      '/api/v2/events/{eventID}',
    ]) {
      assert.ok(r.body.paths[path], `missing ${path}`);
    }
    const docs = await fetch(`${s.url}/docs`);
    assert.equal(docs.status, 200);
    assert.match(await docs.text(), /<html/i);
  });
});
