import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { CatalogRecord } from '../../src/catalog/records.ts';
import type { Update } from '../../src/ledger/updates.ts';
import { nbaEvent, nbaPrices, PICKLEBALL_STATS, price, score } from '../helpers/fixtures.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { startTcpRelay, type TcpRelay } from '../helpers/tcp-relay.ts';
import { connect } from '../helpers/ws-client.ts';

/**
 * The mirror following its upstream's WebSocket stream, against second oddsbase servers on
 * loopback fed through their ledgers: a price changed upstream reaches the mirror's REST and a
 * stream client of the mirror; an upstream that refuses streams is polled, said once in the log;
 * a stream that breaks is polled meanwhile and followed again; the upstream's own catalog (a sport,
 * a book, a market, teams and a roster the simulator does not have) is the mirror's.
 */

const E1 = 'mst0000000000000000000000000001';
const E2 = 'mst0000000000000000000000000002';
const MINUTE = 60_000;

/** A catalog the simulator's tables do not have. */
const CATALOG: CatalogRecord[] = [
  {
    type: 'sport',
    sport_id: 60,
    sport_name: 'Pro Pickleball',
    discipline: 'tennis',
    season_type: 'Regular Season',
    three_way: false,
    futures_only: false,
  },
  {
    type: 'book',
    affiliate_id: 77,
    affiliate_name: 'Feedbook',
    affiliate_url: 'https://feedbook.example',
    status: 'healthy',
    regions: ['us'],
  },
  {
    type: 'market',
    id: 9001,
    name: 'Dink Count',
    description: 'Dinks in the match',
    short_description: 'Dinks',
    line_value_is_participant: false,
    proposition: false,
    period_id: 0,
    updated_at: '2026-11-01T00:00:00.000Z',
  },
  ...[990001, 990002].map((team_id, i): CatalogRecord => ({
    type: 'team',
    team_id,
    name: ['Harbor', 'Canyon'][i]!,
    mascot: 'Dinks',
    abbreviation: ['HBD', 'CYD'][i]!,
    conference: 'East',
    division: 'North',
    venue_name: 'Court 1',
    venue_location: 'Austin, TX',
  })),
  {
    type: 'roster',
    team_id: 990001,
    players: [
      {
        player_id: 99000101,
        name: 'Ana Lobo',
        first_name: 'Ana',
        last_name: 'Lobo',
        position: 'Singles',
        jersey_number: '7',
      },
    ],
  },
  { type: 'roster', team_id: 990002, players: [] },
  PICKLEBALL_STATS,
  { type: 'league', league_key: 'ppl', league_name: 'PPL', sport_ids: [60], team_ids: [990001, 990002] },
];

/** An upstream fed through its ledger: the catalog above and two games of today, ten minutes old. */
async function upstreamServer(opts: { streamTransport?: 'proxy' } = {}): Promise<TestServer> {
  const s = await startTestServer({ feed: 'ingest', ...opts });
  const updates: Update[] = [
    ...CATALOG.map((record): Update => ({ kind: 'catalog', record })),
    ...[E1, E2].flatMap((id): Update[] => [{ kind: 'event', event: nbaEvent(id) }, ...nbaPrices(id)]),
  ];
  await s.server.services.ledger.apply({ at: new Date(Date.now() - 10 * MINUTE).toISOString(), updates });
  return s;
}

/** Moves one moneyline price upstream, at `at`. */
async function move(s: TestServer, eventId: string, book: number, to: number, at = new Date()): Promise<void> {
  const p = price(eventId, {
    market_id: 1,
    participant_id: 2002,
    participant_name: 'Boston',
    affiliate_id: book,
    price: to,
  });
  await s.server.services.ledger.apply({ at: at.toISOString(), updates: [p] });
}

async function until<T>(what: string, probe: () => Promise<T | undefined> | T | undefined, ms = 120_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const ready = async (s: TestServer) =>
  until(`${s.url} to be ready`, async () => ((await s.get('/readyz', {})).status === 200 ? true : undefined));

const mirrorOf = (s: TestServer) => s.server.services.mirror!;

/** The log lines of a server that say `text`. */
const said = (s: TestServer, text: string) => s.logs.filter((l) => l.includes(text));

/** The Boston moneyline at `book` on a server's REST. */
async function moneyline(s: TestServer, eventId: string, book: number): Promise<number | undefined> {
  const r = await s.get(`/api/v2/events/${eventId}?market_ids=1`);
  const ml = r.body.events?.[0]?.markets.find((m: { market_id: number }) => m.market_id === 1);
  const boston = ml?.participants.find((p: { id: number }) => p.id === 2002);
  return boston?.lines[0]?.prices[String(book)]?.price;
}

/** An answer without the meta that names each log's own cursor. */
function strip(body: any): unknown {
  if (body && typeof body === 'object' && 'meta' in body) {
    const { delta_last_id: _d, epoch: _e, ...meta } = body.meta ?? {};
    return { ...body, meta };
  }
  return body;
}

describe('following the upstream stream', () => {
  let upstream: TestServer;
  let mirror: TestServer;

  before(async () => {
    upstream = await upstreamServer();
    // Polls far apart: within the waits below only the stream can bring a price.
    mirror = await startTestServer({
      upstream: { url: upstream.url, key: upstream.key, pollMs: 60_000, mode: 'stream' },
      logLevel: 'info',
    });
  });
  after(async () => {
    await mirror?.close();
    await upstream?.close();
  });

  test('a price changed upstream reaches the mirror’s REST and a stream client of the mirror', async () => {
    await ready(mirror);
    await until('the mirror to stream', () => (mirrorOf(mirror).state.streaming ? true : undefined), 30_000);
    assert.equal(said(mirror, "following the upstream's stream").length, 1);
    assert.equal(await moneyline(mirror, E1, 19), 130);
    const socket = await connect(`${mirror.url.replace('http', 'ws')}/api/v2/ws/markets?event_ids=${E1}`, {
      'X-Service-Key': mirror.key,
    });
    await move(upstream, E1, 19, 145);
    const frame = await socket.next((m) => m.meta?.type === 'market_price', 20_000);
    assert.equal(frame.data.price, '145');
    assert.equal(frame.data.previous_price, '130');
    assert.equal(frame.data.event_id, E1);
    assert.equal(await moneyline(mirror, E1, 19), 145);
    const path = `/api/v2/events/${E1}?include=all_periods`;
    assert.deepEqual(strip((await mirror.get(path)).body), strip((await upstream.get(path)).body));
    await socket.close();
    assert.equal(mirrorOf(mirror).state.streaming, true);
  });

  test('the upstream’s catalog is the mirror’s: sports, books, markets, stats, teams, rosters, players', async () => {
    await ready(mirror);
    for (const path of [
      '/api/v2/sports',
      '/api/v2/affiliates?include=regions',
      '/api/v2/markets',
      '/api/v2/stats',
      '/api/v2/sports/60/teams',
      '/api/v2/teams/990001',
      '/api/v2/teams/990001/players',
      '/api/v2/players/99000101',
    ]) {
      const [a, b] = await Promise.all([upstream.get(path), mirror.get(path)]);
      assert.equal(a.status, 200, `${path}: ${JSON.stringify(a.body)}`);
      assert.deepEqual(b.body, a.body, path);
    }
    const sports = (await mirror.get('/api/v2/sports')).body.sports;
    assert.ok(sports.some((s: { sport_id: number }) => s.sport_id === 60));
  });
});

test('a game of the upstream’s own sport keeps its box score and season stats on the mirror', async () => {
  const upstream = await upstreamServer();
  const E3 = 'mst0000000000000000000000000003';
  const base = nbaEvent(E3);
  const game: Update[] = [
    {
      kind: 'event',
      event: {
        ...base,
        sport_id: 60,
        teams: [
          { ...base.teams[0]!, team_id: 990002, name: 'Canyon', abbreviation: 'CYD' },
          { ...base.teams[1]!, team_id: 990001, name: 'Harbor', abbreviation: 'HBD' },
        ],
        schedule: { ...base.schedule, league_name: 'PPL' },
      },
    },
    { kind: 'score', event_id: E3, score: score(E3, 'STATUS_IN_PROGRESS', 0, 1) },
    {
      kind: 'play',
      event_id: E3,
      play: {
        period: 1,
        game_clock: 0,
        display_clock: '',
        description: 'Lobo dinks',
        team_id: 990001,
        score_away: 0,
        score_home: 1,
        players: [99000101],
        credits: [{ team_id: 990001, player_id: 99000101, stat: 'dinks', n: 4 }],
        people: [{ id: 99000101, display_name: 'Ana Lobo', position: 'Singles' }],
      },
    },
  ];
  await upstream.server.services.ledger.apply({ at: new Date(Date.now() - MINUTE).toISOString(), updates: game });
  const mirror = await startTestServer({
    upstream: { url: upstream.url, key: upstream.key, pollMs: 300, mode: 'poll' },
  });
  try {
    await ready(mirror);
    const paths = [
      `/api/v2/events/${E3}/stats`,
      `/api/v2/events/${E3}/players/stats`,
      '/api/v2/teams/990001/stats?year=2026',
      '/api/v2/teams/990001/players/stats?year=2026',
    ];
    const [teamBox] = (await upstream.get(paths[0]!)).body.filter((g: any) => g.team.team_id === 990001);
    assert.deepEqual(
      teamBox.stats.map((r: any) => [r.stat_id, r.value]),
      [[60_001, '4']],
    );
    for (const path of paths) {
      const [a, b] = await Promise.all([upstream.get(path), mirror.get(path)]);
      assert.equal(a.status, 200, `${path}: ${JSON.stringify(a.body)}`);
      assert.deepEqual(b.body, a.body, path);
    }
  } finally {
    await mirror.close();
    await upstream.close();
  }
});

/** A player-points prop and a first-half moneyline at the exchange (book 25), with its depth. */
const quietPrices = (eventId: string, depth: number): Update[] => [
  price(eventId, {
    market_id: 29,
    participant_id: 201401,
    participant_type: 'TYPE_PLAYER',
    participant_name: 'Player 201401',
    line: '24.5',
    affiliate_id: 25,
    price: -115,
    is_main_line: true,
    liquidity_usd: depth,
  }),
  price(eventId, {
    market_id: 1,
    period_id: 1,
    participant_id: 2002,
    participant_name: 'Boston',
    affiliate_id: 25,
    price: 120,
    liquidity_usd: depth + 1,
  }),
];

/** What a server shows of the prop and the first-half moneyline of E1, ids and liquidity included. */
async function quietMarkets(s: TestServer): Promise<unknown> {
  const r = await s.get(`/api/v2/events/${E1}?market_ids=1,29&include=all_periods`);
  return r.body.events?.[0]?.markets.filter(
    (m: { market_id: number; period_id: number }) => m.market_id === 29 || m.period_id === 1,
  );
}

for (const mode of ['stream', 'poll'] as const) {
  test(`a change of a prop's or a period's liquidity alone reaches the mirror (${mode})`, async () => {
    const upstream = await upstreamServer();
    await upstream.server.services.ledger.apply({
      at: new Date(Date.now() - 5 * MINUTE).toISOString(),
      updates: quietPrices(E1, 500),
    });
    const mirror = await startTestServer({ upstream: { url: upstream.url, key: upstream.key, pollMs: 300, mode } });
    try {
      await ready(mirror);
      if (mode === 'stream') {
        await until('the mirror to stream', () => (mirrorOf(mirror).state.streaming ? true : undefined), 30_000);
      }
      assert.deepEqual(await quietMarkets(mirror), await quietMarkets(upstream));
      // The quote stays; only the depth moves (the stream sends nothing for it).
      await upstream.server.services.ledger.apply({ at: new Date().toISOString(), updates: quietPrices(E1, 900) });
      const want = await quietMarkets(upstream);
      assert.match(JSON.stringify(want), /"liquidity_usd":900/);
      await until(
        'the new depth on the mirror',
        async () => (JSON.stringify(await quietMarkets(mirror)) === JSON.stringify(want) ? true : undefined),
        30_000,
      );
      if (mode === 'stream') assert.equal(mirrorOf(mirror).state.streaming, true, 'still streaming');
    } finally {
      await mirror.close();
      await upstream.close();
    }
  });
}

test('an upstream that refuses streams is polled, and the log says so once', async () => {
  // Its upgrades need wss:// (a proxy's X-Forwarded-Proto): refused 403, as a plan without streams is.
  const upstream = await upstreamServer({ streamTransport: 'proxy' });
  const mirror = await startTestServer({
    upstream: { url: upstream.url, key: upstream.key, pollMs: 300 },
    logLevel: 'info',
  });
  try {
    await ready(mirror);
    await until('the refusal', () => (said(mirror, 'refuses streams').length > 0 ? true : undefined), 30_000);
    await move(upstream, E2, 23, 155);
    await until('the polled price', async () => ((await moneyline(mirror, E2, 23)) === 155 ? true : undefined), 30_000);
    // Several polls later, still once.
    const polls = mirrorOf(mirror).state.lastSyncMs;
    await until('more polls', () => (mirrorOf(mirror).state.lastSyncMs > polls + 900 ? true : undefined), 30_000);
    assert.equal(said(mirror, 'refuses streams').length, 1);
    assert.equal(said(mirror, "following the upstream's stream").length, 0);
    assert.equal(mirrorOf(mirror).state.streaming, false);
    assert.equal((await mirror.get('/readyz', {})).status, 200);
  } finally {
    await mirror.close();
    await upstream.close();
  }
});

test('a stream that breaks is polled meanwhile, then followed again, with no change missed', async () => {
  const upstream = await upstreamServer();
  const relay: TcpRelay = await startTcpRelay(upstream.url);
  const mirror = await startTestServer({
    upstream: { url: relay.url, key: upstream.key, pollMs: 300 },
    logLevel: 'info',
  });
  try {
    await ready(mirror);
    await until('the mirror to stream', () => (mirrorOf(mirror).state.streaming ? true : undefined), 30_000);
    relay.drop();
    await move(upstream, E1, 23, 160, new Date(Date.now() - 2000));
    relay.restore();
    await move(upstream, E1, 23, 165);
    await until('the moves', async () => ((await moneyline(mirror, E1, 23)) === 165 ? true : undefined), 30_000);
    await until('the stream again', () =>
      said(mirror, "following the upstream's stream").length === 2 ? true : undefined,
    );
    assert.equal(said(mirror, "the upstream's stream broke").length, 1);
    // Both moves are rows of the mirror's log, as upstream: the break lost none.
    const history = `/api/v2/events/${E1}/markets/history?market_ids=1&affiliate_ids=23`;
    const rows = async (s: TestServer) =>
      ((await s.get(history)).body.history as any[])
        .filter((r) => r.market_participant_id === 2002)
        .map((r) => `${r.price} ${r.previous_price} ${r.change_type} ${r.updated_at} ${r.market_line_price_id}`);
    const upstreamRows = await rows(upstream);
    assert.equal(upstreamRows.length, 3);
    assert.deepEqual(await rows(mirror), upstreamRows);
  } finally {
    if (process.env.MIRROR_LOGS) for (const l of mirror.logs) process.stderr.write(l);
    await mirror.close();
    await relay.close();
    await upstream.close();
  }
});
