import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { generateKey, newKeyRecord } from '../../src/access/keys.ts';
import { batch, nbaEvent, nbaPrices, price } from '../helpers/fixtures.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

const E = 'a1'.repeat(16);
const OTHER = 'a2'.repeat(16);
const HISTORY_FIELDS = [
  'id',
  'market_line_price_id',
  'event_id',
  'sport_id',
  'affiliate_id',
  'market_participant_id',
  'market_id',
  'line',
  'price',
  'previous_price',
  'change_type',
  'is_main_line',
  'closed_at',
  'updated_at',
];
/** Batch times, a minute apart. */
const minute = (m: number) => `2026-03-01T10:0${m}:00.000Z`;
const T = [minute(0), minute(1), minute(2), minute(3), minute(4)] as const;

let s: TestServer;
let key: string;

const get = (path: string) => s.get(path, { 'X-Service-Key': key });
const ev = `/api/v2/events/${E}`;

before(async () => {
  s = await startTestServer();
  // A key whose burst ceiling the tests cannot reach.
  key = generateKey();
  await s.server.keys.insert(
    newKeyRecord(key, 'enterprise', { label: 'history', custom: JSON.stringify({ burstPerSecond: 1e6 }) }),
  );
  const { ledger } = s.server;
  await ledger.apply(
    batch(T[0], [
      { kind: 'event', event: nbaEvent(E, '2026-03-02') },
      { kind: 'event', event: nbaEvent(OTHER, '2026-03-02') },
      ...nbaPrices(E),
      ...nbaPrices(OTHER),
    ]),
  );
  await ledger.apply(
    batch(T[1], [
      price(E, {
        market_id: 1,
        participant_id: 2002,
        participant_name: 'Boston',
        affiliate_id: 19,
        price: 135,
      }),
      price(E, {
        market_id: 1,
        participant_id: 2014,
        participant_name: 'Los Angeles',
        affiliate_id: 19,
        price: -155,
      }),
    ]),
  );
  // The main spread of Los Angeles at book 19 moves from -3.5 to -4.5: two line_change rows.
  await ledger.apply(
    batch(T[2], [
      price(E, {
        market_id: 2,
        participant_id: 2014,
        participant_name: 'Los Angeles',
        affiliate_id: 19,
        line: '-4.5',
        price: -105,
        is_main_line: true,
      }),
    ]),
  );
  await ledger.apply(
    batch(T[3], [
      price(E, {
        market_id: 3,
        participant_id: 0,
        affiliate_id: 23,
        line: '221.5',
        price: -108,
        closed: true,
      }),
    ]),
  );
  await ledger.apply(
    batch(T[4], [
      price(E, {
        market_id: 1,
        participant_id: 2002,
        participant_name: 'Boston',
        affiliate_id: 23,
        price: 125,
      }),
    ]),
  );
  // A row with a millisecond fraction that binary floating point cannot hold exactly.
  await ledger.apply(
    batch('2026-03-01T10:05:00.007Z', [
      price(OTHER, {
        market_id: 1,
        participant_id: 2002,
        participant_name: 'Boston',
        affiliate_id: 19,
        price: 111,
      }),
    ]),
  );
});

after(() => s.close());

/** Price ids of the event snapshot, by `${market_id}|${participant}|${line}|${affiliate}`. */
async function priceIds(): Promise<Map<string, number>> {
  const snap = await get(`${ev}?market_ids=1,2,3`);
  const out = new Map<string, number>();
  for (const m of snap.body.events[0].markets) {
    for (const p of m.participants) {
      for (const l of p.lines) {
        for (const [aff, pr] of Object.entries<any>(l.prices)) {
          out.set(`${m.market_id}|${p.id}|${l.value}|${aff}`, Number(pr.id));
        }
      }
    }
  }
  return out;
}

function assertNewestFirst(rows: any[]): void {
  for (let i = 1; i < rows.length; i++) assert.ok(rows[i - 1].id > rows[i].id, 'newest first');
}

describe('/api/v2/events/{eventID}/markets/history', () => {
  test('every recorded row of the event, newest first, with exactly the History row fields', async () => {
    const r = await get(`${ev}/markets/history`);
    assert.equal(r.status, 200);
    assert.equal(r.body.meta.event_id, E);
    // 14 first rows, 2 moneyline moves, 2 rows of the main-line move, 1 close, 1 move.
    assert.equal(r.body.meta.count, 20);
    assert.equal(r.body.history.length, 20);
    assertNewestFirst(r.body.history);
    for (const row of r.body.history) {
      assert.deepEqual(Object.keys(row), HISTORY_FIELDS);
      assert.equal(row.event_id, E);
      assert.equal(row.sport_id, 4);
      assert.equal(typeof row.price, 'string');
      assert.equal(typeof row.line, 'string');
      assert.equal(typeof row.is_main_line, 'boolean');
    }
    const [newest] = r.body.history;
    assert.equal(newest.updated_at, T[4]);
    assert.equal(newest.price, '125');
    assert.equal(newest.previous_price, '130');
    assert.equal(newest.change_type, 'price_change');
    const firsts = r.body.history.filter((h: any) => h.updated_at === T[0]);
    assert.equal(firsts.length, 14);
    assert.ok(firsts.every((h: any) => h.change_type === 'new' && h.previous_price === ''));
  });

  test('market_line_price_id is the Price.id; market_participant_id the participant id', async () => {
    const ids = await priceIds();
    const r = await get(`${ev}/markets/history`);
    const newest = r.body.history[0];
    assert.equal(newest.market_line_price_id, ids.get('1|2002||23'));
    assert.equal(newest.market_participant_id, 2002);
    const moves = r.body.history.filter((h: any) => h.change_type === 'line_change');
    assert.deepEqual(
      moves.map((h: any) => [h.line, h.is_main_line, h.market_line_price_id, h.market_participant_id]),
      [
        ['-4.5', true, ids.get('2|2014|-4.5|19'), 2014],
        ['-3.5', false, ids.get('2|2014|-3.5|19'), 2014],
      ],
    );
    const closed = r.body.history.find((h: any) => h.closed_at !== '');
    assert.equal(closed.closed_at, T[3]);
    assert.equal(closed.market_participant_id, 0);
  });

  test('limit keeps the newest rows; default 1000, at most 5000', async () => {
    const all = (await get(`${ev}/markets/history`)).body.history;
    const three = await get(`${ev}/markets/history?limit=3`);
    assert.equal(three.body.meta.count, 3);
    assert.deepEqual(three.body.history, all.slice(0, 3));
    assert.equal((await get(`${ev}/markets/history?limit=5000`)).status, 200);
    for (const bad of ['5001', '0', '-1', 'ten']) {
      const r = await get(`${ev}/markets/history?limit=${bad}`);
      assert.equal(r.status, 400, bad);
      assert.match(r.body.error, /limit/);
    }
  });

  test('market_ids, affiliate_ids and participant_ids filter; together they intersect', async () => {
    const byMarket = (await get(`${ev}/markets/history?market_ids=1`)).body.history;
    assert.equal(byMarket.length, 4 + 3);
    assert.ok(byMarket.every((h: any) => h.market_id === 1));
    assertNewestFirst(byMarket);
    const byBook = (await get(`${ev}/markets/history?affiliate_ids=23`)).body.history;
    assert.equal(byBook.length, 7 + 2);
    assert.ok(byBook.every((h: any) => h.affiliate_id === 23));
    const byParticipant = (await get(`${ev}/markets/history?participant_ids=2014`)).body.history;
    assert.ok(byParticipant.length > 0 && byParticipant.every((h: any) => h.market_participant_id === 2014));
    assert.equal(byParticipant.length, 6 + 1 + 2);
    const both = (await get(`${ev}/markets/history?market_ids=1&affiliate_ids=19&participant_ids=2002`)).body;
    assert.deepEqual(
      both.history.map((h: any) => h.price),
      ['135', '130'],
    );
    const none = await get(`${ev}/markets/history?market_ids=29`);
    assert.equal(none.status, 200);
    assert.deepEqual(none.body, { meta: { event_id: E, count: 0 }, history: [] });
  });

  test('main_line=true keeps the rows that were on the main line, with or without other filters', async () => {
    const all = (await get(`${ev}/markets/history`)).body.history;
    const main = await get(`${ev}/markets/history?main_line=true`);
    assert.equal(main.status, 200);
    assert.deepEqual(
      main.body.history,
      all.filter((h: any) => h.is_main_line),
    );
    assert.ok(main.body.meta.count > 0 && main.body.meta.count < all.length);
    const spread = await get(`${ev}/markets/history?market_ids=2&affiliate_ids=19&main_line=true`);
    assert.deepEqual(
      spread.body.history,
      all.filter((h: any) => h.market_id === 2 && h.affiliate_id === 19 && h.is_main_line),
    );
    assert.deepEqual((await get(`${ev}/markets/history?main_line=false`)).body.history, all);
    assert.equal((await get(`${ev}/markets/history?main_line=maybe`)).status, 400);
  });

  test('market_ids are matched literally, at most 12', async () => {
    const live = await get(`${ev}/markets/history?market_ids=41`);
    assert.equal(live.body.meta.count, 0, 'no automatic live variants, and 1 is not 41');
    const twelve = Array.from({ length: 12 }, (_, i) => i + 1).join(',');
    assert.equal((await get(`${ev}/markets/history?market_ids=${twelve}`)).status, 200);
    const r = await get(`${ev}/markets/history?market_ids=${twelve},13`);
    assert.equal(r.status, 400);
    assert.match(r.body.error, /12/);
  });

  test('from and to are inclusive bounds on the row time, in any RFC 3339 spelling', async () => {
    const r = await get(`${ev}/markets/history?from=${T[1]}&to=${T[2]}`);
    assert.deepEqual([...new Set(r.body.history.map((h: any) => h.updated_at))], [T[2], T[1]]);
    assert.equal(r.body.meta.count, 4);
    const offset = await get(`${ev}/markets/history?from=2026-03-01T12:03:00%2B02:00`);
    assert.deepEqual([...new Set(offset.body.history.map((h: any) => h.updated_at))], [T[4], T[3]]);
    // An unescaped + arrives as a space and still means +.
    const plus = await get(`${ev}/markets/history?from=2026-03-01T12:03:00+02:00`);
    assert.deepEqual(plus.body, offset.body);
    const frac = await get(`${ev}/markets/history?to=2026-03-01T10:00:00.0009Z`);
    assert.equal(frac.body.meta.count, 14);
    const lowFrac = await get(`${ev}/markets/history?from=2026-03-01T10:03:59.9991Z`);
    assert.equal(lowFrac.body.meta.count, 1);
    const other = `/api/v2/events/${OTHER}/markets/history`;
    assert.equal((await get(`${other}?from=2026-03-01T10:05:00.007Z`)).body.meta.count, 1);
    assert.equal((await get(`${other}?from=2026-03-01T10:05:00.0069999Z`)).body.meta.count, 1);
    assert.equal((await get(`${other}?from=2026-03-01T10:05:00.0070001Z`)).body.meta.count, 0);
    assert.equal((await get(`${other}?to=2026-03-01T10:05:00.007Z`)).body.meta.count, 15);
    assert.equal((await get(`${other}?to=2026-03-01T10:05:00.0069Z`)).body.meta.count, 14);
  });

  test('bad from or to, or from after to: 400', async () => {
    for (const q of [
      'from=yesterday',
      'from=2026-03-01',
      'to=2026-02-30T00:00:00Z',
      'to=2026-03-01T24:00:00Z',
      'from=2026-03-01T10:00:00+25:00',
      `from=${T[2]}&to=${T[1]}`,
    ]) {
      const r = await get(`${ev}/markets/history?${q}`);
      assert.equal(r.status, 400, q);
      assert.match(r.body.error, /from|to/, q);
    }
  });

  test('unknown event: 404 naming it; no key: 401; bad ids: 400', async () => {
    const r = await get('/api/v2/events/nope/markets/history');
    assert.equal(r.status, 404);
    assert.match(r.body.message, /event nope/);
    assert.equal((await s.get(`${ev}/markets/history`, {})).status, 401);
    assert.equal((await get(`${ev}/markets/history?affiliate_ids=x`)).status, 400);
    const many = Array.from({ length: 100 }, (_, i) => i).join(',');
    assert.equal((await get(`${ev}/markets/history?participant_ids=${many}`)).status, 400);
  });
});

describe('/api/v2/markets/history', () => {
  test('rows of the named prices, newest first', async () => {
    const ids = await priceIds();
    const wanted = [ids.get('1|2002||19')!, ids.get('2|2014|-3.5|19')!];
    const r = await get(`/api/v2/markets/history?market_line_price_ids=${wanted.join(',')}`);
    assert.equal(r.status, 200);
    assertNewestFirst(r.body.history);
    assert.deepEqual(
      r.body.history.map((h: any) => [h.market_line_price_id, h.price, h.is_main_line, h.change_type]),
      [
        [wanted[1], '-110', false, 'line_change'],
        [wanted[0], '135', false, 'price_change'],
        [wanted[1], '-110', true, 'new'],
        [wanted[0], '130', false, 'new'],
      ],
    );
    for (const row of r.body.history) assert.deepEqual(Object.keys(row), HISTORY_FIELDS);
    assert.deepEqual(r.body.meta, { event_id: E, count: 4 });
    // Prices of two events: no one event to name.
    const other = (await get(`/api/v2/events/${OTHER}?market_ids=1`)).body.events[0].markets[0].participants[0];
    const otherId = (Object.values(other.lines[0].prices)[0] as { id: string }).id;
    const mixed = await get(`/api/v2/markets/history?market_line_price_ids=${wanted[0]},${otherId}`);
    assert.equal(mixed.body.meta.event_id, '');
    assert.deepEqual(new Set(mixed.body.history.map((h: any) => h.event_id)), new Set([E, OTHER]));
  });

  test('main_line=true keeps the rows that were on the main line', async () => {
    const ids = await priceIds();
    const wanted = [ids.get('1|2002||19')!, ids.get('2|2014|-3.5|19')!];
    const r = await get(`/api/v2/markets/history?market_line_price_ids=${wanted.join(',')}&main_line=true`);
    assert.deepEqual(
      r.body.history.map((h: any) => [h.market_line_price_id, h.price, h.is_main_line, h.change_type]),
      [[wanted[1], '-110', true, 'new']],
    );
    assert.equal(r.body.meta.count, 1);
  });

  test('from, to and limit', async () => {
    const ids = [...(await priceIds()).values()].join(',');
    const all = await get(`/api/v2/markets/history?market_line_price_ids=${ids}`);
    assert.equal(all.body.meta.count, 20);
    const window = await get(`/api/v2/markets/history?market_line_price_ids=${ids}&from=${T[3]}&to=${T[3]}`);
    assert.equal(window.body.meta.count, 1);
    assert.equal(window.body.history[0].closed_at, T[3]);
    const two = await get(`/api/v2/markets/history?market_line_price_ids=${ids}&limit=2`);
    assert.deepEqual(two.body.history, all.body.history.slice(0, 2));
    assert.equal((await get(`/api/v2/markets/history?market_line_price_ids=${ids}&limit=5000`)).status, 200);
    assert.equal((await get(`/api/v2/markets/history?market_line_price_ids=${ids}&limit=5001`)).status, 400);
  });

  test('market_line_price_ids is required, integers, at most 50', async () => {
    const missing = await get('/api/v2/markets/history');
    assert.equal(missing.status, 400);
    assert.match(missing.body.error, /market_line_price_ids is required/);
    assert.equal((await get('/api/v2/markets/history?market_line_price_ids=')).status, 400);
    assert.equal((await get('/api/v2/markets/history?market_line_price_ids=1,x')).status, 400);
    const fifty = Array.from({ length: 50 }, (_, i) => i + 1).join(',');
    const ok = await get(`/api/v2/markets/history?market_line_price_ids=${fifty}`);
    assert.equal(ok.status, 200);
    assert.ok(ok.body.history.every((h: any) => h.market_line_price_id <= 50));
    const over = await get(`/api/v2/markets/history?market_line_price_ids=${fifty},51`);
    assert.equal(over.status, 400);
    assert.match(over.body.error, /at most 50/);
  });

  test('unknown ids give no rows; bad from or to: 400; no key: 401', async () => {
    const r = await get('/api/v2/markets/history?market_line_price_ids=999999');
    assert.deepEqual(r.body, { meta: { event_id: '', count: 0 }, history: [] });
    for (const q of ['from=nope', 'to=2026-13-01T00:00:00Z', `from=${T[3]}&to=${T[0]}`]) {
      assert.equal((await get(`/api/v2/markets/history?market_line_price_ids=1&${q}`)).status, 400, q);
    }
    assert.equal((await s.get('/api/v2/markets/history?market_line_price_ids=1', {})).status, 401);
  });
});

describe('/api/v2/events/{eventID}/markets/{marketID}/history', () => {
  test('series keyed by affiliate id, points oldest first in shorthand; c only on closed rows', async () => {
    const r = await get(`${ev}/markets/3/history`);
    assert.equal(r.status, 200);
    assert.equal(r.body.event_id, E);
    assert.equal(r.body.market_id, 3);
    // The meta existing clients read.
    assert.deepEqual(r.body.meta, { event_id: E, market_id: 3, market_name: 'Total Over/Under' });
    assert.deepEqual(Object.keys(r.body.series), ['19', '23']);
    assert.equal(r.body.series['19'].length, 2);
    assert.equal(r.body.series['23'].length, 3);
    for (const points of Object.values<any[]>(r.body.series)) {
      for (let i = 1; i < points.length; i++) assert.ok(points[i - 1].t <= points[i].t, 'oldest first');
      for (const p of points) {
        assert.equal(typeof p.t, 'string');
        assert.equal(typeof p.l, 'string');
        assert.equal(typeof p.p, 'number');
        assert.equal(typeof p.m, 'boolean');
      }
    }
    const last = r.body.series['23'][2];
    assert.deepEqual(last, { t: T[3], l: '221.5', p: -108, m: true, c: T[3] });
    assert.deepEqual(r.body.series['23'][0], { t: T[0], l: '221.5', p: -108, m: true });
  });

  test('a chart mixes participants and lines; participant_id, line and main_line narrow it', async () => {
    const all = (await get(`${ev}/markets/2/history`)).body.series['19'];
    assert.equal(all.length, 5);
    assert.deepEqual(
      all.slice(-2).map((p: any) => [p.l, p.m, p.p]),
      [
        ['-3.5', false, -110],
        ['-4.5', true, -105],
      ],
    );
    const la = (await get(`${ev}/markets/2/history?participant_id=2014`)).body.series;
    assert.equal(la['19'].length, 4);
    assert.ok(
      Object.values<any[]>(la)
        .flat()
        .every((p) => p.l.startsWith('-')),
    );
    const alt = (await get(`${ev}/markets/2/history?line=-4.5`)).body.series;
    assert.ok(
      Object.values<any[]>(alt)
        .flat()
        .every((p) => p.l === '-4.5'),
    );
    assert.equal(alt['19'].length, 2);
    const main = (await get(`${ev}/markets/2/history?main_line=true`)).body.series;
    assert.ok(
      Object.values<any[]>(main)
        .flat()
        .every((p) => p.m === true),
    );
    assert.equal(main['19'].length, 3, '3.5 and -3.5 at the open, -4.5 after the move');
    const mainLa = (await get(`${ev}/markets/2/history?main_line=true&participant_id=2014`)).body.series;
    assert.deepEqual(
      mainLa['19'].map((p: any) => p.l),
      ['-3.5', '-4.5'],
    );
    const nobody = await get(`${ev}/markets/2/history?participant_id=1`);
    assert.deepEqual(nobody.body.series, {});
  });

  test('limit keeps the newest points of the whole response, then orders them oldest first', async () => {
    const r = await get(`${ev}/markets/1/history?limit=2`);
    assert.deepEqual(r.body.series, {
      '19': [{ t: T[1], l: '', p: -155, m: false }],
      '23': [{ t: T[4], l: '', p: 125, m: false }],
    });
    assert.equal((await get(`${ev}/markets/1/history?limit=5000`)).status, 200);
    assert.equal((await get(`${ev}/markets/1/history?limit=5001`)).status, 400);
  });

  test('a market without rows: empty series; bad ids: 400; unknown event: 404; no key: 401', async () => {
    assert.deepEqual((await get(`${ev}/markets/29/history`)).body.series, {});
    const bad = await get(`${ev}/markets/spread/history`);
    assert.equal(bad.status, 400);
    assert.match(bad.body.error, /marketID/);
    assert.equal((await get(`${ev}/markets/2/history?participant_id=x`)).status, 400);
    assert.equal((await get(`${ev}/markets/2/history?main_line=maybe`)).status, 400);
    const missing = await get('/api/v2/events/nope/markets/2/history');
    assert.equal(missing.status, 404);
    assert.match(missing.body.message, /event nope/);
    assert.equal((await s.get(`${ev}/markets/2/history`, {})).status, 401);
  });
});

describe('delayed plans', () => {
  test('a plan with a data delay sees rows by the time they describe: past ones at once, new ones after its delay', async () => {
    const pro = { 'X-Service-Key': await s.newKey('pro') };
    const ids = [...(await priceIds()).values()].join(',');
    const all = await get(`/api/v2/markets/history?market_line_price_ids=${ids}`);
    // Spec: delayed tiers see the state as of now minus their delay, measured on the time the data
    // describes. These rows describe March, long before the Pro tier's 30 s.
    const past = await s.get(`/api/v2/markets/history?market_line_price_ids=${ids}`, pro);
    assert.equal(past.status, 200);
    assert.ok(past.body.meta.count > 0);
    assert.deepEqual(past.body, all.body);
    assert.equal((await s.get(`${ev}/markets/history`, pro)).status, 200);

    // A change that describes now, and an event created now: not on the Pro view for 30 s.
    const FRESH = 'a3'.repeat(16);
    await s.server.ledger.apply(
      batch(new Date().toISOString(), [
        { kind: 'event', event: nbaEvent(FRESH) },
        ...nbaPrices(FRESH),
        price(E, { market_id: 1, participant_id: 2002, participant_name: 'Boston', affiliate_id: 19, price: 150 }),
      ]),
    );
    const now = await s.get(`/api/v2/markets/history?market_line_price_ids=${ids}`, pro);
    assert.equal(now.body.meta.count, past.body.meta.count, 'the new row is not shown yet');
    assert.ok(
      (await get(`/api/v2/markets/history?market_line_price_ids=${ids}`)).body.meta.count > all.body.meta.count,
    );
    assert.equal((await s.get(`/api/v2/events/${FRESH}/markets/history`, pro)).status, 404, 'not on its view yet');
    assert.equal((await get(`/api/v2/events/${FRESH}/markets/history`)).status, 200, 'real time sees it');
  });
});
