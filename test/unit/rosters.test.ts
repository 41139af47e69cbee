import assert from 'node:assert/strict';
import { test } from 'node:test';
import { homeSportOf, playerById, rosterOf } from '../../src/catalog/rosters/index.ts';
import { sportProfile } from '../../src/catalog/sports.ts';
import { leagues } from '../../src/catalog/teams/index.ts';
import { roster } from '../../src/feeds/simulator/roster.ts';

const SQUAD_SIZE: Record<string, number> = {
  basketball: 13,
  baseball: 26,
  football: 53,
  hockey: 23,
  soccer: 25,
  cricket: 16,
};

test('every team of a team sport has a full roster: unique ids, names and jersey numbers', () => {
  let teams = 0;
  for (const league of leagues) {
    const discipline = sportProfile(league.sport_ids[0]!)!.discipline;
    for (const team of league.teams) {
      const players = rosterOf(team.team_id)!;
      if (league.individual) {
        const [only, ...rest] = players;
        assert.deepEqual(rest, [], `${league.key} ${team.team_id} is a roster of one`);
        assert.equal(only!.player_id, team.team_id * 100 + 1);
        assert.equal(only!.name, team.name);
        assert.equal(`${only!.first_name} ${only!.last_name}`, team.name);
        assert.equal(only!.team_id, team.team_id);
        assert.ok(only!.position.length > 0);
        assert.deepEqual(playerById(only!.player_id), only, 'the athlete is a player');
        continue;
      }
      if (discipline === 'politics') {
        assert.deepEqual(players, [], `${league.key} ${team.team_id} has no players`);
        continue;
      }
      teams++;
      const label = `${league.key} team ${team.team_id}`;
      // A club shared by several competitions is sized by its home league.
      const home = sportProfile(homeSportOf(team.team_id)!)!.discipline;
      assert.equal(players.length, SQUAD_SIZE[home], label);
      assert.equal(new Set(players.map((p) => p.player_id)).size, players.length, `${label}: ids`);
      assert.equal(new Set(players.map((p) => p.name)).size, players.length, `${label}: names`);
      assert.equal(new Set(players.map((p) => p.jersey_number)).size, players.length, `${label}: jerseys`);
      players.forEach((p, i) => {
        assert.equal(p.player_id, team.team_id * 100 + i + 1);
        assert.equal(p.team_id, team.team_id);
        assert.equal(p.name, `${p.first_name} ${p.last_name}`);
        assert.match(p.jersey_number, /^\d{1,2}$/);
        assert.ok(p.position.length > 0);
        assert.deepEqual(playerById(p.player_id), p, 'a player id leads back to the player');
      });
    }
  }
  assert.ok(teams > 500, `${teams} teams with rosters`);
});

test('positions follow the sport', () => {
  const positions = (teamId: number) => new Set(rosterOf(teamId)!.map((p) => p.position));
  assert.deepEqual([...positions(2002)].sort(), ['C', 'F', 'G', 'PF', 'PG', 'SF', 'SG']);
  const nfl = leagues.find((l) => l.key === 'nfl')!.teams[0]!.team_id;
  for (const p of ['QB', 'RB', 'WR', 'TE', 'K', 'P', 'LS', 'CB', 'S', 'LB']) assert.ok(positions(nfl).has(p), p);
  const epl = leagues.find((l) => l.key === 'epl')!.teams[0]!.team_id;
  assert.deepEqual([...positions(epl)].sort(), ['DF', 'FW', 'GK', 'MF']);
  const ipl = leagues.find((l) => l.key === 'ipl')!.teams[0]!.team_id;
  assert.ok(positions(ipl).has('Wicketkeeper') && positions(ipl).has('Bowler'));
});

test('unknown ids find nothing; rosters are the same on every call', () => {
  assert.equal(rosterOf(999_999), undefined);
  for (const id of [0, -1, 200200, 200299, 999_999_01, 1.5]) assert.equal(playerById(id), undefined, String(id));
  assert.deepEqual(rosterOf(3001), rosterOf(3001));
});

test('the simulator plays the catalog players: prop participants are roster members', () => {
  for (const key of ['atp', 'wta', 'mma']) {
    const team = leagues.find((l) => l.key === key)!.teams[3]!;
    const [athlete] = rosterOf(team.team_id)!;
    assert.deepEqual(
      roster(1, team, 'solo').map((p) => [p.id, p.name, p.position, p.jersey, p.team_id]),
      [[athlete!.player_id, athlete!.name, athlete!.position, athlete!.jersey_number, team.team_id]],
      key,
    );
  }
  for (const seed of [1, 7]) {
    for (const teamId of [2002, 2014]) {
      const team = leagues.find((l) => l.key === 'nba')!.teams.find((t) => t.team_id === teamId)!;
      const catalog = rosterOf(teamId)!;
      for (const p of roster(seed, team, 'basketball')) {
        const member = catalog.find((c) => c.player_id === p.id);
        assert.ok(member, `player ${p.id} is on the roster`);
        assert.equal(p.name, member.name);
        assert.equal(p.position, member.position);
        assert.equal(p.jersey, member.jersey_number);
      }
    }
  }
});
