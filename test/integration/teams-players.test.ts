import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { SPORTS } from '../../src/catalog/sports.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

/**
 * Spec, V2 stats and teams: `/api/v2/teams/{teamID}/` (team detail: team_id, name, abbreviation,
 * mascot, sport_id, conference and division as strings), `/api/v2/teams/{teamID}/players` (roster:
 * `{players: [{player_id, name, position, jersey_number (string), team_id}]}`) and
 * `/api/v2/players/{player_id}`. Unknown ids are 404 with `message`, malformed ones 400.
 */

let s: TestServer;

before(async () => {
  s = await startTestServer();
});

after(() => s.close());

test('team detail, with and without the trailing slash, agrees with the sport team listing', async () => {
  for (const sport of SPORTS.filter((x) => [2, 4, 11, 16, 20, 38].includes(x.sport_id))) {
    const listing = await s.get(`/api/v2/sports/${sport.sport_id}/teams`);
    assert.equal(listing.status, 200);
    for (const t of listing.body.teams.slice(0, 5)) {
      const detail = await s.get(`/api/v2/teams/${t.team_id}/`);
      assert.equal(detail.status, 200, JSON.stringify(detail.body));
      assert.deepEqual(Object.keys(detail.body).sort(), [
        'abbreviation',
        'conference',
        'division',
        'mascot',
        'name',
        'sport_id',
        'team_id',
      ]);
      assert.equal(detail.body.team_id, t.team_id);
      assert.equal(detail.body.name, t.name);
      assert.equal(detail.body.mascot, t.mascot);
      assert.equal(detail.body.abbreviation, t.abbreviation);
      assert.equal(detail.body.conference, t.conference.name);
      assert.equal(detail.body.division, t.division.name);
      assert.equal(typeof detail.body.sport_id, 'number');
      assert.equal(detail.headers.get('x-datapoints'), null, 'a catalog answer counts no data points');
      const bare = await s.get(`/api/v2/teams/${t.team_id}`);
      assert.deepEqual(bare.body, detail.body);
    }
  }
  const celtics = await s.get('/api/v2/teams/2002');
  assert.deepEqual(celtics.body, {
    team_id: 2002,
    name: 'Boston',
    abbreviation: 'BOS',
    mascot: 'Celtics',
    sport_id: 4,
    conference: 'Eastern',
    division: 'Atlantic',
  });
});

test('a roster lists each player once, jersey numbers as strings, and each leads to its record', async () => {
  const res = await s.get('/api/v2/teams/2002/players');
  assert.equal(res.status, 200);
  assert.deepEqual(Object.keys(res.body), ['players']);
  const players = res.body.players as Record<string, unknown>[];
  assert.equal(players.length, 13);
  assert.equal(new Set(players.map((p) => p.jersey_number)).size, players.length);
  for (const p of players) {
    assert.deepEqual(Object.keys(p).sort(), ['jersey_number', 'name', 'player_id', 'position', 'team_id']);
    assert.equal(typeof p.jersey_number, 'string');
    assert.equal(p.team_id, 2002);
    const record = await s.get(`/api/v2/players/${p.player_id}`);
    assert.equal(record.status, 200);
    assert.equal(record.headers.get('x-datapoints'), null);
    const { players: listed, ...own } = record.body;
    assert.deepEqual(own, {
      player_id: p.player_id,
      name: p.name,
      first_name: record.body.first_name,
      last_name: record.body.last_name,
      position: p.position,
      jersey_number: p.jersey_number,
      team_id: 2002,
      team: { team_id: 2002, name: 'Boston', abbreviation: 'BOS' },
      sport_id: 4,
    });
    // The record again as `players: [record]`, the list existing clients read.
    assert.deepEqual(listed, [own]);
    assert.equal(`${record.body.first_name} ${record.body.last_name}`, p.name);
  }
  const nfl = await s.get('/api/v2/sports/2/teams');
  const roster = await s.get(`/api/v2/teams/${nfl.body.teams[0].team_id}/players`);
  assert.equal(roster.body.players.length, 53);
  assert.ok(roster.body.players.some((p: { position: string }) => p.position === 'QB'));
});

test('an individual competitor is a roster of one: the athlete its box scores and plays name', async () => {
  for (const [sportId, position] of [
    [38, 'Singles'],
    [39, 'Singles'],
    [7, undefined],
  ] as const) {
    const listing = await s.get(`/api/v2/sports/${sportId}/teams`);
    const athlete = listing.body.teams[0];
    const detail = await s.get(`/api/v2/teams/${athlete.team_id}`);
    assert.equal(detail.status, 200);
    assert.equal(detail.body.sport_id, sportId);
    const roster = await s.get(`/api/v2/teams/${athlete.team_id}/players`);
    assert.equal(roster.status, 200);
    const [only, ...rest] = roster.body.players;
    assert.deepEqual(rest, []);
    assert.equal(only.player_id, athlete.team_id * 100 + 1);
    assert.equal(only.name, athlete.name);
    assert.equal(only.team_id, athlete.team_id);
    assert.equal(typeof only.jersey_number, 'string');
    // A fighter is listed by weight class, the division of the team listing.
    assert.equal(only.position, position ?? athlete.division.name);
    const record = await s.get(`/api/v2/players/${only.player_id}`);
    assert.equal(record.status, 200);
    const { players: listed, ...own } = record.body;
    assert.deepEqual(listed, [own]);
    assert.deepEqual(own, {
      ...only,
      first_name: record.body.first_name,
      last_name: record.body.last_name,
      team: { team_id: athlete.team_id, name: athlete.name, abbreviation: athlete.abbreviation },
      sport_id: sportId,
    });
    assert.equal(`${record.body.first_name} ${record.body.last_name}`, only.name);
    assert.equal((await s.get(`/api/v2/players/${only.player_id + 1}`)).status, 404, 'no second slot');
  }
});

test('unknown teams and players are 404, malformed ids 400, no key 401', async () => {
  for (const path of [
    '/api/v2/teams/999999',
    '/api/v2/teams/999999/',
    '/api/v2/teams/999999/players',
    '/api/v2/players/200200',
    '/api/v2/players/200299',
    '/api/v2/players/99999999',
  ]) {
    const res = await s.get(path);
    assert.equal(res.status, 404, path);
    assert.match(res.body.message, /not found/, path);
  }
  for (const path of [
    '/api/v2/teams/abc',
    '/api/v2/teams/-1',
    '/api/v2/teams/0/players',
    '/api/v2/teams/20.5',
    '/api/v2/players/1e5',
    '/api/v2/players/x',
  ]) {
    const res = await s.get(path);
    assert.equal(res.status, 400, path);
    assert.match(res.body.error, /must be a positive integer/, path);
  }
  assert.equal((await s.get('/api/v2/teams/2002', {})).status, 401);
  assert.equal((await s.get('/api/v2/players/200201', {})).status, 401);
});

test('a V1-only plan is refused the V2 team routes; every V2 tier may read them', async () => {
  const v1Only = await s.newKey('ultra', { v1: true, v2: false });
  const refused = await s.get('/api/v2/teams/2002/players', { 'X-Service-Key': v1Only });
  assert.equal(refused.status, 403);
  assert.ok(refused.body.error);
  const free = await s.newKey('free');
  const allowed = await s.get('/api/v2/players/200201', { 'X-Service-Key': free });
  assert.equal(allowed.status, 200);
});
