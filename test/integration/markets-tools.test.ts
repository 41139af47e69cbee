import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { batch, nbaEvent, nbaPrices, price, today } from '../helpers/fixtures.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

const E = 'b1'.repeat(16);
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
    ]),
  );
});

after(() => s.close());

test('best line per side, with the book; off-board never best; spreads and totals by points', async () => {
  const r = await s.get(`/api/v2/events/${E}/best-line`);
  assert.equal(r.status, 200);
  assert.equal(r.body.period_id, 0);
  const ml = Object.fromEntries(r.body.moneyline.map((b: any) => [b.participant_id, b]));
  assert.equal(ml[2002].affiliate_id, 23);
  assert.equal(ml[2002].price, 135);
  assert.equal(ml[2014].price, -150);
  const spread = Object.fromEntries(r.body.spread.map((b: any) => [b.participant_id, b]));
  assert.deepEqual([spread[2014].line, spread[2014].affiliate_id], ['-3', 23]);
  assert.equal(spread[2002].line, '3.5');
  const total = Object.fromEntries(r.body.total.map((b: any) => [b.participant_id, b]));
  assert.deepEqual([total[0].line, total[0].affiliate_id], ['219.5', 19]);
  assert.deepEqual([total[1].line, total[1].affiliate_id], ['221.5', 23]);

  const only19 = await s.get(`/api/v2/events/${E}/best-line?affiliate_ids=19`);
  assert.ok(
    [...only19.body.moneyline, ...only19.body.spread, ...only19.body.total].every(
      (b: any) => b.affiliate_id === 19,
    ),
  );
  const half = await s.get(`/api/v2/events/${E}/best-line?period=1`);
  assert.deepEqual([half.body.moneyline, half.body.spread, half.body.total], [[], [], []]);
  assert.equal((await s.get(`/api/v2/events/${E}/best-line?period=x`)).status, 400);
  assert.equal((await s.get('/api/v2/events/nope/best-line')).status, 404);
});

test('participants by event and by sport and date, with participant_id and type filter', async () => {
  const r = await s.get(`/api/v2/markets/participants?event_id=${E}`);
  assert.equal(r.status, 200);
  const ml = r.body.participants.filter((p: any) => p.market_id === 1);
  assert.deepEqual(ml.map((p: any) => p.participant_id).sort(), [2002, 2014]);
  assert.ok(ml.every((p: any) => p.participant_type === 'TYPE_TEAM'));
  const totals = await s.get(
    `/api/v2/markets/participants?event_id=${E}&market_ids=3&participant_type=TYPE_RESULT`,
  );
  assert.deepEqual(
    totals.body.participants.map((p: any) => [p.participant_id, p.name]),
    [
      [0, 'Over'],
      [1, 'Under'],
    ],
  );
  const byDate = await s.get(`/api/v2/markets/participants?sport_id=4&date=${today()}&market_ids=2`);
  assert.equal(byDate.body.participants.length, 2);
  assert.equal((await s.get('/api/v2/markets/participants')).status, 400);
  assert.equal((await s.get('/api/v2/markets/participants?sport_id=4&date=bad')).status, 400);
  assert.equal((await s.get('/api/v2/markets/participants?event_id=nope')).status, 404);
});
