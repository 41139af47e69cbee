import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { batch, nbaEvent, nbaPrices, price, today } from '../helpers/fixtures.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

const E = 'b1'.repeat(16);
const SOCCER = 'b2'.repeat(16);
let s: TestServer;

before(async () => {
  s = await startTestServer();
  await s.server.ledger.apply(
    batch(new Date().toISOString(), [
      { kind: 'event', event: nbaEvent(E) },
      ...nbaPrices(E),
      // Book 24 has the best Boston moneyline but takes it off the board; book 23 has +135.
      price(E, {
        market_id: 1,
        participant_id: 2002,
        participant_name: 'Boston',
        affiliate_id: 23,
        price: 135,
      }),
      price(E, {
        market_id: 1,
        participant_id: 2002,
        participant_name: 'Boston',
        affiliate_id: 24,
        price: 0.0001,
      }),
      // Book 23 moves its LA main spread to -3 (better for LA backers than -3.5).
      price(E, {
        market_id: 2,
        participant_id: 2014,
        participant_name: 'Los Angeles',
        affiliate_id: 23,
        line: '-3',
        price: -118,
        is_main_line: true,
      }),
      // Book 19 has a lower main total for Over.
      price(E, {
        market_id: 3,
        participant_id: 0,
        affiliate_id: 19,
        line: '219.5',
        price: -115,
        is_main_line: true,
      }),
      price(E, {
        market_id: 3,
        participant_id: 1,
        affiliate_id: 19,
        line: '219.5',
        price: -105,
        is_main_line: true,
      }),
      // In play, book 22 prices Boston only, below the prematch best.
      price(E, { market_id: 41, participant_id: 2002, participant_name: 'Boston', affiliate_id: 22, price: 120 }),
      { kind: 'event', event: { ...nbaEvent(SOCCER), sport_id: 11 } },
      price(SOCCER, { market_id: 1, participant_id: 2002, affiliate_id: 19, price: 210 }),
      price(SOCCER, { market_id: 1, participant_id: 2014, affiliate_id: 19, price: 120 }),
      price(SOCCER, {
        market_id: 1,
        participant_id: 2,
        participant_type: 'TYPE_RESULT',
        participant_name: 'Draw',
        affiliate_id: 23,
        price: 240,
      }),
    ]),
  );
});

after(() => s.close());

test('best line per side, with the book; off-board never best; spreads and totals by points', async () => {
  const r = await s.get(`/api/v2/events/${E}/best-line`);
  assert.equal(r.status, 200);
  assert.equal(r.body.period_id, 0);
  const { moneyline, spread, total } = r.body;
  // Boston is the away team (teams[0]), Los Angeles the home team.
  assert.deepEqual([moneyline.moneyline_away, moneyline.best_affiliate_away.affiliate_id], [135, 23]);
  assert.equal(moneyline.best_affiliate_away.affiliate_name, 'Duelbet');
  assert.equal(moneyline.moneyline_home, -150);
  assert.ok(!('moneyline_draw' in moneyline), 'a two-way moneyline has no draw');
  assert.deepEqual(
    [spread.point_spread_home, spread.point_spread_home_money, spread.best_affiliate_home.affiliate_id],
    [-3, -118, 23],
  );
  assert.deepEqual([spread.point_spread_away, spread.point_spread_away_money], [3.5, -110]);
  assert.deepEqual(
    [total.total_over, total.total_over_money, total.best_affiliate_over.affiliate_id],
    [219.5, -115, 19],
  );
  assert.deepEqual([total.total_under, total.best_affiliate_under.affiliate_id], [221.5, 23]);

  const only19 = await s.get(`/api/v2/events/${E}/best-line?affiliate_ids=19`);
  const books = ['moneyline', 'spread', 'total'].flatMap((k) =>
    Object.entries(only19.body[k])
      .filter(([name]) => name.startsWith('best_affiliate_'))
      .map(([, a]: [string, any]) => a.affiliate_id),
  );
  assert.equal(books.length, 6);
  assert.ok(books.every((b) => b === 19));
  const half = await s.get(`/api/v2/events/${E}/best-line?period=1`);
  assert.deepEqual(half.body.moneyline, { moneyline_away: 0.0001, moneyline_home: 0.0001 });
  assert.deepEqual(half.body.total, {
    total_over: 0.0001,
    total_under: 0.0001,
    total_over_money: 0.0001,
    total_under_money: 0.0001,
  });
  assert.equal((await s.get(`/api/v2/events/${E}/best-line?period=x`)).status, 400);
  assert.equal((await s.get('/api/v2/events/nope/best-line')).status, 404);
});

test('best line by period name: prematch full game, in-play full game, halves', async () => {
  const full = await s.get(`/api/v2/events/${E}/best-line?period=period_full_game`);
  assert.equal(full.status, 200);
  assert.deepEqual(full.body, (await s.get(`/api/v2/events/${E}/best-line`)).body);
  const live = await s.get(`/api/v2/events/${E}/best-line?period=period_live_full_game`);
  assert.equal(live.status, 200);
  assert.equal(live.body.period_id, 7);
  assert.deepEqual([live.body.moneyline.moneyline_away, live.body.moneyline.best_affiliate_away.market_id], [120, 41]);
  assert.equal(live.body.moneyline.moneyline_home, 0.0001);
  assert.ok(!('best_affiliate_home' in live.body.moneyline));
  const half = await s.get(`/api/v2/events/${E}/best-line?period=period_first_half`);
  assert.deepEqual([half.status, half.body.period_id], [200, 1]);
  const bad = await s.get(`/api/v2/events/${E}/best-line?period=period_fifth_half`);
  assert.equal(bad.status, 400);
  assert.match(bad.body.error, /period_live_full_game/);
});

test('best line of a three-way moneyline carries the draw', async () => {
  const r = await s.get(`/api/v2/events/${SOCCER}/best-line`);
  assert.equal(r.status, 200);
  const ml = r.body.moneyline;
  assert.deepEqual([ml.moneyline_away, ml.moneyline_home, ml.moneyline_draw], [210, 120, 240]);
  assert.equal(ml.best_affiliate_draw.affiliate_id, 23);
  // No spread or total is priced: every side carries the off-board sentinel.
  assert.equal(r.body.spread.point_spread_away, 0.0001);
});

test('participants by event and by sport and date, with participant_id and type filter', async () => {
  const r = await s.get(`/api/v2/markets/participants?event_id=${E}`);
  assert.equal(r.status, 200);
  const ml = r.body.participants.filter((p: any) => p.market_id === 1);
  assert.deepEqual(ml.map((p: any) => p.participant_id).sort(), [2002, 2014]);
  assert.ok(ml.every((p: any) => p.participant_type === 'TYPE_TEAM'));
  // Clients also read id, type and team_id: the participant id, its type, and (teams) the team.
  assert.ok(ml.every((p: any) => p.id === p.participant_id && p.type === 'TYPE_TEAM' && p.team_id === p.id));
  const totals = await s.get(`/api/v2/markets/participants?event_id=${E}&market_ids=3&participant_type=TYPE_RESULT`);
  assert.deepEqual(
    totals.body.participants.map((p: any) => [p.participant_id, p.name]),
    [
      [0, 'Over'],
      [1, 'Under'],
    ],
  );
  assert.ok(totals.body.participants.every((p: any) => p.type === 'TYPE_RESULT' && !('team_id' in p)));
  const byDate = await s.get(`/api/v2/markets/participants?sport_id=4&date=${today()}&market_ids=2`);
  assert.equal(byDate.body.participants.length, 2);
  assert.equal((await s.get('/api/v2/markets/participants')).status, 400);
  assert.equal((await s.get('/api/v2/markets/participants?sport_id=4&date=bad')).status, 400);
  assert.equal((await s.get('/api/v2/markets/participants?event_id=nope')).status, 404);
});
