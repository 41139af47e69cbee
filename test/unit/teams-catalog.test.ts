import assert from 'node:assert/strict';
import { test } from 'node:test';
import { leagueForSport, leagues, teamById } from '../../src/catalog/teams/index.ts';
import type { LeagueCatalog, TeamRecord } from '../../src/catalog/teams/types.ts';

const SPORT_IDS = [
  1, 2, 3, 4, 5, 6, 7, 8, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 30, 31, 32, 33,
  38, 39, 40, 41,
];

function league(key: string): LeagueCatalog {
  const found = leagues.find((candidate) => candidate.key === key);
  assert.ok(found, `league ${key} exists`);
  return found;
}

test('every sport id has exactly one league', () => {
  for (const sportId of SPORT_IDS) {
    const serving = leagues.filter((candidate) => candidate.sport_ids.includes(sportId));
    assert.equal(serving.length, 1, `sport ${sportId} is served by ${serving.length} leagues`);
    assert.equal(leagueForSport(sportId), serving[0]);
  }
  assert.equal(leagueForSport(9), undefined);
  assert.equal(leagueForSport(999), undefined);
});

test('league keys are unique', () => {
  const keys = leagues.map((candidate) => candidate.key);
  assert.equal(new Set(keys).size, keys.length);
});

test('team ids are unique within each league', () => {
  for (const { key, teams } of leagues) {
    const ids = teams.map((record) => record.team_id);
    assert.equal(new Set(ids).size, ids.length, `duplicate team id in ${key}`);
    for (const id of ids) assert.ok(Number.isInteger(id) && id > 0, `${key}: bad team id ${id}`);
  }
});

test('a team id shared between leagues refers to identical records', () => {
  const seen = new Map<number, { key: string; record: TeamRecord }>();
  let shared = 0;
  for (const { key, teams } of leagues) {
    for (const record of teams) {
      const first = seen.get(record.team_id);
      if (first) {
        shared++;
        assert.deepEqual(record, first.record, `team ${record.team_id} differs between ${first.key} and ${key}`);
      } else {
        seen.set(record.team_id, { key, record });
      }
      assert.deepEqual(teamById(record.team_id), record);
    }
  }
  assert.ok(shared > 0, 'UEFA competitions and the World Cup reuse records');
  assert.equal(teamById(-1), undefined);
});

test('abbreviations are unique within each league', () => {
  for (const { key, teams } of leagues) {
    const abbreviations = teams.map((record) => record.abbreviation);
    for (const abbreviation of abbreviations) assert.ok(abbreviation.length > 0, `${key}: empty abbreviation`);
    assert.equal(new Set(abbreviations).size, abbreviations.length, `duplicate abbreviation in ${key}`);
  }
});

test('major leagues have their full membership', () => {
  assert.equal(league('nfl').teams.length, 32);
  assert.equal(league('nba').teams.length, 30);
  assert.equal(league('mlb').teams.length, 30);
  assert.equal(league('nhl').teams.length, 32);
});

test('college leagues have at least 40 programs', () => {
  assert.ok(league('ncaaf').teams.length >= 40);
  assert.ok(league('ncaab').teams.length >= 40);
});

test('school ids differ between the college leagues', () => {
  const football = new Set(league('ncaaf').teams.map((record) => record.team_id));
  for (const record of league('ncaab').teams) assert.ok(!football.has(record.team_id));
});

test('tennis and MMA are individual with at least 32 athletes', () => {
  for (const key of ['atp', 'wta', 'mma']) {
    const catalog = league(key);
    assert.equal(catalog.individual, true, `${key} is individual`);
    assert.ok(catalog.teams.length >= 32, `${key} has ${catalog.teams.length} athletes`);
    const names = catalog.teams.map((record) => record.name);
    assert.equal(new Set(names).size, names.length, `${key} athlete names are unique`);
  }
  for (const catalog of leagues) {
    // Golfers and drivers are athletes too, in the futures-only sports.
    if (!['atp', 'wta', 'mma', 'golf', 'motorsport'].includes(catalog.key))
      assert.equal(catalog.individual, false, catalog.key);
  }
});
