import assert from 'node:assert/strict';
import { test } from 'node:test';
import { OPEN_SCOPE } from '../../src/access/plan-scope.ts';
import type { ChangeRecord } from '../../src/changelog/change.ts';
import { ConfigError, resolveServeConfig } from '../../src/config.ts';
import { CompletionFrame, framesOf, MarketFrame, PlayFrame, ScoreFrame, StatsFrame } from '../../src/stream/frames.ts';
import { Subscription, type SubscriptionParams } from '../../src/stream/subscription.ts';
import { openParams } from '../helpers/stream-params.ts';
import { SubscriptionIndex } from '../../src/stream/subscription-index.ts';
import { SIMULATOR_CATALOG } from '../helpers/simulator-catalog.ts';

const row = (
  id: number,
  kind: ChangeRecord['kind'],
  eventId: string,
  payload: unknown,
  extra: Partial<ChangeRecord> = {},
): ChangeRecord => ({
  id,
  kind,
  event_id: eventId,
  sport_id: 4,
  at: '2026-11-25T12:00:00.000Z',
  committed_ms: 0,
  price_id: null,
  affiliate_id: null,
  market_id: null,
  payload: JSON.stringify(payload),
  detail: null,
  ...extra,
});

const priceRow = (
  id: number,
  eventId: string,
  p: { price: string; previous: string; change: string; quiet?: boolean },
) =>
  row(
    id,
    'price',
    eventId,
    {
      id,
      event_id: eventId,
      sport_id: 4,
      affiliate_id: 19,
      market_id: 1,
      market_name: 'Moneyline',
      participant_id: 2002,
      participant_type: 'TYPE_TEAM',
      participant_name: 'Boston',
      line: '',
      price: p.price,
      previous_price: p.previous,
      change_type: p.change,
      is_main_line: true,
      closed_at: '',
      updated_at: '2026-11-25T12:00:00.000Z',
    },
    {
      price_id: 7,
      affiliate_id: 19,
      market_id: 1,
      detail: JSON.stringify({
        price_id: 7,
        period_id: 0,
        market_instance_id: 1,
        line_id: 'x',
        price_delta: 5,
        ...(p.quiet ? { quote_unchanged: true } : {}),
      }),
    },
  );

test('consecutive stat rows of one event make one game_stats frame at the last row; positions only rise', () => {
  const frames = framesOf(
    [
      row(1, 'play', 'a', { sequence: 1 }),
      row(2, 'stat', 'a', { team_id: 1, player_id: 101, stat_id: 4001, value: '2' }),
      row(3, 'stat', 'a', { team_id: 1, stat_id: 4001, value: '2' }),
      priceRow(4, 'a', { price: '120', previous: '115', change: 'price_change' }),
      row(5, 'stat', 'a', { team_id: 1, stat_id: 4001, value: '4' }),
      row(6, 'stat', 'b', { team_id: 2, stat_id: 4001, value: '1' }),
      row(7, 'score', 'a', { score: { event_id: 'a', event_status: 'STATUS_FINAL' } }),
    ],
    SIMULATOR_CATALOG,
  );
  assert.deepEqual(
    frames.map((f) => [f.constructor.name, f.id, f.points]),
    [
      [PlayFrame.name, 1, 1],
      [StatsFrame.name, 3, 2],
      [MarketFrame.name, 4, 1],
      [StatsFrame.name, 5, 1],
      [StatsFrame.name, 6, 1],
      [ScoreFrame.name, 7, 1],
      [CompletionFrame.name, 7, 1],
    ],
  );
  const stats = JSON.parse(frames[1]!.data);
  assert.equal(stats.team_stats[0].stats[0].value, '2');
  assert.equal(stats.player_stats[0].player_id, 101);
  assert.equal(JSON.parse(frames[6]!.data).complete, true);
});

test('a liquidity-only row and a designation-only move are flagged for the filters', () => {
  const [quiet, designation, moved] = framesOf(
    [
      priceRow(1, 'a', { price: '120', previous: '120', change: 'price_change', quiet: true }),
      priceRow(2, 'a', { price: '120', previous: '120', change: 'line_change' }),
      priceRow(3, 'a', { price: '125', previous: '120', change: 'price_change' }),
    ],
    SIMULATOR_CATALOG,
  ) as MarketFrame[];
  assert.equal(quiet!.quoteUnchanged, true);
  assert.equal(designation!.designationOnly, true);
  assert.equal(moved!.quoteUnchanged || moved!.designationOnly, false);
  const params = openParams({ mainLine: true });
  const sub = new Subscription({ deliver() {} }, 's', 'markets', params, OPEN_SCOPE, false, () => undefined);
  assert.deepEqual(
    [quiet, designation, moved].map((f) => sub.matches(f!)),
    [false, false, true],
  );
});

test('the index hands a frame only to the subscriptions of its channel, sport and event', () => {
  const base = openParams();
  const make = (id: string, channel: 'markets' | 'scores', p: Partial<SubscriptionParams>) =>
    new Subscription({ deliver() {} }, id, channel, { ...base, ...p }, OPEN_SCOPE, false, () => undefined);
  const index = new SubscriptionIndex();
  const subs = [
    make('all', 'markets', {}),
    make('sport4', 'markets', { sportIds: new Set([4]) }),
    make('sport3', 'markets', { sportIds: new Set([3]) }),
    make('eventA', 'markets', { eventIds: new Set(['a']) }),
    make('eventB', 'markets', { eventIds: new Set(['b']) }),
    make('scores', 'scores', {}),
  ];
  for (const s of subs) index.add(s);
  const seen: string[] = [];
  const [frame] = framesOf(
    [priceRow(1, 'a', { price: '120', previous: '115', change: 'price_change' })],
    SIMULATOR_CATALOG,
  );
  index.visit(frame!, (sub) => seen.push(sub.id));
  assert.deepEqual(seen.sort(), ['all', 'eventA', 'sport4']);
  index.remove(subs[1]!);
  seen.length = 0;
  index.visit(frame!, (sub) => seen.push(sub.id));
  assert.deepEqual(seen.sort(), ['all', 'eventA']);
  assert.equal(index.size, 5);
});

test('stream settings are validated at start', () => {
  assert.throws(() => resolveServeConfig({ streamTransport: 'tunnel' }, {}), ConfigError);
  assert.throws(() => resolveServeConfig({ tlsCertFile: '/nonexistent/cert.pem' }, {}), ConfigError);
  assert.throws(() => resolveServeConfig({ limits: { streamQueueMessages: 0 } }, {}), ConfigError);
  const c = resolveServeConfig({}, { STREAM_HEARTBEAT_MS: '500' });
  assert.equal(c.limits.streamHeartbeatMs, 500);
  assert.equal(c.limits.streamQueueMessages, 1024);
  assert.equal(c.streamTransport, 'direct');
});
