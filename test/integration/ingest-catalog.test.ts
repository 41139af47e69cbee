import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { nbaEvent, PICKLEBALL_STATS, price, today } from '../helpers/fixtures.ts';
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
  const score = {
    kind: 'score',
    event_id: EVENT,
    score: {
      event_id: EVENT,
      event_status: 'STATUS_IN_PROGRESS',
      score_away: 0,
      score_home: 1,
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
  const refused = await ingest({ batch_id: 'cat-stats-0', records: [...catalog, event(), score, play] });
  assert.equal(refused.status, 400, JSON.stringify(refused.body));
  assert.match(refused.body.message, /keeps no stat named dinks/);

  const r = await ingest({ batch_id: 'cat-stats-1', records: [...catalog, stats, event(), score, play] });
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
