import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { FuturesHeader } from '../../src/domain/futures.ts';
import type { FuturesPriceUpdate } from '../../src/ledger/updates.ts';
import { batch } from '../helpers/fixtures.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

/**
 * /api/v2/sports/{sportID}/futures and /futures/{eventID}: Ultra and above, boards from the one
 * change log, filtered by the plan's books, paged with limit and offset, settled boards on request.
 */
const OPEN = 'a1'.repeat(16);
const DECIDED = 'b2'.repeat(16);
const GOLF = 'c3'.repeat(16);

function header(
  eventId: string,
  sportId: number,
  marketId: number,
  ids: number[],
  type: 'TYPE_TEAM' | 'TYPE_PLAYER',
): FuturesHeader {
  return {
    event_id: eventId,
    sport_id: sportId,
    name: `Board ${eventId.slice(0, 4)}`,
    season_year: 2026,
    starts_at: '2026-11-16T00:00:00.000Z',
    ends_at: eventId === DECIDED ? '2026-11-20T00:00:00.000Z' : '2026-11-30T00:00:00.000Z',
    markets: [
      {
        market_id: marketId,
        name: marketId === 1140 ? 'Championship Winner' : 'Tournament Winner',
        participants: ids.map((id) =>
          type === 'TYPE_TEAM' ? { id, name: `Team ${id}`, type, team_id: id } : { id, name: `Golfer ${id}`, type },
        ),
      },
    ],
  };
}

const prices = (
  eventId: string,
  marketId: number,
  ids: number[],
  books: number[],
  base: number,
): FuturesPriceUpdate[] =>
  ids.flatMap((id, i) =>
    books.map((affiliate_id) => ({
      kind: 'futures_price' as const,
      event_id: eventId,
      market_id: marketId,
      participant_id: id,
      affiliate_id,
      price: base + 100 * i,
    })),
  );

let s: TestServer;
let ultra: string;
let pro: string;
const at = (minutesAgo: number) => new Date(Date.now() - minutesAgo * 60_000).toISOString();

before(async () => {
  s = await startTestServer();
  ultra = await s.newKey('ultra');
  pro = await s.newKey('pro');
  const teams = [2001, 2002, 2003];
  await s.server.ledger.apply(
    batch(at(60), [
      { kind: 'futures_board', board: header(OPEN, 4, 1140, teams, 'TYPE_TEAM') },
      ...prices(OPEN, 1140, teams, [19, 22, 3], 300),
      { kind: 'futures_board', board: header(DECIDED, 4, 1140, teams, 'TYPE_TEAM') },
      ...prices(DECIDED, 1140, teams, [19], 200),
      { kind: 'futures_board', board: header(GOLF, 40, 1141, [14001, 14002], 'TYPE_PLAYER') },
      ...prices(GOLF, 1141, [14001, 14002], [19, 23], 900),
    ]),
  );
  await s.server.ledger.apply(
    batch(at(30), [
      { kind: 'futures_price', event_id: OPEN, market_id: 1140, participant_id: 2001, affiliate_id: 19, price: 250 },
      { kind: 'futures_settlement', event_id: DECIDED, state: 'settled', winner_participant_id: 2002 },
    ]),
  );
});

after(() => s.close());

/** The test server's own Enterprise key (futures, every book, no burst ceiling in reach) unless told. */
const get = (path: string, key = s.key) => s.get(path, { 'X-Service-Key': key });

describe('the Ultra gate', () => {
  test('a Pro key gets 403 in the spec’s entitlement shape, on the list and on a board', async () => {
    for (const path of ['/api/v2/sports/4/futures', `/api/v2/sports/4/futures/${OPEN}`]) {
      const r = await get(path, pro);
      assert.equal(r.status, 403, path);
      // The wording existing clients recognise, with feature and upgrade_url.
      assert.equal(r.body.error, 'Futures markets require Ultra plan or higher');
      assert.equal(r.body.feature, 'futures');
      assert.equal(typeof r.body.upgrade_url, 'string');
      assert.equal(typeof r.body.upgrade_url, 'string');
    }
  });

  test('every tier below Ultra is refused, legacy accounts too: futures are no stats feature', async () => {
    for (const tier of ['free', 'starter', 'pro'] as const) {
      for (const createdAt of [new Date('2026-06-01T00:00:00Z'), new Date()]) {
        for (const path of ['/api/v2/sports/4/futures', `/api/v2/sports/4/futures/${OPEN}`]) {
          // A key per request: Free's burst ceiling is one request a second.
          const r = await get(path, await s.newKey(tier, { createdAt }));
          assert.equal(r.status, 403, `${tier} ${path}`);
          assert.equal(r.headers.get('x-datapoints'), null, `${tier} ${path}: nothing counted`);
        }
      }
    }
  });

  test('an Ultra key gets 200', async () => {
    assert.equal((await get('/api/v2/sports/4/futures', ultra)).status, 200);
    assert.equal((await get(`/api/v2/sports/4/futures/${OPEN}`, ultra)).status, 200);
  });
});

describe('the board', () => {
  test('open boards only by default, in the V2-like layout, with moved prices and deltas', async () => {
    const r = await get('/api/v2/sports/4/futures');
    assert.deepEqual(r.body.meta, { sport_id: 4, count: 1, total: 1, limit: 20, next_cursor: null });
    const [board] = r.body.events;
    assert.equal(board.event_id, OPEN);
    assert.equal(board.sport_id, 4);
    // What existing clients read: event_date, settle_by, schedule.event_name, settlement by market id.
    assert.deepEqual(
      [board.event_date, board.settle_by, board.schedule.event_name],
      [board.starts_at, board.ends_at, board.name],
    );
    assert.deepEqual(board.settlement, { 1140: { state: 'open', winner_participant_id: null, settled_at: '' } });
    const [market] = board.markets;
    assert.equal(market.market_id, 1140);
    assert.equal(market.name, 'Championship Winner');
    const first = market.participants[0];
    assert.deepEqual(Object.keys(first).sort(), ['id', 'name', 'prices', 'team_id', 'type']);
    assert.equal(first.type, 'TYPE_TEAM');
    assert.deepEqual(Object.keys(first.prices).sort(), ['19', '22', '3']);
    assert.deepEqual(first.prices['19'], {
      affiliate_id: 19,
      price: 250,
      price_delta: -50,
      updated_at: first.prices['19'].updated_at,
      closed_at: '',
    });
    assert.equal(first.prices['22'].price, 300);
    // One point per board and one per price: 3 participants x 3 books.
    assert.equal(r.headers.get('x-datapoints'), String(1 + 9));
  });

  test('include_settled adds the decided board, its prices closed at the settlement', async () => {
    const r = await get('/api/v2/sports/4/futures?include_settled=true');
    assert.equal(r.body.meta.total, 2);
    const decided = r.body.events.find((b: { event_id: string }) => b.event_id === DECIDED);
    const settled = decided.settlement['1140'];
    assert.equal(settled.state, 'settled');
    assert.equal(settled.winner_participant_id, 2002);
    assert.notEqual(settled.settled_at, '');
    for (const p of decided.markets[0].participants) assert.equal(p.prices['19'].closed_at, settled.settled_at);
    // The soonest decided first.
    assert.equal(r.body.events[0].event_id, DECIDED);
  });

  test('golf is a futures-only sport: players, market 1141, no events', async () => {
    const r = await get('/api/v2/sports/40/futures?market_ids=1141');
    const [board] = r.body.events;
    assert.equal(board.markets[0].market_id, 1141);
    assert.equal(board.markets[0].participants[0].type, 'TYPE_PLAYER');
    assert.equal(board.markets[0].participants[0].team_id, undefined);
    const sports = await s.get('/api/v2/sports', {});
    assert.ok(sports.body.sports.some((x: { sport_id: number }) => x.sport_id === 40));
    const events = await get(`/api/v2/sports/40/events/${new Date().toISOString().slice(0, 10)}`);
    assert.equal(events.status, 200);
    assert.deepEqual(events.body.events, []);
  });

  test('affiliate_ids and market_ids narrow what is returned and metered', async () => {
    const r = await get('/api/v2/sports/4/futures?affiliate_ids=22');
    for (const p of r.body.events[0].markets[0].participants) assert.deepEqual(Object.keys(p.prices), ['22']);
    assert.equal(r.headers.get('x-datapoints'), String(1 + 3));
    const none = await get('/api/v2/sports/4/futures?market_ids=1141');
    assert.deepEqual(none.body.events, []);
  });

  test('one board by id, decided or not; another sport’s board or an unknown id is a 404', async () => {
    const r = await get(`/api/v2/sports/4/futures/${DECIDED}`);
    assert.equal(r.body.event_id, DECIDED);
    assert.equal(r.body.settlement.state, 'settled');
    assert.equal((await get(`/api/v2/sports/40/futures/${OPEN}`)).status, 404);
    assert.equal((await get('/api/v2/sports/4/futures/ffff')).status, 404);
  });
});

describe('bounds and errors', () => {
  test('limit and meta.next_cursor page the boards; offset is the UTC offset of date', async () => {
    const first = await get('/api/v2/sports/4/futures?include_settled=true&limit=1');
    assert.equal(typeof first.body.meta.next_cursor, 'string');
    const second = await get(
      `/api/v2/sports/4/futures?include_settled=true&limit=1&cursor=${first.body.meta.next_cursor}`,
    );
    assert.equal(first.body.events.length, 1);
    assert.equal(second.body.events.length, 1);
    assert.notEqual(first.body.events[0].event_id, second.body.events[0].event_id);
    assert.equal(second.body.meta.next_cursor, null);
    // offset is minutes, not boards to skip: every board is still there.
    assert.equal((await get('/api/v2/sports/4/futures?include_settled=true&offset=2')).body.events.length, 2);
    assert.deepEqual(
      (await get('/api/v2/sports/4/futures?date=2026-11-16')).body.events.map((b: any) => b.event_id),
      [OPEN],
    );
    assert.deepEqual((await get('/api/v2/sports/4/futures?date=2026-12-01')).body.events, []);
    // The day before the start, shifted 60 minutes on: it reaches the start.
    assert.deepEqual((await get('/api/v2/sports/4/futures?date=2026-11-15')).body.events, []);
    assert.deepEqual((await get('/api/v2/sports/4/futures?date=2026-11-15&offset=60')).body.events.length, 1);
  });

  test('bad values are 400s; unknown sports 404', async () => {
    for (const q of [
      'limit=0',
      'limit=101',
      'limit=x',
      'offset=-1441',
      'offset=x',
      'cursor=abc',
      'date=2026-13-01',
      'include_settled=maybe',
      'affiliate_ids=a',
      `market_ids=${Array.from({ length: 13 }, (_, i) => i + 1).join(',')}`,
    ]) {
      const r = await get(`/api/v2/sports/4/futures?${q}`);
      assert.equal(r.status, 400, q);
      assert.equal(typeof r.body.error, 'string');
    }
    assert.equal((await get('/api/v2/sports/999/futures')).status, 404);
    assert.equal((await get('/api/v2/sports/abc/futures')).status, 400);
  });
});

describe('the change log', () => {
  test('futures rows stay out of the markets delta and the event delta', async () => {
    const m = await s.get('/api/v2/markets/delta?last_id=0');
    assert.equal(m.status, 200);
    assert.equal(m.body.deltas.length, 0);
    const e = await s.get('/api/v2/delta?last_id=00000000-0000-0000-0000-000000000000');
    assert.equal(e.status, 200);
    assert.equal(e.body.deltas.length, 0);
  });

  test('a restart rebuilds the boards from the log', async () => {
    const before = (await get('/api/v2/sports/4/futures?include_settled=true')).body;
    await s.close({ keepData: true });
    s = await startTestServer({ dataDir: s.dataDir });
    assert.deepEqual((await get('/api/v2/sports/4/futures?include_settled=true')).body, before);
  });
});
