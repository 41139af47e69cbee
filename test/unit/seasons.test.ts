import assert from 'node:assert/strict';
import { test } from 'node:test';
import { seasonYear } from '../../src/catalog/seasons.ts';
import { type SeasonTypeName, sportProfile } from '../../src/catalog/sports.ts';

const OCTOBER_2026 = Date.parse('2026-10-15T12:00:00Z');
const MARCH_2027 = Date.parse('2027-03-15T12:00:00Z');

const feedSoccer = (sport_id: number, season_type: SeasonTypeName) =>
  ({ sport_id, discipline: 'soccer', season_type }) as const;

test("the simulator's soccer sports: European leagues by the year they start, the others by the calendar", () => {
  for (const id of [11, 12, 13, 14, 15, 16]) {
    assert.equal(seasonYear(sportProfile(id)!, OCTOBER_2026), 2026, `sport ${id}`);
    assert.equal(seasonYear(sportProfile(id)!, MARCH_2027), 2026, `sport ${id}`);
  }
  for (const id of [10, 17, 18, 19, 33]) assert.equal(seasonYear(sportProfile(id)!, MARCH_2027), 2027, `sport ${id}`);
});

test("a feed's own sport: its record's discipline and season type, whatever its id", () => {
  assert.equal(seasonYear(feedSoccer(60, 'Regular Season'), OCTOBER_2026), 2026);
  assert.equal(seasonYear(feedSoccer(60, 'Regular Season'), MARCH_2027), 2026);
  // A tournament counts its calendar year.
  assert.equal(seasonYear(feedSoccer(61, 'Special'), MARCH_2027), 2027);
  assert.equal(
    seasonYear({ sport_id: 62, discipline: 'basketball', season_type: 'Regular Season' }, OCTOBER_2026),
    2027,
  );
});
