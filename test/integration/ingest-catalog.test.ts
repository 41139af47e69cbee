import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { nbaEvent, PICKLEBALL_STATS, price, score, statsRecord, today } from '../helpers/fixtures.ts';
import { type IngestServer, startIngestServer } from '../helpers/server.ts';
import { connect } from '../helpers/ws-client.ts';

/** A sport, a book, two teams and a player that no built-in table has. */
const SPORT = 60;
const BOOK = 77;
const HOME = 990_001;
const AWAY = 990_002;
const PLAYER = 99_000_101;
const EVENT = 'cat0000000000000000000000000001';

let s: IngestServer;

before(async () => {
  s = await startIngestServer();
});
after(() => s.close());

async function ingest(body: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(`${s.url}/admin/v1/ingest`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${s.token}` },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: await res.json() };
}

const team = (team_id: number, name: string, abbreviation: string) => ({
  kind: 'catalog',
  record: {
    type: 'team',
    team_id,
    name,
    mascot: '',
    abbreviation,
    conference: 'East',
    division: 'North',
    venue_name: '',
    venue_location: '',
  },
});

const catalog = [
  {
    kind: 'catalog',
    record: {
      type: 'sport',
      sport_id: SPORT,
      sport_name: 'Pro Pickleball',
      discipline: 'tennis',
      season_type: 'Regular Season',
      three_way: false,
      futures_only: false,
    },
  },
  {
    kind: 'catalog',
    record: {
      type: 'book',
      affiliate_id: BOOK,
      affiliate_name: 'Feedbook',
      affiliate_url: 'https://feedbook.example',
      status: 'healthy',
      regions: ['us'],
    },
  },
  team(HOME, 'Harbor Dinks', 'HBD'),
  team(AWAY, 'Valley Volleys', 'VLV'),
  {
    kind: 'catalog',
    record: { type: 'league', league_key: 'ppl', league_name: 'PPL', sport_ids: [SPORT], team_ids: [HOME, AWAY] },
  },
  {
    kind: 'catalog',
    record: {
      type: 'roster',
      team_id: HOME,
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
    },
  },
];

function event() {
  const e = nbaEvent(EVENT);
  e.sport_id = SPORT;
  e.teams[0] = { ...e.teams[0]!, team_id: AWAY, name: 'Valley Volleys', mascot: '', abbreviation: 'VLV' };
  e.teams[1] = { ...e.teams[1]!, team_id: HOME, name: 'Harbor Dinks', mascot: '', abbreviation: 'HBD' };
  e.schedule = { ...e.schedule, league_name: 'PPL', event_name: 'Valley Volleys at Harbor Dinks' };
  return { kind: 'event', event: e };
}

const moneyline = (participant_id: number, value: number) =>
  price(EVENT, { market_id: 1, participant_id, participant_name: 'Team', affiliate_id: BOOK, price: value });

/** A market record of the feed's own: a prop or not, as its record says. */
const marketRecord = (id: number, name: string, proposition: boolean, live?: number) => ({
  kind: 'catalog',
  record: {
    type: 'market',
    id,
    name,
    description: name,
    short_description: name,
    line_value_is_participant: false,
    proposition,
    period_id: 0,
    ...(live !== undefined ? { live_variant_id: live } : {}),
    updated_at: '2026-12-01T00:00:00Z',
  },
});

test("a plan without player props or live odds: the feed's own prop and in-play markets are left out, its others served", async () => {
  const GAME = 'cat0000000000000000000000000065';
  const [PLAIN, PROP, PREMATCH, IN_PLAY] = [9101, 9102, 9103, 9104];
  // First in the file: a delayed plan's delta reaches a row only once every row before it is as old
  // as its delay, so no row described now may come before this test's. A Free key a request: the
  // plan's burst ceiling is one a second.
  const asFree = async () => ({ 'X-Service-Key': await s.newKey('free') });
  const head = (await s.get('/api/v2/markets/delta?last_id=0', await asFree())).body.meta.delta_last_id;
  // Described ten minutes ago: the Free plan's delay has passed.
  const r = await ingest({
    batch_id: 'cat-props-0',
    at: new Date(Date.now() - 600_000).toISOString(),
    records: [
      marketRecord(PLAIN, 'Feed Corners', false),
      marketRecord(PROP, 'Feed Player Aces', true),
      marketRecord(PREMATCH, 'Feed Cards', false, IN_PLAY),
      marketRecord(IN_PLAY, 'Feed Cards (Live)', false),
      gameOf(GAME, 4),
      ...[PLAIN, PROP, PREMATCH, IN_PLAY].map((market_id) =>
        price(GAME, { market_id, participant_id: 2014, affiliate_id: 19, price: -120 }),
      ),
    ],
  });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  const asked = await s.get(`/api/v2/sports/4/events/${today()}?market_ids=${PROP}`, await asFree());
  assert.equal(asked.status, 403, JSON.stringify(asked.body));
  assert.match(asked.body.error, /Player prop markets/);
  assert.equal((await s.get(`/api/v2/sports/4/events/${today()}?market_ids=${PLAIN}`, await asFree())).status, 200);
  const delta = await s.get(`/api/v2/markets/delta?last_id=${head}`, await asFree());
  assert.equal(delta.status, 200, JSON.stringify(delta.body));
  assert.deepEqual([...new Set(delta.body.deltas.map((row: any) => row.market_id))], [PLAIN, PREMATCH]);
});

test('records naming a sport or book the catalog lacks are refused, each named by index and field', async () => {
  const bad = { ...catalog[1]!, record: { ...catalog[1]!.record, affiliate_name: '', extra: 1 } };
  const r = await ingest({
    batch_id: 'cat-bad',
    records: [event(), bad, moneyline(HOME, -120), { kind: 'catalog', record: { type: 'venue' } }],
  });
  assert.equal(r.status, 400);
  const faults = r.body.faults.map((f: any) => `${f.index} ${f.field}`);
  assert.ok(faults.includes('0 /event/sport_id'), JSON.stringify(r.body.faults));
  assert.ok(faults.includes('1 /record/affiliate_name'), JSON.stringify(r.body.faults));
  assert.ok(faults.includes('1 /record/extra'), JSON.stringify(r.body.faults));
  assert.ok(faults.includes('3 /record/type'), JSON.stringify(r.body.faults));
  // Nothing of the batch was written: the book is still unknown.
  const books = await s.get('/api/v2/affiliates');
  assert.equal(
    books.body.affiliates.some((b: any) => b.affiliate_id === BOOK),
    false,
  );
});

test('a new sport, book, teams and player, then prices on them, in one batch', async () => {
  const ws = await connect(`${s.url.replace('http', 'ws')}/api/v2/ws/markets?sport_ids=${SPORT}`, {
    'X-Service-Key': s.key,
  });
  try {
    const r = await ingest({
      batch_id: 'cat-1',
      records: [...catalog, event(), moneyline(HOME, -120), moneyline(AWAY, 105)],
    });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    const m = await ws.next(
      (x) => x.meta?.type === 'market_price' && JSON.stringify(x).includes(`"affiliate_id":${BOOK}`),
      5000,
    );
    assert.ok(m, 'the stream carries the new book’s price');
  } finally {
    await ws.close();
  }

  const sports = (await s.get('/api/v2/sports')).body.sports;
  assert.deepEqual(
    sports.find((x: any) => x.sport_id === SPORT),
    { sport_id: SPORT, sport_name: 'Pro Pickleball' },
  );
  const books = (await s.get('/api/v2/sportsbooks?include=regions')).body.affiliates;
  assert.deepEqual(
    books.find((b: any) => b.affiliate_id === BOOK),
    {
      affiliate_id: BOOK,
      affiliate_name: 'Feedbook',
      affiliate_url: 'https://feedbook.example',
      status: 'healthy',
      regions: ['us'],
    },
  );
  const teams = (await s.get(`/api/v2/sports/${SPORT}/teams`)).body.teams;
  assert.deepEqual(
    teams.map((t: any) => [t.team_id, t.name, t.record]),
    [
      [HOME, 'Harbor Dinks', '9-6'],
      [AWAY, 'Valley Volleys', '10-5'],
    ],
  );
  const roster = (await s.get(`/api/v2/teams/${HOME}/players`)).body.players;
  assert.deepEqual(roster, [
    { player_id: PLAYER, name: 'Ana Lobo', position: 'Singles', jersey_number: '', team_id: HOME },
  ]);
  const player = (await s.get(`/api/v2/players/${PLAYER}`)).body;
  assert.equal(player.team.name, 'Harbor Dinks');
  assert.equal(player.sport_id, SPORT);

  const day = (await s.get(`/api/v2/sports/${SPORT}/events/${today()}`)).body.events;
  const ev = day.find((e: any) => e.event_id === EVENT);
  assert.ok(ev, 'the events snapshot holds the event of the new sport');
  const ml = ev.markets.find((x: any) => x.market_id === 1);
  const home = ml.participants.find((p: any) => p.id === HOME);
  assert.equal(home.lines[0].prices[String(BOOK)].price, -120);
});

test('a record sent again writes nothing; a changed one replaces its key', async () => {
  const head = (await s.get('/api/v2/markets/delta?last_id=0')).body;
  const again = await ingest({ batch_id: 'cat-2', records: catalog });
  assert.equal(again.status, 200);
  assert.equal(again.body.head_id ?? again.body.headId, head.last_id ?? again.body.head_id ?? again.body.headId);
  const renamed = { ...catalog[1]!, record: { ...catalog[1]!.record, affiliate_name: 'Feedbook Two' } };
  assert.equal((await ingest({ batch_id: 'cat-3', records: [renamed] })).status, 200);
  const books = (await s.get('/api/v2/affiliates')).body.affiliates;
  assert.equal(
    books
      .filter((b: any) => b.affiliate_id === BOOK)
      .map((b: any) => b.affiliate_name)
      .join(),
    'Feedbook Two',
  );
});

test('a sport the feed brings keeps its own stat definitions: plays credit them, boxes and seasons show them', async () => {
  const stats = {
    kind: 'catalog',
    record: {
      ...PICKLEBALL_STATS,
      stats: [
        ...PICKLEBALL_STATS.stats,
        {
          id: 60_002,
          name: 'timeouts',
          display_name: 'Timeouts',
          abbreviation: 'TO',
          category: 'match',
          description: 'Timeouts called',
          scope: 'team',
        },
      ],
    },
  };
  const setScore = {
    kind: 'score',
    event_id: EVENT,
    score: {
      event_id: EVENT,
      event_status: 'STATUS_IN_PROGRESS',
      // A tennis score: sets won (none yet), and the games of each set.
      score_away: 0,
      score_home: 0,
      winner_away: 0,
      winner_home: 0,
      score_away_by_period: [0],
      score_home_by_period: [1],
      venue_name: '',
      venue_location: '',
      game_clock: 0,
      display_clock: '',
      game_period: 1,
      broadcast: '',
      event_status_detail: 'Set 1',
      updated_at: new Date().toISOString(),
    },
  };
  const play = {
    kind: 'play',
    event_id: EVENT,
    play: {
      period: 1,
      game_clock: 0,
      display_clock: '',
      description: 'Lobo dinks',
      team_id: HOME,
      score_away: 0,
      score_home: 1,
      players: [PLAYER],
      credits: [
        { team_id: HOME, player_id: PLAYER, stat: 'dinks', n: 3 },
        { team_id: HOME, stat: 'timeouts', n: 1 },
      ],
      people: [{ id: PLAYER, display_name: 'Ana Lobo', position: 'Singles' }],
    },
  };
  // Without its stats record, the sport keeps none: the play is refused.
  const refused = await ingest({ batch_id: 'cat-stats-0', records: [...catalog, event(), setScore, play] });
  assert.equal(refused.status, 400, JSON.stringify(refused.body));
  assert.match(refused.body.message, /keeps no stat named dinks/);

  const r = await ingest({ batch_id: 'cat-stats-1', records: [...catalog, stats, event(), setScore, play] });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  const listed = (await s.get(`/api/v2/stats?sport_id=${SPORT}`)).body;
  assert.deepEqual(
    listed.map((d: any) => [d.id, d.name, d.sport_id, d.category]),
    [
      [60_001, 'dinks', SPORT, 'rally'],
      [60_002, 'timeouts', SPORT, 'match'],
    ],
  );
  const teamBox = (await s.get(`/api/v2/events/${EVENT}/stats`)).body;
  const home = teamBox.find((g: any) => g.team.team_id === HOME);
  assert.deepEqual(
    home.stats.map((x: any) => [x.stat_id, x.stat.name, x.value]),
    [
      [60_001, 'dinks', '3'],
      [60_002, 'timeouts', '1'],
    ],
  );
  const playerBox = (await s.get(`/api/v2/events/${EVENT}/players/stats`)).body;
  assert.deepEqual(
    playerBox.map((g: any) => [g.player.id, g.stats.map((x: any) => [x.stat.id, x.value])]),
    [[PLAYER, [[60_001, '3']]]],
  );
  const season = (await s.get(`/api/v2/teams/${HOME}/stats?year=2026`)).body;
  assert.deepEqual(
    season[0].stats.map((x: any) => [x.stat_id, x.name, x.value]),
    [
      [60_001, 'dinks', '3'],
      [60_002, 'timeouts', '1'],
    ],
  );
});

/** A sport record of the feed's own, of `discipline`. */
const sportRecord = (sport_id: number, sport_name: string, discipline: string) => ({
  kind: 'catalog',
  record: {
    type: 'sport',
    sport_id,
    sport_name,
    discipline,
    season_type: 'Regular Season',
    three_way: false,
    futures_only: false,
  },
});

/** An event of `sportId` between the NBA fixture's teams. */
function gameOf(eventId: string, sportId: number) {
  const e = nbaEvent(eventId);
  e.sport_id = sportId;
  return { kind: 'event', event: e };
}

test("a score that breaks its sport's rules is taken as sent: the spec does not guarantee sums", async () => {
  const FEED_SPORT = 61;
  const OWN = 'cat0000000000000000000000000061';
  const NBA = 'cat0000000000000000000000000004';
  // A final of one period, no winner flag and no final marker, whose period entry does not add up:
  // basketball's rules ask four quarters, the home side's win and "Final" (spec, score rule 5).
  const odd = (id: string) => ({
    ...score(id, 'STATUS_FINAL', 20, 25),
    score_away_by_period: [19],
    score_home_by_period: [25],
    game_period: 1,
  });
  const r = await ingest({
    batch_id: 'cat-score-0',
    records: [
      sportRecord(FEED_SPORT, 'Pro 3x3', 'basketball'),
      gameOf(OWN, FEED_SPORT),
      gameOf(NBA, 4),
      { kind: 'score', event_id: OWN, score: odd(OWN) },
      { kind: 'score', event_id: NBA, score: odd(NBA) },
    ],
  });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  for (const [sport, id] of [
    [FEED_SPORT, OWN],
    [4, NBA],
  ] as const) {
    const day = (await s.get(`/api/v2/sports/${sport}/events/${today()}`)).body.events;
    const served = day.find((e: any) => e.event_id === id).score;
    assert.deepEqual(
      [served.score_away, served.score_home, served.score_away_by_period, served.score_home_by_period],
      [20, 25, [19], [25]],
    );
  }
});

test('a stat id another sport defines is refused, named by record index and field', async () => {
  const points = 4001;
  const refused = await ingest({
    batch_id: 'cat-ids-0',
    records: [
      sportRecord(63, 'Sport 63', 'basketball'),
      sportRecord(64, 'Sport 64', 'basketball'),
      statsRecord(63, [63_001, points]),
      // Defined by the record before it in the batch.
      statsRecord(64, [64_001, 64_002, 63_001]),
    ],
  });
  assert.equal(refused.status, 400, JSON.stringify(refused.body));
  assert.deepEqual(
    refused.body.faults.map((f: any) => [f.index, f.field]),
    [
      [2, '/record/stats/1/id'],
      [3, '/record/stats/2/id'],
    ],
  );
  assert.match(refused.body.faults[0].message, /stat id 4001 is sport 4's/);
  assert.match(refused.body.faults[1].message, /stat id 63001 is sport 63's/);
  assert.deepEqual(
    (await s.get('/api/v2/stats?id=4001')).body.map((d: any) => d.sport_id),
    [4],
  );

  // An id moves from one sport to another when the batch takes it from the first before the second lists it.
  assert.equal((await ingest({ batch_id: 'cat-ids-1', records: [statsRecord(63, [63_001])] })).status, 200);
  const moved = await ingest({
    batch_id: 'cat-ids-2',
    records: [statsRecord(63, [63_002]), statsRecord(64, [63_001])],
  });
  assert.equal(moved.status, 200, JSON.stringify(moved.body));
  assert.deepEqual(
    (await s.get('/api/v2/stats?id=63001')).body.map((d: any) => d.sport_id),
    [64],
  );
  const backwards = await ingest({
    batch_id: 'cat-ids-3',
    records: [statsRecord(63, [63_001]), statsRecord(64, [64_001])],
  });
  assert.deepEqual(
    backwards.body.faults?.map((f: any) => [f.index, f.field]),
    [[0, '/record/stats/0/id']],
  );
});
