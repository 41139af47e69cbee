import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { statByName } from '../../src/catalog/stats.ts';
import { nbaEvent, nbaPrices, price, score } from '../helpers/fixtures.ts';
import { type HttpProxy, startHttpProxy } from '../helpers/http-proxy.ts';
import { adminToken, startTestServer, type TestServer } from '../helpers/server.ts';
import { connect, type TestSocket } from '../helpers/ws-client.ts';
import { until } from '../helpers/mirror-compare.ts';

/**
 * The mirror following an oddsbase upstream that takes its data through the ingest API, so each
 * test makes the change it waits for: a price moved upstream reaches the mirror's REST and a stream
 * client of the mirror; the upstream stopped and started again (the mirror says so, keeps serving,
 * then catches up without a hole); burst and cap 429s with Retry-After from a proxy in front; the
 * daily data-point budget; and the upstream's catalog followed (added, changed, removed).
 */

const E1 = 'mir0000000000000000000000000001';
const POLL_MS = 200;
let upstream: TestServer;
let token: string;
/** Each moved price gets its own second, after the seed's: a batch per move, in time order. */
let clock = Date.now() - 3_600_000;
const nextAt = () => new Date((clock += 1000)).toISOString();
let batches = 0;

/** The Boston moneyline at book 19: the price the tests move. */
const moved = (p: number) =>
  price(E1, { market_id: 1, participant_id: 2002, participant_name: 'Boston', affiliate_id: 19, price: p });

async function ingest(records: unknown[]): Promise<void> {
  const res = await fetch(`${upstream.url}/admin/v1/ingest`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify({ batch_id: `mirror-test-${++batches}`, at: nextAt(), records }),
  });
  assert.equal(res.status, 200, await res.text());
}

/** The mirror's price of the moved moneyline, as its event answer shows it. */
async function shownPrice(s: TestServer): Promise<number | undefined> {
  const r = await s.get(`/api/v2/events/${E1}`);
  if (r.status !== 200) return undefined;
  const ml = r.body.events[0]?.markets.find((m: any) => m.market_id === 1 && m.period_id === 0);
  return ml?.participants.find((p: any) => p.id === 2002)?.lines[0]?.prices['19']?.price;
}

const showing = (s: TestServer, p: number) => async () => ((await shownPrice(s)) === p ? true : undefined);

async function readyz(s: TestServer): Promise<{ status: number; body: any }> {
  return s.get('/readyz', {});
}

async function upstreamUp(s: TestServer): Promise<number> {
  const text = await (await fetch(s.server.metricsUrl!)).text();
  const m = /^oddsbase_upstream_up (\d+)$/m.exec(text);
  assert.ok(m, 'the metric oddsbase_upstream_up is exposed');
  return Number(m[1]);
}

async function startMirror(url: string, budget?: number): Promise<TestServer> {
  const m = await startTestServer({
    upstream: { url, key: upstream.key, pollMs: POLL_MS, ...(budget === undefined ? {} : { budget }) },
  });
  await until('the mirror to catch up', async () => ((await readyz(m)).status === 200 ? true : undefined));
  return m;
}

before(async () => {
  upstream = await startTestServer({ feed: 'ingest' });
  token = await adminToken(upstream);
  await ingest([{ kind: 'event', event: nbaEvent(E1) }, ...nbaPrices(E1)]);
});
after(() => upstream?.close());

describe('a mirror following the upstream', () => {
  let mirror: TestServer;
  let socket: TestSocket;
  let port: number;
  before(async () => {
    port = Number(new URL(upstream.url).port);
    mirror = await startMirror(upstream.url);
    socket = await connect(`${mirror.url.replace('http', 'ws')}/api/v2/ws/markets?event_ids=${E1}`, {
      'X-Service-Key': mirror.key,
    });
  });
  after(async () => {
    await socket?.close();
    await mirror?.close();
  });

  test('a price moved upstream reaches the REST answers and a stream client of the mirror', async () => {
    assert.equal(await shownPrice(mirror), 130);
    await ingest([moved(145)]);
    const frame = await socket.next((m) => m.meta?.type === 'market_price', 10_000);
    assert.equal(frame.data.event_id, E1);
    assert.equal(Number(frame.data.price), 145);
    assert.equal(Number(frame.data.previous_price), 130);
    assert.equal(frame.data.affiliate_id, 19);
    await until('the REST answer to show the move', showing(mirror, 145));
    const [a, b] = await Promise.all([upstream.get(`/api/v2/events/${E1}`), mirror.get(`/api/v2/events/${E1}`)]);
    assert.deepEqual(b.body.events, a.body.events, 'the event as the upstream shows it, ids included');
  });

  test('a box value the upstream takes away is taken away on the mirror: the boxes stay equal', async () => {
    const points = statByName(4, 'points')!.id;
    const assists = statByName(4, 'assists')!.id;
    const play = (n: number) => ({
      kind: 'play',
      event_id: E1,
      play: {
        period: 1,
        game_clock: 600 - n,
        display_clock: '',
        description: `play ${n}`,
        team_id: 2002,
        score_away: 2,
        score_home: 0,
        players: [200201],
        credits: [],
        people: [],
      },
    });
    const box = (values: [number, string][], whole?: boolean) => ({
      kind: 'box_score',
      event_id: E1,
      teams: [{ team_id: 2002, stats: [{ stat_id: points, value: '2' }] }],
      players: [
        {
          player_id: 200201,
          team_id: 2002,
          display_name: 'Jay Doe',
          position: 'F',
          stats: values.map(([stat_id, value]) => ({ stat_id, value })),
        },
      ],
      ...(whole === undefined ? {} : { whole }),
    });
    const boxes = async (s: TestServer) =>
      JSON.stringify([
        (await s.get(`/api/v2/events/${E1}/stats`)).body,
        (await s.get(`/api/v2/events/${E1}/players/stats`)).body,
      ]);
    const equal = async () => ((await boxes(mirror)) === (await boxes(upstream)) ? true : undefined);
    await ingest([
      { kind: 'score', event_id: E1, score: score(E1, 'STATUS_IN_PROGRESS', 2, 0) },
      play(1),
      box([
        [points, '2'],
        [assists, '1'],
      ]),
    ]);
    await until('the box on the mirror', equal);
    assert.match(await boxes(mirror), new RegExp(`"stat_id":${assists}|"id":${assists}`));
    // The source corrects the box: the assist was never one.
    await ingest([play(2), box([[points, '2']], true)]);
    const gone = await boxes(upstream);
    assert.doesNotMatch(gone, new RegExp(`"id":${assists}`));
    await until('the box without the assist on the mirror', equal);
  });

  test('the upstream stopped: the mirror says so, keeps serving, then catches up without a hole', async () => {
    await upstream.close({ keepData: true });
    const away = await until('/readyz to say the upstream is away', async () => {
      const r = await readyz(mirror);
      return r.status === 503 ? r : undefined;
    });
    assert.match(away.body.upstream, /^the upstream does not answer: /);
    assert.equal(await upstreamUp(mirror), 0);
    assert.equal(await shownPrice(mirror), 145, 'what the mirror holds is served meanwhile');

    upstream = await startTestServer({ feed: 'ingest', dataDir: upstream.dataDir, port });
    // Several moves before the mirror's next poll (it is backing off): each must arrive, in order.
    for (const p of [150, 155, 160, 165]) await ingest([moved(p)]);
    await until('the mirror to catch up after the restart', showing(mirror, 165));
    await until('/readyz to be ready again', async () => ((await readyz(mirror)).status === 200 ? true : undefined));
    assert.equal((await readyz(mirror)).body.upstream, 'following');
    assert.equal(await upstreamUp(mirror), 1);
    const moves: number[] = [];
    while (moves.at(-1) !== 165) {
      const m = await socket.next((f) => f.meta?.type === 'market_price', 10_000);
      moves.push(Number(m.data.price));
    }
    assert.deepEqual(moves, [150, 155, 160, 165], 'every move reaches the stream, in order');
    const history = async (s: TestServer) => {
      const r = await s.get(`/api/v2/events/${E1}/markets/history?limit=1000`);
      assert.equal(r.status, 200, JSON.stringify(r.body));
      // The row ids are each log's own; the price ids and everything else are the upstream's.
      return (r.body.history as any[]).map(({ id: _id, ...row }) => row);
    };
    const [a, b] = [await history(upstream), await history(mirror)];
    assert.ok(a.length > 5);
    assert.deepEqual(b, a, 'the price history as the upstream has it, no row missing');
  });
});

describe('rate limits of the upstream', () => {
  let proxy: HttpProxy;
  let mirror: TestServer;
  before(async () => {
    proxy = await startHttpProxy(upstream.url);
    mirror = await startMirror(proxy.url);
  });
  after(async () => {
    await mirror?.close();
    await proxy?.close();
  });

  const deltaAsks = (from: number) =>
    proxy.requests.slice(from).filter((r) => r.path.startsWith('/api/v2/markets/delta'));

  test('a burst 429 is asked again once its Retry-After has passed, and the move arrives', async () => {
    let refused = 0;
    proxy.rule = (path) =>
      path.startsWith('/api/v2/markets/delta') && refused++ < 2
        ? {
            status: 429,
            headers: { 'retry-after': '1' },
            body: { error: 'Rate limit exceeded', limit: 10, upgrade_url: '', upgrade_message: '' },
          }
        : undefined;
    const from = proxy.requests.length;
    const was = (await shownPrice(mirror))!;
    await ingest([moved(was + 10)]);
    await until('the move to reach the mirror', showing(mirror, was + 10));
    const asks = deltaAsks(from);
    assert.deepEqual(
      asks.slice(0, 3).map((r) => r.answered),
      [429, 429, undefined],
    );
    for (let i = 1; i < 3; i++) {
      assert.ok(asks[i]!.at - asks[i - 1]!.at >= 990, `ask ${i} came ${asks[i]!.at - asks[i - 1]!.at} ms after a 429`);
    }
  });

  test('a cap 429 is not asked again within its Retry-After; /readyz says so', async () => {
    proxy.rule = () => ({
      status: 429,
      headers: { 'retry-after': '3600' },
      body: { error: 'Daily data point limit reached', limit: 10, used: 10, upgrade_url: '', upgrade_message: '' },
    });
    const from = proxy.requests.length;
    await until('the mirror to meet the cap', async () => (proxy.requests.length > from ? true : undefined));
    const ready = await until('/readyz to say the cap', async () => {
      const r = await readyz(mirror);
      return r.status === 503 ? r : undefined;
    });
    assert.match(ready.body.upstream, /^the upstream's daily cap is reached; asking again in 3600 s$/);
    // Ten poll intervals: a blind retry would have asked many times.
    await new Promise((r) => setTimeout(r, 10 * POLL_MS));
    // The follow's request and a season read may both be in flight when the cap comes: each meets it
    // at most once, and then neither asks anything more.
    const met = proxy.requests.slice(from);
    const seasons = met.filter((r) => /^\/api\/v2\/teams\/\d+\/(players\/)?stats/.test(r.path)).length;
    assert.ok(met.length >= 1 && seasons <= 1 && met.length - seasons <= 1, met.map((r) => r.path).join(', '));
    assert.ok(met.every((r) => r.answered === 429));
    proxy.rule = undefined;
  });
});

describe('the daily budget', () => {
  let proxy: HttpProxy;
  let mirror: TestServer;
  before(async () => {
    proxy = await startHttpProxy(upstream.url);
  });
  after(async () => {
    await mirror?.close();
    await proxy?.close();
  });

  test('once spent, the mirror asks nothing more and /readyz says so', async () => {
    // One data point: the first catch-up spends it, and nothing is asked after.
    mirror = await startTestServer({ upstream: { url: proxy.url, key: upstream.key, pollMs: POLL_MS, budget: 1 } });
    const ready = await until('/readyz to say the budget is spent', async () => {
      const r = await readyz(mirror);
      return typeof r.body.upstream === 'string' && r.body.upstream.includes('budget') ? r : undefined;
    });
    assert.equal(ready.status, 503);
    assert.match(ready.body.upstream, /^the daily budget of 1 data points is spent; renewed in \d+ s$/);
    assert.equal(await shownPrice(mirror), await shownPrice(upstream), 'what the catch-up took is served');
    const asked = proxy.requests.length;
    await ingest([moved(((await shownPrice(upstream)) ?? 0) + 10)]);
    await new Promise((r) => setTimeout(r, 10 * POLL_MS));
    assert.equal(proxy.requests.length, asked, 'nothing asked upstream once the budget is spent');
  });
});

describe("the upstream's catalog, followed", () => {
  const BOOK = 77;
  const SPORT = 60;
  const TEAM = 990_001;
  const PLAYER = 99_000_101;
  let mirror: TestServer;
  before(async () => {
    mirror = await startTestServer({
      upstream: { url: upstream.url, key: upstream.key, pollMs: POLL_MS, catalogMs: 1000 },
    });
    await until('the mirror to catch up', async () => ((await readyz(mirror)).status === 200 ? true : undefined));
  });
  after(() => mirror?.close());

  const catalog = (record: Record<string, unknown>) => ({ kind: 'catalog', record });
  const book = (name: string) =>
    catalog({
      type: 'book',
      affiliate_id: BOOK,
      affiliate_name: name,
      affiliate_url: 'https://feedbook.example',
      status: 'healthy',
      regions: ['us'],
    });
  /** Waits for the mirror's answer to a path (status and body) to equal the upstream's, and returns its body. */
  const mirrored = (path: string) =>
    until(`the mirror's ${path} to be the upstream's`, async () => {
      const [a, b] = [await upstream.get(path), await mirror.get(path)];
      return a.status === b.status && JSON.stringify(a.body) === JSON.stringify(b.body) ? b.body : undefined;
    });

  test('what the upstream adds or changes later reaches the mirror; what it drops is dropped', async () => {
    const books = (await mirror.get('/api/v2/affiliates?include=regions')).body;
    assert.equal(
      books.affiliates.some((b: any) => b.affiliate_id === BOOK),
      false,
    );
    await ingest([
      catalog({
        type: 'sport',
        sport_id: SPORT,
        sport_name: 'Pro Pickleball',
        discipline: 'tennis',
        season_type: 'Regular Season',
        three_way: false,
        futures_only: false,
      }),
      book('Feedbook'),
      catalog({
        type: 'team',
        team_id: TEAM,
        name: 'Harbor Dinks',
        mascot: '',
        abbreviation: 'HBD',
        conference: 'East',
        division: 'North',
        venue_name: '',
        venue_location: '',
      }),
      catalog({ type: 'league', league_key: 'ppl', league_name: 'PPL', sport_ids: [SPORT], team_ids: [TEAM] }),
      catalog({
        type: 'roster',
        team_id: TEAM,
        players: [
          {
            player_id: PLAYER,
            name: 'Ana Lobo',
            first_name: 'Ana',
            last_name: 'Lobo',
            position: 'Singles',
            jersey_number: '',
          },
        ],
      }),
    ]);
    const added = await mirrored('/api/v2/affiliates?include=regions');
    assert.ok(added.affiliates.some((b: any) => b.affiliate_id === BOOK && b.affiliate_name === 'Feedbook'));
    assert.ok((await mirrored('/api/v2/sports')).sports.some((s: any) => s.sport_id === SPORT));
    assert.equal((await mirrored(`/api/v2/sports/${SPORT}/teams`)).teams[0]?.team_id, TEAM);
    assert.equal((await mirrored(`/api/v2/teams/${TEAM}/players`)).players[0]?.player_id, PLAYER);
    assert.equal((await mirrored(`/api/v2/players/${PLAYER}`)).first_name, 'Ana');

    await ingest([book('Feedbook Exchange')]);
    const changed = await mirrored('/api/v2/affiliates?include=regions');
    assert.ok(changed.affiliates.some((b: any) => b.affiliate_id === BOOK && b.affiliate_name === 'Feedbook Exchange'));

    await ingest([
      catalog({ type: 'removal', key: `book:${BOOK}` }),
      catalog({ type: 'removal', key: 'league:ppl' }),
      catalog({ type: 'removal', key: `team:${TEAM}` }),
      catalog({ type: 'removal', key: `roster:${TEAM}` }),
    ]);
    const dropped = await mirrored('/api/v2/affiliates?include=regions');
    assert.equal(
      dropped.affiliates.some((b: any) => b.affiliate_id === BOOK),
      false,
    );
    await mirrored(`/api/v2/teams/${TEAM}`);
    assert.equal((await mirror.get(`/api/v2/teams/${TEAM}`)).status, 404);
    await mirrored(`/api/v2/sports/${SPORT}/teams`);
    const held = mirror.server.board.catalog;
    for (const key of [`book:${BOOK}`, `team:${TEAM}`, `roster:${TEAM}`]) {
      assert.equal(held.holds(key), false, `${key} is taken out of the mirror's catalog`);
    }
    assert.equal(held.teamsOfSport(SPORT), undefined, 'no league lists the sport any more');
    assert.equal(held.holds(`sport:${SPORT}`), true, 'what the upstream still lists stays');
  });
});
