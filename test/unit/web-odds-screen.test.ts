import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Event, MarketPrice, ServerMessage } from '../../packages/client/src/index.ts';
import {
  applyPrice,
  bestBooks,
  boardEvent,
  closeMissing,
  moveDirection,
  priceIds,
  shownQuote,
} from '../../web/src/board-model.ts';
import { lineChartSvg } from '../../web/src/line-chart.ts';
import { formatLine, formatPrice } from '../../web/src/odds-format.ts';
import { asMarketPrice } from '../../web/src/rest-poller.ts';
import { SnapshotMerge } from '../../web/src/snapshot-merge.ts';

/* The odds screen's rules that need no browser (web/src): its model, formats, chart and merge. */

const team = (team_id: number, name: string, away: boolean) => ({
  team_id,
  name,
  mascot: '',
  abbreviation: name.slice(0, 3).toUpperCase(),
  record: '',
  is_away: away,
  is_home: !away,
});

const p = (id: string, price: number, is_main_line = true) => ({
  id,
  price,
  is_main_line,
  updated_at: '2026-12-06T10:00:00Z',
});

function event(): Event {
  return {
    event_id: 'e1',
    sport_id: 4,
    event_uuid: 'u',
    event_date: '2026-12-06T23:00:00Z',
    rotation_number_away: 501,
    rotation_number_home: 502,
    teams: [team(10, 'Boston', true), team(20, 'Denver', false)],
    schedule: { season_type: 'Regular Season', season_year: 2026, event_name: '', league_name: 'NBA' },
    markets: [
      {
        id: 1,
        market_id: 1,
        period_id: 0,
        name: 'Moneyline',
        market_description: '',
        participants: [
          {
            id: 20,
            type: 'TYPE_TEAM',
            name: 'Denver',
            lines: [{ id: 'l1', value: '', prices: { '19': p('1', -150), '23': p('2', -140) } }],
          },
          {
            id: 10,
            type: 'TYPE_TEAM',
            name: 'Boston',
            lines: [{ id: 'l2', value: '', prices: { '19': p('3', 130), '23': p('4', 0.0001) } }],
          },
        ],
      },
      {
        id: 2,
        market_id: 2,
        period_id: 0,
        name: 'Spread',
        market_description: '',
        participants: [
          {
            id: 10,
            type: 'TYPE_TEAM',
            name: 'Boston',
            lines: [
              { id: 'l3', value: '3.5', prices: { '19': p('5', -110) } },
              { id: 'l4', value: '4', prices: { '23': p('6', -120), '19': p('7', -130, false) } },
            ],
          },
        ],
      },
      {
        id: 3,
        market_id: 43,
        period_id: 0,
        name: 'Total',
        market_description: '',
        participants: [
          {
            id: 1,
            type: 'TYPE_RESULT',
            name: 'Under',
            lines: [{ id: 'l5', value: '220.5', prices: { '19': p('8', -105) } }],
          },
          {
            id: 0,
            type: 'TYPE_RESULT',
            name: 'Over',
            lines: [{ id: 'l6', value: '220.5', prices: { '19': p('9', -115) } }],
          },
        ],
      },
    ],
  } as Event;
}

const row = (o: Partial<MarketPrice>): MarketPrice => ({
  id: 1,
  event_id: 'e1',
  affiliate_id: 19,
  market_id: 1,
  market_participant_id: 10,
  normalized_market_participant_id: 10,
  normalized_market_participant_type: 1,
  line: '',
  price: '140',
  previous_price: '130',
  price_delta: 10,
  is_main_line: true,
  sport_id: 4,
  updated_at: '2026-12-06T10:01:00Z',
  snapshot: false,
  closed_at: '',
  ...o,
});

test('a snapshot becomes main-line quotes per side and book, sides in away-home and over-under order', () => {
  const ev = boardEvent(event());
  assert.deepEqual(
    ev.sides.get(1)!.map((s) => [s.participantId, s.role]),
    [
      [10, 'away'],
      [20, 'home'],
    ],
  );
  assert.deepEqual(
    ev.sides.get(3)!.map((s) => s.role),
    ['over', 'under'],
    'the in-play total (43) is the logical total (3)',
  );
  assert.equal(shownQuote(ev, 1, 10, 19)?.price, 130);
  assert.equal(shownQuote(ev, 2, 10, 19)?.line, '3.5', 'the main line, not the alternate');
  assert.equal(shownQuote(ev, 3, 0, 19)?.price, -115);
});

test('closed prices: those missing from the hide_closed read', () => {
  const open = priceIds([event()]);
  open.delete('3');
  const ev = boardEvent(event(), open);
  assert.equal(shownQuote(ev, 1, 10, 19)?.closed, true);
  assert.equal(shownQuote(ev, 1, 20, 19)?.closed, false);
});

test('closeMissing closes what a later hide_closed read lacks and names the sides it touched', () => {
  const ev = boardEvent(event());
  const open = priceIds([event()]);
  open.delete('5');
  assert.deepEqual(closeMissing(ev, open), [{ logical: 2, participantId: 10 }]);
  assert.equal(shownQuote(ev, 2, 10, 19)?.closed, true);
  assert.deepEqual(closeMissing(ev, open), [], 'a closed quote is closed once');
});

test('the in-play quote is shown while open, the prematch one otherwise; closes arrive by row', () => {
  const ev = boardEvent(event());
  const c = applyPrice(ev, row({ market_id: 41, price: '200' }))!;
  assert.equal(c.before?.price, 130);
  assert.equal(c.after?.price, 200);
  assert.equal(moveDirection(c.before, c.after), 'up');
  applyPrice(ev, row({ market_id: 41, price: '200', closed_at: '2026-12-06T10:02:00Z' }));
  assert.equal(shownQuote(ev, 1, 10, 19)?.price, 130, 'the open prematch quote again');
  assert.equal(applyPrice(ev, row({ is_main_line: false })), undefined, 'alternate lines are not shown');
  assert.equal(applyPrice(ev, row({ market_id: 29 })), undefined, 'nor other markets');
});

test('best price per side: off-board and closed never compete; the bettor’s better line first', () => {
  const ev = boardEvent(event());
  const [away, home] = ev.sides.get(1)!;
  assert.deepEqual([...bestBooks(ev, 'moneyline', 1, home!, [19, 23])], [23]);
  assert.deepEqual([...bestBooks(ev, 'moneyline', 1, away!, [19, 23])], [], 'one usable price is no comparison');
  const spreadAway = ev.sides.get(2)![0]!;
  assert.deepEqual([...bestBooks(ev, 'spread', 2, spreadAway, [19, 23])], [23], '+4 at -120 beats +3.5 at -110');
  applyPrice(ev, row({ market_id: 2, affiliate_id: 23, line: '4', price: '-120', closed_at: '2026-12-06T10:03:00Z' }));
  assert.deepEqual([...bestBooks(ev, 'spread', 2, spreadAway, [19, 23])], []);
});

test('formats: OFF for the sentinel in every format; American, decimal, probability; lines', () => {
  for (const f of ['american', 'decimal', 'probability'] as const) assert.equal(formatPrice(0.0001, f), 'OFF');
  assert.equal(formatPrice('0.0001', 'american'), 'OFF');
  assert.equal(formatPrice(150, 'american'), '+150');
  assert.equal(formatPrice(-200, 'decimal'), '1.50');
  assert.equal(formatPrice(-200, 'probability'), '66.7%');
  assert.equal(formatLine('3.5', 'spread', 'team'), '+3.5');
  assert.equal(formatLine('-3.5', 'spread', 'team'), '-3.5');
  assert.equal(formatLine('220.5', 'total', 'under'), 'u220.5');
  assert.equal(formatLine('', 'moneyline', 'team'), '');
});

test('the chart: one path per book, off-board points break the line, text escaped', () => {
  const pt = (t: string, price: number, l = '') => ({ t, l, p: price, m: true });
  const svg = lineChartSvg(
    [
      {
        affiliateId: 19,
        name: 'A <b>',
        points: [pt('2026-12-06T10:00:00Z', -110), pt('2026-12-06T11:00:00Z', 0.0001), pt('2026-12-06T12:00:00Z', 120)],
      },
      { affiliateId: 23, name: 'B', points: [pt('2026-12-06T10:30:00Z', 100)] },
    ],
    false,
    'Moneyline',
  );
  const paths = [...svg.matchAll(/<path class="series" data-affiliate="(\d+)" d="([^"]*)"/g)];
  assert.deepEqual(
    paths.map((m) => m[1]),
    ['19', '23'],
  );
  assert.equal(paths[0]![2]!.match(/M/g)!.length, 2, 'a new segment after the off-board point');
  assert.match(svg, /A &lt;b&gt;/);
  assert.match(lineChartSvg([], true, 'x'), /No recorded prices/);
});

test('snapshot merge: deltas wait for the snapshot, those at or below its head are dropped', async () => {
  const applied: number[] = [];
  let release!: (head: number) => void;
  let loads = 0;
  const merge = new SnapshotMerge(
    () => {
      loads++;
      return new Promise<number>((r) => (release = r));
    },
    (m) => applied.push(m.position!.id),
  );
  const d = (id: number): ServerMessage => ({ type: 'delta', position: { id, epoch: 'e' } });
  const loading = merge.reload();
  merge.delta(d(5));
  merge.delta(d(11));
  release(10);
  await loading;
  assert.deepEqual(applied, [11]);
  merge.delta(d(12));
  assert.deepEqual(applied, [11, 12]);
  // A subscription acknowledged beyond the snapshot's head reads the snapshot again.
  merge.acknowledged(30);
  assert.equal(loads, 2);
  merge.delta(d(31));
  release(30);
  await new Promise((r) => setImmediate(r));
  assert.deepEqual(applied, [11, 12, 31]);
  merge.acknowledged(20);
  assert.equal(loads, 2, 'an acknowledgement at or below the head needs nothing');
});

test('a markets delta row applies as a stream price row (plans without streams)', () => {
  const ev = boardEvent(event());
  const change = applyPrice(
    ev,
    asMarketPrice({
      id: 99,
      event_id: 'e1',
      sport_id: 4,
      affiliate_id: 19,
      market_id: 43,
      market_name: 'Total',
      participant_id: 1,
      participant_type: 'TYPE_RESULT',
      participant_name: 'Under',
      line: '221.5',
      price: '-120',
      previous_price: '-105',
      change_type: 'line_change',
      is_main_line: true,
      closed_at: '2026-12-06T10:05:00Z',
      updated_at: '2026-12-06T10:05:00Z',
    }),
  )!;
  assert.deepEqual(
    [change.logical, change.participantId, change.after?.line, change.after?.closed],
    [3, 1, '221.5', true],
  );
});
