import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { creditPlay, nbaEvent, price, score, today } from '../helpers/fixtures.ts';
import { adminToken, startTestServer, type TestServer } from '../helpers/server.ts';
import { connect } from '../helpers/ws-client.ts';

/**
 * Reads that name things show the current catalog's names: a sport, book, market, teams and roster
 * a feed brought (none of them in the simulator's tables) in events snapshots, price rows, V1 line
 * sets, box scores and the stream's completion marker; the sport's own default markets; a renamed
 * book, market or player at once on an answer polled before (kept); and a record's removal.
 */

const SPORT = 61;
const BOOK = 78;
const MARKET = 9001;
const HOME = 990_101;
const AWAY = 990_102;
const PLAYER = 99_010_101;
const PADEL = 'cat0000000000000000000000000061';
/** An NBA game (sport 4 keeps basketball's stats) between the feed's own teams. */
const GAME = 'cat0000000000000000000000000004';

let s: TestServer;
let token: string;
let v1Key: string;

before(async () => {
  s = await startTestServer({ feed: 'ingest' });
  token = await adminToken(s);
  v1Key = await s.newKey('enterprise', { v1: true, custom: JSON.stringify({ burstPerSecond: 1_000_000 }) });
});
after(() => s.close());

let batches = 0;
async function ingest(records: unknown[]): Promise<{ status: number; body: any }> {
  const res = await fetch(`${s.url}/admin/v1/ingest`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify({ batch_id: `reads-${++batches}`, records }),
  });
  return { status: res.status, body: await res.json() };
}

const catalog = (record: Record<string, unknown>) => ({ kind: 'catalog', record });

const sport = catalog({
  type: 'sport',
  sport_id: SPORT,
  sport_name: 'Pro Padel',
  // The catalog, not the discipline, says a sport takes the 3-way result by default.
  discipline: 'basketball',
  season_type: 'Regular Season',
  three_way: true,
  futures_only: false,
});
const book = (affiliate_name: string) =>
  catalog({
    type: 'book',
    affiliate_id: BOOK,
    affiliate_name,
    affiliate_url: 'https://padelbook.example',
    status: 'healthy',
    regions: ['us'],
  });
const market = (name: string) =>
  catalog({
    type: 'market',
    id: MARKET,
    name,
    description: name,
    short_description: 'GP',
    line_value_is_participant: false,
    proposition: false,
    period_id: 0,
    updated_at: '2026-12-01T00:00:00Z',
  });
const team = (team_id: number, name: string) =>
  catalog({
    type: 'team',
    team_id,
    name,
    mascot: '',
    abbreviation: name.slice(0, 3).toUpperCase(),
    conference: '',
    division: '',
    venue_name: '',
    venue_location: '',
  });
const roster = (first_name: string, jersey_number: string) =>
  catalog({
    type: 'roster',
    team_id: HOME,
    players: [
      {
        player_id: PLAYER,
        name: `${first_name} Lobo`,
        first_name,
        last_name: 'Lobo',
        position: 'G',
        jersey_number,
      },
    ],
  });

function eventOf(eventId: string, sportId: number) {
  const e = nbaEvent(eventId);
  e.sport_id = sportId;
  e.teams[0] = { ...e.teams[0]!, team_id: AWAY, name: 'Valley', mascot: '', abbreviation: 'VAL' };
  e.teams[1] = { ...e.teams[1]!, team_id: HOME, name: 'Harbor', mascot: '', abbreviation: 'HAR' };
  return { kind: 'event', event: e };
}

const at = (eventId: string, market_id: number, participant_id: number, value: number) =>
  price(eventId, { market_id, participant_id, participant_name: 'Team', affiliate_id: BOOK, price: value });

const v1Day = () => s.get(`/api/v1/sports/${SPORT}/events/${today()}`, { 'X-Service-Key': v1Key });
const v2Day = (query = '') => s.get(`/api/v2/sports/${SPORT}/events/${today()}${query}`);
const players = () => s.get(`/api/v2/events/${GAME}/players/stats`);
const v1BookName = (body: any) =>
  body.events.find((e: any) => e.event_id === PADEL).lines[String(BOOK)].affiliate.affiliate_name;
const v2MarketNames = (body: any) =>
  body.events
    .find((e: any) => e.event_id === PADEL)
    .markets.map((m: any) => [m.market_id, m.name, m.market_description]);

test('the feed’s own names in snapshots, price rows, V1 line sets and box scores; its default markets', async () => {
  const r = await ingest([
    sport,
    book('Padelbook'),
    market('Golden Point Winner'),
    team(HOME, 'Harbor'),
    team(AWAY, 'Valley'),
    catalog({ type: 'league', league_key: 'padel', league_name: 'Padel', sport_ids: [SPORT], team_ids: [HOME, AWAY] }),
    roster('Ana', '7'),
    eventOf(PADEL, SPORT),
    at(PADEL, 1, HOME, -120),
    at(PADEL, 1, AWAY, 105),
    at(PADEL, 563, HOME, 150),
    at(PADEL, MARKET, HOME, -140),
    eventOf(GAME, 4),
    { kind: 'score', event_id: GAME, score: score(GAME, 'STATUS_IN_PROGRESS', 0, 2) },
    {
      kind: 'play',
      event_id: GAME,
      play: {
        ...creditPlay(HOME, PLAYER, 'points', 2, { away: 0, home: 2 }),
        people: [{ id: PLAYER, display_name: 'A. Lobo', position: 'G' }],
      },
    },
  ]);
  assert.equal(r.status, 200, JSON.stringify(r.body));

  // No market_ids: the sport's record says 3-way, so 563 comes with 1, 2 and 3 (and not 9001).
  const defaults = await v2Day();
  assert.equal(defaults.status, 200, JSON.stringify(defaults.body));
  assert.deepEqual(
    v2MarketNames(defaults.body).map(([id]: [number]) => id),
    [1, 563],
  );
  const named = await v2Day(`?market_ids=${MARKET}`);
  assert.deepEqual(v2MarketNames(named.body), [[MARKET, 'Golden Point Winner', 'Golden Point Winner']]);

  const rows = (await s.get(`/api/v2/markets/delta?last_id=0&event_id=${PADEL}&market_ids=${MARKET}`)).body.deltas;
  assert.deepEqual(
    rows.map((d: any) => d.market_name),
    ['Golden Point Winner'],
  );

  const v1 = await v1Day();
  assert.equal(v1.status, 200, JSON.stringify(v1.body));
  assert.equal(v1BookName(v1.body), 'Padelbook');
  assert.equal(
    v1.body.events.find((e: any) => e.event_id === PADEL).lines[String(BOOK)].affiliate.affiliate_url,
    'https://padelbook.example',
  );

  const box = await players();
  assert.equal(box.status, 200, JSON.stringify(box.body));
  assert.deepEqual(
    box.body.map((g: any) => [
      g.player.id,
      g.player.display_name,
      g.player.first_name,
      g.player.last_name,
      g.player.jersey,
    ]),
    [[PLAYER, 'A. Lobo', 'Ana', 'Lobo', '7']],
  );
});

test('a renamed book, market or player shows at once on an answer polled before', async () => {
  // Polled three times: kept from the second build, and answered again before routing after it.
  for (let i = 0; i < 3; i++) {
    assert.equal(v1BookName((await v1Day()).body), 'Padelbook');
    assert.deepEqual(v2MarketNames((await v2Day(`?market_ids=${MARKET}`)).body)[0][1], 'Golden Point Winner');
    assert.equal((await players()).body[0].player.first_name, 'Ana');
  }
  const r = await ingest([book('Padelbook Two'), market('Golden Point'), roster('Anabel', '8')]);
  assert.equal(r.status, 200, JSON.stringify(r.body));
  assert.equal(v1BookName((await v1Day()).body), 'Padelbook Two');
  assert.deepEqual(v2MarketNames((await v2Day(`?market_ids=${MARKET}`)).body), [
    [MARKET, 'Golden Point', 'Golden Point'],
  ]);
  const box = (await players()).body[0].player;
  assert.deepEqual([box.first_name, box.jersey], ['Anabel', '8']);

  // A price row written after the rename carries the new name; the one before keeps its own.
  assert.equal((await ingest([at(PADEL, MARKET, HOME, -150)])).status, 200);
  const rows = (await s.get(`/api/v2/markets/delta?last_id=0&event_id=${PADEL}&market_ids=${MARKET}`)).body.deltas;
  assert.deepEqual(
    rows.map((d: any) => d.market_name),
    ['Golden Point Winner', 'Golden Point'],
  );
});

test('a removal takes a record out: the book is listed no more, named neutrally, and refused', async () => {
  const removal = catalog({ type: 'removal', key: `book:${BOOK}` });
  assert.equal((await ingest([removal])).status, 200);
  const books = (await s.get('/api/v2/affiliates')).body.affiliates;
  assert.equal(
    books.some((b: any) => b.affiliate_id === BOOK),
    false,
  );
  // Its prices already on the board stay, and are named as the catalog names an unknown book.
  assert.equal(v1BookName((await v1Day()).body), `Affiliate ${BOOK}`);
  const refused = await ingest([at(PADEL, 1, HOME, -130)]);
  assert.equal(refused.status, 400);
  assert.deepEqual(
    refused.body.faults.map((f: any) => `${f.index} ${f.field}`),
    ['0 /affiliate_id'],
  );
  // Removing it again, or removing a key that holds nothing, writes no row.
  const head = (await ingest([removal])).body.head_id;
  assert.equal((await ingest([catalog({ type: 'removal', key: 'league:nothing' })])).body.head_id, head);
  // A record of the key brings it back.
  assert.equal((await ingest([book('Padelbook Three')])).status, 200);
  assert.equal(v1BookName((await v1Day()).body), 'Padelbook Three');
  const bad = await ingest([catalog({ type: 'removal', key: 'venue:1' })]);
  assert.equal(bad.status, 400);
  assert.equal(bad.body.faults[0].field, '/record/key');
});

test('the completion marker names the sport as the catalog does', async () => {
  const ws = await connect(`${s.url.replace('http', 'ws')}/api/v2/ws`, { 'X-Service-Key': s.key });
  try {
    ws.send({ action: 'subscribe', id: 'st', channel: 'stats', params: { event_ids: [PADEL] } });
    await ws.next((m) => m.id === 'st' && m.type === 'subscribed');
    // The sport's record says basketball: a final of four quarters, as basketball's score rules ask.
    const final = {
      ...score(PADEL, 'STATUS_FINAL', 1, 2),
      winner_home: 1,
      score_away_by_period: [1, 0, 0, 0],
      score_home_by_period: [0, 1, 1, 0],
      game_period: 4,
      event_status_detail: 'Final',
    };
    const r = await ingest([{ kind: 'score', event_id: PADEL, score: final }]);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    const marker = await ws.next((m) => m.id === 'st' && m.data?.complete === true, 5000);
    assert.deepEqual([marker.data.sport, marker.data.sport_id], ['Pro Padel', SPORT]);
  } finally {
    await ws.close();
  }
});
