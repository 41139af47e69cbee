import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { CursorError } from '../../src/board/change-feed.ts';
import { BURST_FACTOR } from '../../src/stream/connection.ts';
import { batch, creditPlay, nbaEvent, nbaPrices, price, score, today } from '../helpers/fixtures.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { connect, refusal, type TestSocket } from '../helpers/ws-client.ts';

/**
 * /api/v2/ws: the subscription lifecycle (subscribed, snapshot frames, snapshot_complete, deltas,
 * unsubscribed), each in-band error code, the overflow close, conflation, the plan's caps, resume
 * from a position, the stats and plays channels, stream tokens and the usage action.
 */
const E1 = 'f1'.repeat(16);
const E2 = 'f2'.repeat(16);
const QUEUE = 16;
const RESUME_MAX = 200;

let s: TestServer;
let ultra: string;
let wsUrl: string;
const at = () => new Date().toISOString();

before(async () => {
  s = await startTestServer({ limits: { streamQueueMessages: QUEUE, streamResumeMaxChanges: RESUME_MAX } });
  ultra = await s.newKey('ultra');
  wsUrl = `${s.url.replace('http', 'ws')}/api/v2/ws`;
  await s.server.ledger.apply(
    batch(at(), [
      { kind: 'event', event: nbaEvent(E1) },
      { kind: 'event', event: nbaEvent(E2) },
      ...nbaPrices(E1),
      ...nbaPrices(E2),
    ]),
  );
});

after(() => s.close());

/** The test server's Enterprise key: no burst ceiling in reach (an upgrade counts as a request). */
const open = (key = s.key) => connect(wsUrl, { 'X-Service-Key': key });
const ml = (eventId: string, aff: number, p: number, participant = 2002) =>
  price(eventId, { market_id: 1, participant_id: participant, affiliate_id: aff, price: p });
const apply = (...updates: Parameters<typeof batch>[1]) => s.server.ledger.apply(batch(at(), updates));

async function subscribe(c: TestSocket, id: string, channel: string, params: Record<string, unknown> = {}) {
  c.send({ action: 'subscribe', id, channel, params });
  return c.next((m) => m.id === id && (m.type === 'subscribed' || m.type === 'error'));
}

describe('the subscription lifecycle', () => {
  test('subscribed, one snapshot frame per event with its scope, snapshot_complete, then deltas from sub_sequence 1', async () => {
    const c = await open();
    const ack = await subscribe(c, 'm1', 'markets', { event_ids: [E1], snapshot: true, market_ids: '1' });
    assert.equal(ack.type, 'subscribed');
    assert.deepEqual(ack.params.market_ids.sort(), [1, 41]);
    const snap = await c.next();
    assert.equal(snap.type, 'snapshot');
    assert.equal(snap.id, 'm1');
    assert.equal(snap.event_id, E1);
    assert.deepEqual(snap.scope, { requested_market_ids: [1, 41], returned_market_ids: [1] });
    assert.equal(snap.data.event_id, E1);
    assert.equal(snap.data.markets[0].market_id, 1);
    const done = await c.next();
    assert.equal(done.type, 'snapshot_complete');
    assert.equal(done.frames, 1);
    assert.deepEqual(done.position, ack.position, 'nothing was committed in between');
    await apply(ml(E1, 19, 125), ml(E2, 19, 125), ml(E1, 23, 126));
    const d1 = await c.next();
    const d2 = await c.next();
    assert.equal(d1.type, 'delta');
    assert.equal(d1.kind, 'market_price');
    assert.deepEqual([d1.sub_sequence, d2.sub_sequence], [1, 2]);
    assert.equal(d1.data.price, '125');
    assert.equal(d2.data.price, '126');
    assert.ok(d2.position.id > d1.position.id && d1.position.id > done.position.id);
    assert.equal(d1.position.epoch, s.server.ledger.position.epoch);
    await c.close();
  });

  test('a sport and date scope snapshots that day’s events; main_line: true carries main lines only', async () => {
    const c = await open();
    await subscribe(c, 'day', 'markets', {
      sport_ids: [4],
      date: today(),
      snapshot: true,
      main_line: true,
      market_ids: [2],
    });
    const frames = [await c.next(), await c.next()];
    assert.deepEqual(frames.map((f) => f.event_id).sort(), [E1, E2].sort());
    for (const f of frames) {
      for (const p of f.data.markets[0].participants) {
        for (const line of p.lines)
          for (const pr of Object.values(line.prices) as any[]) assert.equal(pr.is_main_line, true);
      }
    }
    assert.equal((await c.next()).type, 'snapshot_complete');
    await apply(
      price(E1, { market_id: 2, participant_id: 2014, affiliate_id: 19, line: '-4.5', price: 100 }),
      price(E1, { market_id: 2, participant_id: 2014, affiliate_id: 19, line: '-3.5', price: -105 }),
    );
    const d = await c.next();
    assert.equal(d.data.line, '-3.5', 'the alternate line’s move is neither delivered nor metered');
    await c.close();
  });

  test('unsubscribe: unsubscribed, and no more deltas', async () => {
    const c = await open();
    await subscribe(c, 'u', 'markets', { event_ids: E2 });
    c.send({ action: 'unsubscribe', id: 'u' });
    assert.deepEqual(await c.next(), { type: 'unsubscribed', id: 'u' });
    await apply(ml(E2, 19, 131));
    assert.deepEqual(await c.collect(100), []);
    await c.close();
  });

  test('a fresh snapshot on an existing subscription', async () => {
    const c = await open();
    await subscribe(c, 'again', 'scores', { event_ids: [E1] });
    c.send({ action: 'snapshot', id: 'again' });
    const snap = await c.next();
    assert.equal(snap.type, 'snapshot');
    assert.equal(snap.data.event_id, E1);
    assert.equal((await c.next()).type, 'snapshot_complete');
    await c.close();
  });
});

describe('in-band errors', () => {
  test('each code: bad_request, unknown_channel, duplicate_id, unknown_subscription, forbidden', async () => {
    const c = await open();
    c.send('not json');
    assert.equal((await c.next()).code, 'bad_request');
    c.send({ action: 'dance', id: 'x' });
    assert.deepEqual(await c.next(), {
      type: 'error',
      id: 'x',
      code: 'bad_request',
      message: 'action must be subscribe, unsubscribe, snapshot, resync or usage',
    });
    assert.equal((await subscribe(c, 'x', 'weather')).code, 'unknown_channel');
    assert.equal((await subscribe(c, 'x', 'markets', { sport_ids: 'four' })).code, 'bad_request');
    await subscribe(c, 'x', 'markets');
    assert.equal((await subscribe(c, 'x', 'scores')).code, 'duplicate_id');
    c.send({ action: 'unsubscribe', id: 'nope' });
    assert.equal((await c.next()).code, 'unknown_subscription');
    const old = await subscribe(c, 'old', 'scores', { sport_ids: [4], date: '2001-01-01' });
    assert.equal(old.code, 'forbidden', 'a date outside the history window');
    assert.equal(c.ws.readyState, c.ws.OPEN, 'errors leave the connection open');
    await c.close();
  });

  test('snapshot errors: stats unsupported_snapshot, no scope unbounded_scope, futures with a date invalid_scope', async () => {
    const c = await open();
    const cases: [string, Record<string, unknown>, string][] = [
      ['stats', { event_ids: [E1], snapshot: true }, 'unsupported_snapshot'],
      ['markets', { sport_ids: [4], snapshot: true }, 'unbounded_scope'],
      ['plays', { sport_ids: [4], date: today(), snapshot: true }, 'unbounded_scope'],
      ['futures', { sport_ids: [4], date: today(), snapshot: true }, 'invalid_scope'],
    ];
    for (const [i, [channel, params, code]] of cases.entries()) {
      assert.equal((await subscribe(c, `s${i}`, channel, params)).type, 'subscribed');
      const e = await c.next();
      assert.equal(e.type, 'snapshot_error', channel);
      assert.equal(e.code, code, channel);
    }
    await c.close();
  });
});

describe('slow consumers', () => {
  const props = (n: number, base: number) =>
    Array.from({ length: n }, (_, i) =>
      price(E2, {
        market_id: 29,
        participant_id: 201401,
        participant_type: 'TYPE_PLAYER',
        affiliate_id: 19,
        line: String(20 + (i % 4)),
        price: base + i,
      }),
    );

  test('past the queue: an error first, then close with buffer_overflow:reconnect_and_catchup', async () => {
    const c = await open();
    await subscribe(c, 'slow', 'markets', { event_ids: [E2], market_ids: [29] });
    // More in one turn than even a reading client's queue holds (BURST_FACTOR queues).
    await apply(...props(QUEUE * BURST_FACTOR + 10, -200));
    const closed = await c.closed;
    assert.deepEqual(closed, { code: 1013, reason: 'buffer_overflow:reconnect_and_catchup' });
    const err = c.messages.find((m) => m.type === 'error');
    assert.equal(err.code, 'buffer_overflow');
    assert.equal(err.id, 'slow');
  });

  test('conflate: true keeps the latest price per line and book, flagged conflated', async () => {
    const c = await open();
    await subscribe(c, 'fast', 'markets', { event_ids: [E2], market_ids: [29], conflate: true });
    const n = QUEUE * BURST_FACTOR + 10;
    await apply(...props(n, -300));
    const got = await c.collect(300);
    assert.equal(c.ws.readyState, c.ws.OPEN);
    const plain = got.filter((m) => !m.conflated);
    const conflated = got.filter((m) => m.conflated);
    assert.equal(plain.length, QUEUE * BURST_FACTOR);
    assert.equal(conflated.length, 4, 'one per line (4 lines) of the 10 that did not fit');
    for (const m of conflated) {
      const last = props(n, -300)
        .filter((p) => p.line === m.data.line)
        .at(-1)!;
      assert.equal(m.data.price, String(last.price));
    }
    assert.deepEqual(
      got.map((m) => m.sub_sequence),
      got.map((_, i) => i + 1),
      'sub_sequence stays gapless',
    );
    await c.close();
  });
});

describe('limits', () => {
  test('connections past the plan’s cap: 429 WebSocket connection limit reached', async () => {
    const key = await s.newKey('ultra');
    const sockets = await Promise.all(Array.from({ length: 5 }, () => open(key)));
    const r = await refusal(wsUrl, { 'X-Service-Key': key });
    assert.equal(r.status, 429);
    assert.equal(r.body.error, 'WebSocket connection limit reached');
    assert.equal(r.body.limit, 5);
    assert.ok(r.headers['retry-after']);
    await sockets[0]!.close();
    await new Promise((res) => setTimeout(res, 50));
    const again = await open(key);
    await Promise.all([again, ...sockets.slice(1)].map((c) => c.close()));
  });

  test('subscriptions past the plan’s cap per connection: subscription_limit', async () => {
    const c = await open(ultra);
    for (let i = 0; i < 50; i++) c.send({ action: 'subscribe', id: `n${i}`, channel: 'scores' });
    assert.equal((await subscribe(c, 'n50', 'scores')).code, 'subscription_limit');
    await c.close();
  });

  test('a low tier is refused at the upgrade; the multiplexed endpoint takes no key query parameter', async () => {
    assert.equal((await refusal(wsUrl, { 'X-Service-Key': await s.newKey('starter') })).status, 403);
    assert.equal((await refusal(`${wsUrl}?key=${ultra}`)).status, 401);
  });

  test('deltas are metered: one point per price message; usage replies are free', async () => {
    const key = await s.newKey('ultra');
    const c = await open(key);
    await subscribe(c, 'm', 'markets', { event_ids: [E1], market_ids: [1] });
    c.send({ action: 'usage', id: 'u1' });
    const u1 = await c.next((m) => m.type === 'usage');
    await apply(ml(E1, 19, 140), ml(E1, 23, 141), ml(E1, 19, 142));
    for (let i = 0; i < 3; i++) await c.next((m) => m.type === 'delta');
    c.send({ action: 'usage', id: 'u2' });
    const u2 = await c.next((m) => m.type === 'usage');
    assert.equal(u2.used - u1.used, 3);
    assert.equal(u2.tier, 'Ultra');
    assert.equal(u2.connection_limit, 5);
    await c.close();
  });
});

test('a stats frame matching both a stats and a live subscription is delivered to both and billed once', async () => {
  const key = await s.newKey('ultra');
  const c = await open(key);
  await subscribe(c, 'st', 'stats', { event_ids: [E2] });
  await subscribe(c, 'lv', 'live', { event_ids: [E2] });
  c.send({ action: 'usage', id: 'u1' });
  const u1 = await c.next((m) => m.type === 'usage');
  await apply(
    { kind: 'score', event_id: E2, score: score(E2, 'STATUS_IN_PROGRESS', 2, 0) },
    { kind: 'play', event_id: E2, play: creditPlay(2002, 200202, 'points', 2, { away: 2, home: 0 }) },
  );
  await c.next((m) => m.id === 'lv' && m.kind === 'game_stats');
  const stats = c.messages.find((m) => m.id === 'st' && m.type === 'delta');
  const rows = stats.data.team_stats.length + stats.data.player_stats.length;
  const onLive = c.messages.filter((m) => m.id === 'lv' && m.type === 'delta');
  assert.deepEqual(
    onLive.map((m) => m.kind),
    ['live', 'play', 'game_stats'],
  );
  assert.deepEqual(onLive[2].data, stats.data);
  c.send({ action: 'usage', id: 'u2' });
  const u2 = await c.next((m) => m.type === 'usage');
  assert.equal(rows, 2, 'the player’s points and the team’s');
  assert.equal(u2.used - u1.used, 1 + 1 + rows, 'the score, the play, and each stat row once');
  await c.close();
});

describe('resume', () => {
  test('resume_from the last position replays exactly the missed deltas, then resume_complete, then live', async () => {
    const c = await open();
    await subscribe(c, 'r', 'markets', { event_ids: [E1], market_ids: [1] });
    await apply(ml(E1, 19, 150));
    const last = await c.next();
    await c.close();
    await apply(ml(E1, 19, 151), ml(E2, 19, 151));
    await apply(ml(E1, 23, 152));
    await apply(price(E1, { market_id: 3, participant_id: 0, affiliate_id: 19, line: '221.5', price: -101 }));
    const again = await open();
    const ack = await subscribe(again, 'r', 'markets', {
      event_ids: [E1],
      market_ids: [1],
      resume_from: last.position,
    });
    assert.equal(ack.type, 'subscribed');
    await apply(ml(E1, 23, 153));
    const replayed = [await again.next(), await again.next()];
    assert.deepEqual(
      replayed.map((m) => m.data.price),
      ['151', '152'],
    );
    const done = await again.next();
    assert.equal(done.type, 'resume_complete');
    assert.equal(done.replayed, 2);
    assert.ok(done.position.id > replayed[1].position.id);
    const live = await again.next();
    assert.equal(live.data.price, '153', 'the live delta held during the replay follows it');
    assert.deepEqual(
      [...replayed, live].map((m) => m.sub_sequence),
      [1, 2, 3],
    );
    await again.close();
  });

  test('another epoch, or further back than the server replays: snapshot_error snapshot_required', async () => {
    const c = await open();
    const head = s.server.ledger.position;
    const quiet = { event_ids: [E1], market_ids: [94] };
    await subscribe(c, 'e', 'markets', { ...quiet, resume_from: { id: head.id, epoch: 'another-log' } });
    assert.equal((await c.next()).code, 'snapshot_required');
    await apply(...Array.from({ length: RESUME_MAX + 5 }, (_, i) => ml(E2, 23, 200 + i)));
    await subscribe(c, 'w', 'markets', { ...quiet, resume_from: head });
    const e = await c.next();
    assert.equal(e.type, 'snapshot_error');
    assert.equal(e.code, 'snapshot_required');
    await c.close();
  });

  test('a replay that retention overtook (rows removed while they were read): snapshot_required', async (t) => {
    const c = await open();
    const from = s.server.ledger.position;
    await apply(ml(E1, 19, 170));
    const feed = s.server.services.feed;
    const read = feed.read.bind(feed);
    feed.read = () => Promise.reject(new CursorError('the changes after 1 were compacted while this page was read'));
    t.after(() => {
      feed.read = read;
    });
    await subscribe(c, 'x', 'markets', { event_ids: [E1], market_ids: [1], resume_from: from });
    const e = await c.next((m) => m.type === 'snapshot_error');
    assert.equal(e.code, 'snapshot_required');
    assert.match(e.message, /compacted/);
    await c.close();
  });
});

describe('resync', () => {
  test('resync with resume_from: resync_ack, the missed deltas, resume_complete; without: a fresh snapshot', async () => {
    const c = await open();
    await subscribe(c, 'rs', 'markets', { event_ids: [E1], market_ids: [1] });
    await apply(ml(E1, 19, 160));
    const seen = await c.next();
    await apply(ml(E1, 19, 161));
    await c.next();
    c.send({ action: 'resync', id: 'rs', resume_from: seen.position });
    assert.equal((await c.next()).type, 'resync_ack');
    const again = await c.next();
    assert.equal(again.data.price, '161', 'the delta after the position, sent again');
    assert.equal((await c.next()).type, 'resume_complete');
    c.send({ action: 'resync', id: 'rs' });
    assert.equal((await c.next()).type, 'resync_ack');
    const snap = await c.next();
    assert.equal(snap.type, 'snapshot');
    assert.equal(snap.event_id, E1);
    assert.equal((await c.next()).type, 'snapshot_complete');
    await c.close();
  });
});

describe('scores, live, plays and stats', () => {
  test('scores carry every score row; game_state only the rows that move the live state', async () => {
    const c = await open();
    await subscribe(c, 'sc', 'scores', { event_ids: [E2] });
    await subscribe(c, 'gs', 'game_state', { event_ids: [E2] });
    await apply({ kind: 'score', event_id: E2, score: score(E2, 'STATUS_IN_PROGRESS', 4, 0) });
    await apply({
      kind: 'score',
      event_id: E2,
      score: score(E2, 'STATUS_IN_PROGRESS', 4, 2),
      live_game_state: { possession: 'home' },
    });
    await c.collect(150);
    const deltas = c.messages.filter((m) => m.type === 'delta');
    assert.deepEqual(
      deltas.map((m) => [m.id, m.kind]),
      [
        ['sc', 'score'],
        ['sc', 'score'],
        ['gs', 'live_game_state'],
      ],
    );
    assert.equal(deltas[1].data.score.score_home, 2);
    assert.deepEqual(deltas[2].data, { event_id: E2, sport_id: 4, live_game_state: { possession: 'home' } });
    await c.close();
  });

  test('plays snapshot with its cursor; a play and its stat rows as deltas; the completion marker', async () => {
    await apply(
      {
        kind: 'score',
        event_id: E1,
        score: score(E1, 'STATUS_IN_PROGRESS', 0, 0),
        live_game_state: { possession: 'away' },
      },
      { kind: 'play', event_id: E1, play: creditPlay(2002, 200201, 'points', 2, { away: 2, home: 0 }) },
    );
    const c = await open();
    await subscribe(c, 'p', 'plays', { event_ids: [E1], snapshot: true });
    const snap = await c.next();
    assert.equal(snap.type, 'snapshot');
    assert.deepEqual(snap.cursor, { oldest_sequence: 1, newest_sequence: 1 });
    assert.equal(snap.data[0].sequence, 1);
    assert.equal((await c.next()).type, 'snapshot_complete');
    await subscribe(c, 'st', 'stats', { event_ids: [E1] });
    await subscribe(c, 'lv', 'live', { event_ids: [E1], snapshot: true });
    const live = await c.next((m) => m.id === 'lv');
    assert.equal(live.data.event_status, 'STATUS_IN_PROGRESS');
    assert.deepEqual(live.data.live_game_state, { possession: 'away' });
    await c.next((m) => m.id === 'lv' && m.type === 'snapshot_complete');
    await apply(
      { kind: 'play', event_id: E1, play: creditPlay(2014, 201401, 'points', 3, { away: 2, home: 3 }) },
      { kind: 'score', event_id: E1, score: score(E1, 'STATUS_FINAL', 2, 3) },
    );
    const play = await c.next((m) => m.id === 'p');
    assert.equal(play.kind, 'play');
    assert.equal(play.data.sequence, 2);
    assert.equal(play.sub_sequence, 1);
    const stats = await c.next((m) => m.id === 'st');
    assert.equal(stats.kind, 'game_stats');
    const values = stats.data.player_stats
      .flatMap((p: any) => p.stats)
      .concat(stats.data.team_stats.flatMap((t: any) => t.stats));
    assert.ok(values.length >= 2, 'the player’s and the team’s points');
    assert.ok(values.every((v: any) => typeof v.value === 'string' && Number.isInteger(v.stat_id)));
    const marker = await c.next((m) => m.id === 'st');
    assert.equal(marker.data.complete, true);
    assert.equal(marker.data.event_id, E1);
    assert.equal('team_stats' in marker.data, false);
    await c.collect(100);
    const liveKinds = c.messages.filter((m) => m.id === 'lv' && m.type === 'delta').map((m) => m.kind);
    assert.deepEqual(liveKinds, ['play', 'game_stats', 'live', 'game_stats']);
    await c.close();
  });

  test('futures: one snapshot frame per sport', async () => {
    const board = 'ab'.repeat(16);
    await apply(
      {
        kind: 'futures_board',
        board: {
          event_id: board,
          sport_id: 4,
          name: 'Champion',
          season_year: 2026,
          starts_at: '2026-11-01T00:00:00Z',
          ends_at: '2027-06-30T00:00:00Z',
          markets: [
            {
              market_id: 1140,
              name: 'Championship Winner',
              participants: [{ id: 2002, name: 'Boston', type: 'TYPE_TEAM', team_id: 2002 }],
            },
          ],
        },
      },
      { kind: 'futures_price', event_id: board, market_id: 1140, participant_id: 2002, affiliate_id: 19, price: 450 },
    );
    const c = await open();
    await subscribe(c, 'fu', 'futures', { sport_ids: [4, 3], snapshot: true });
    const a = await c.next();
    const b = await c.next();
    assert.deepEqual([a.sport_id, b.sport_id], [4, 3]);
    assert.equal(a.data.futures[0].event_id, board);
    assert.deepEqual(b.data.futures, []);
    assert.equal((await c.next()).type, 'snapshot_complete');
    await apply({
      kind: 'futures_price',
      event_id: board,
      market_id: 1140,
      participant_id: 2002,
      affiliate_id: 19,
      price: 400,
    });
    const d = await c.next();
    assert.equal(d.kind, 'futures_price');
    assert.equal(d.data.price, 400);
    await c.close();
  });
});

test('a stream token from POST /api/v2/ws/token opens one connection, once', async () => {
  const res = await fetch(`${s.url}/api/v2/ws/token`, { method: 'POST', headers: { 'X-Service-Key': s.key } });
  assert.equal(res.status, 200);
  const { token, expires_at } = (await res.json()) as { token: string; expires_at: string };
  assert.ok(Date.parse(expires_at) > Date.now());
  const c = await connect(`${wsUrl}?token=${token}`);
  await c.close();
  assert.equal((await refusal(`${wsUrl}?token=${token}`)).status, 401);
  const pro = await fetch(`${s.url}/api/v2/ws/token`, {
    method: 'POST',
    headers: { 'X-Service-Key': await s.newKey('pro') },
  });
  assert.equal(pro.status, 403);
});

describe('snapshots in turn, more filters, the live_game_state channel, plays resumed by sequence', () => {
  const E3 = 'f3'.repeat(16);
  const E4 = 'f4'.repeat(16);
  const total = (eventId: string, side: 0 | 1, p: number) =>
    price(eventId, { market_id: 3, participant_id: side, affiliate_id: 19, line: '220.5', price: p });
  const play = (n: number) => ({
    kind: 'play' as const,
    event_id: E3,
    play: creditPlay(2002, 200201, 'points', 2, { away: 2 * n, home: 0 }),
  });

  before(async () => {
    await apply(
      { kind: 'event', event: nbaEvent(E3) },
      { kind: 'event', event: nbaEvent(E4) },
      ...nbaPrices(E3),
      ...nbaPrices(E4),
    );
    await apply(total(E3, 0, -110), total(E3, 1, -110));
    await apply(
      { kind: 'score', event_id: E3, score: score(E3, 'STATUS_IN_PROGRESS', 0, 0) },
      play(1),
      play(2),
      play(3),
    );
  });

  test('a snapshot or resync asked while another runs waits its turn and is honoured, never refused', async () => {
    const c = await open();
    // In one TCP write, so the server reads the three in one go: the subscribe's snapshot is still
    // running when the next two are handled.
    const socket = (c.ws as unknown as { _socket: import('node:net').Socket })._socket;
    socket.cork();
    c.ws.send(
      JSON.stringify({
        action: 'subscribe',
        id: 'turns',
        channel: 'scores',
        params: { event_ids: [E3], snapshot: true },
      }),
    );
    c.ws.send(JSON.stringify({ action: 'snapshot', id: 'turns' }));
    c.ws.send(JSON.stringify({ action: 'resync', id: 'turns' }));
    socket.uncork();
    const completes: any[] = [];
    while (completes.length < 3) {
      const m = await c.next((x) => x.id === 'turns');
      assert.notEqual(m.type, 'error', JSON.stringify(m));
      if (m.type === 'snapshot_complete') completes.push(m);
    }
    const mine = c.messages.filter((m) => m.id === 'turns');
    assert.equal(mine.filter((m) => m.type === 'resync_ack').length, 1);
    assert.equal(mine.filter((m) => m.type === 'snapshot').length, 3, 'one frame per snapshot');
    await apply({ kind: 'score', event_id: E3, score: score(E3, 'STATUS_IN_PROGRESS', 7, 0) });
    const delta = await c.next((m) => m.id === 'turns');
    assert.equal(delta.type, 'delta');
    assert.equal(delta.sub_sequence, 1);
    await c.close();
  });

  test('participant_type narrows market rows and snapshot participants', async () => {
    const c = await open();
    const ack = await subscribe(c, 'res', 'markets', {
      event_ids: [E3],
      market_ids: [1, 3],
      participant_type: 'TYPE_RESULT',
      snapshot: true,
    });
    assert.equal(ack.params.participant_type, 'TYPE_RESULT');
    const snap = await c.next();
    const types = snap.data.markets.flatMap((m: any) => m.participants.map((p: any) => p.type));
    assert.ok(types.length > 0);
    assert.deepEqual([...new Set(types)], ['TYPE_RESULT']);
    await c.next((m) => m.type === 'snapshot_complete');
    await apply(ml(E3, 19, 170), total(E3, 0, -115));
    const delta = await c.next((m) => m.id === 'res');
    assert.equal(delta.data.market_id, 3);
    assert.deepEqual(await c.collect(100), []);
    await c.close();
  });

  test('event_status narrows snapshots and deltas to events of those statuses', async () => {
    const c = await open();
    await subscribe(c, 'live-only', 'scores', {
      sport_ids: [4],
      date: today(),
      event_status: 'STATUS_IN_PROGRESS',
      snapshot: true,
    });
    const frames: any[] = [];
    for (let m = await c.next(); m.type !== 'snapshot_complete'; m = await c.next()) frames.push(m);
    assert.ok(frames.length > 0);
    assert.ok(
      frames.every((f) => f.data.score?.event_status === 'STATUS_IN_PROGRESS'),
      JSON.stringify(frames),
    );
    assert.ok(frames.some((f) => f.event_id === E3));
    await apply({ kind: 'score', event_id: E4, score: score(E4, 'STATUS_SCHEDULED', 0, 0) });
    await apply({ kind: 'score', event_id: E3, score: score(E3, 'STATUS_IN_PROGRESS', 9, 0) });
    const delta = await c.next((m) => m.id === 'live-only');
    assert.equal(delta.data.event_id, E3);
    assert.deepEqual(await c.collect(100), []);
    await c.close();
  });

  test('limit bounds a plays snapshot; each new parameter refuses what it cannot take', async () => {
    const c = await open();
    await subscribe(c, 'two', 'plays', { event_ids: [E3], snapshot: true, limit: 2 });
    const snap = await c.next();
    assert.deepEqual(snap.cursor, { oldest_sequence: 2, newest_sequence: 3 });
    assert.deepEqual(snap.data.map((p: any) => p.sequence).sort(), [2, 3]);
    const refused: [string, Record<string, unknown>][] = [
      ['plays', { event_ids: [E3], limit: 501 }],
      ['markets', { event_ids: [E3], limit: 5 }],
      ['scores', { event_ids: [E3], participant_type: 'TYPE_TEAM' }],
      ['markets', { event_ids: [E3], participant_type: 'TYPE_X' }],
      ['scores', { event_ids: [E3], event_status: 'STATUS_WHENEVER' }],
      ['futures', { sport_ids: [4], event_status: 'STATUS_FINAL' }],
    ];
    for (const [i, [channel, params]] of refused.entries()) {
      const answer = await subscribe(c, `bad${i}`, channel, params);
      assert.equal(answer.code, 'bad_request', `${channel} ${JSON.stringify(params)}`);
    }
    await c.close();
  });

  test('live_game_state is the live-state channel; game_state stays its twin', async () => {
    const c = await open();
    await subscribe(c, 'lgs', 'live_game_state', { event_ids: [E3], snapshot: true });
    const snap = await c.next();
    assert.equal(snap.channel, 'live_game_state');
    await c.next((m) => m.type === 'snapshot_complete');
    await subscribe(c, 'gs2', 'game_state', { event_ids: [E3] });
    await apply({
      kind: 'score',
      event_id: E3,
      score: score(E3, 'STATUS_IN_PROGRESS', 9, 2),
      live_game_state: { possession: 'away' },
    });
    const a = await c.next((m) => m.id === 'lgs');
    const b = await c.next((m) => m.id === 'gs2');
    assert.deepEqual(
      [a.channel, a.kind, b.channel, b.kind],
      ['live_game_state', 'live_game_state', 'game_state', 'live_game_state'],
    );
    assert.deepEqual(a.data, b.data);
    await c.close();
  });

  test('resume: {plays: {event: sequence}} sends the plays after it, then resume_complete with cursors, then live plays', async () => {
    const c = await open();
    const ack = await subscribe(c, 'rp', 'plays', { event_ids: [E3], resume: { plays: { [E3]: 1 } } });
    assert.equal(ack.type, 'subscribed');
    const missed = await c.next();
    assert.equal(missed.event_id, E3);
    assert.equal(missed.resumed_after, 1);
    assert.deepEqual(missed.cursor, { oldest_sequence: 2, newest_sequence: 3 });
    assert.deepEqual(missed.data.map((p: any) => p.sequence).sort(), [2, 3]);
    const done = await c.next();
    assert.equal(done.type, 'resume_complete');
    assert.deepEqual(done.cursors, { plays: { [E3]: 3 } });
    assert.equal(done.replayed, 2);
    assert.ok(done.position.id > 0);
    await apply(play(4));
    const live = await c.next((m) => m.id === 'rp');
    assert.equal(live.type, 'delta');
    assert.equal(live.data.sequence, 4);
    // A position resume on the plays channel carries the cursors too.
    await subscribe(c, 'rp2', 'plays', { event_ids: [E3], resume_from: done.position });
    const replayed = await c.next((m) => m.id === 'rp2');
    assert.equal(replayed.data.sequence, 4);
    const complete = await c.next((m) => m.id === 'rp2');
    assert.equal(complete.type, 'resume_complete');
    assert.deepEqual(complete.cursors, { plays: { [E3]: 4 } });
    // Ahead of the event's plays: the client must take a snapshot.
    await subscribe(c, 'rp3', 'plays', { event_ids: [E3], resume: { plays: { [E3]: 99 } } });
    const refused = await c.next((m) => m.id === 'rp3');
    assert.deepEqual([refused.type, refused.code], ['snapshot_error', 'snapshot_required']);
    await c.close();
  });
});
