import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sportProfile, SPORTS } from '../../src/catalog/sports.ts';
import { schemeOf, scoreRuleViolations } from '../../src/catalog/score-rules.ts';
import { finalDetail, PRESEASON_SPORT_IDS, sum } from '../../src/domain/score.ts';
import type { Score } from '../../src/domain/types.ts';
import { DAY_MS, type PlayedGame, playedGames } from '../helpers/live-timeline.ts';

/**
 * Spec, Score rules 3 to 5, checked on every final of simulated days of every sport: period
 * arrays by sport and overtime, baseball's shorter home array, period sums equal to the finals
 * (regular season and playoffs), game_period and the final marker. A week, three seeds, every
 * game played out by its engine as the simulator plays it.
 */

const MONDAY = Math.floor(Date.parse('2026-11-23T00:00:00Z') / DAY_MS);

const finals: PlayedGame[] = [1, 2, 3].flatMap((seed) => playedGames(seed, MONDAY, MONDAY + 6));
const bySport = (ids: readonly number[]) => finals.filter((g) => ids.includes(g.spec.sport.sport_id));
const ids = (f: (sportId: number) => boolean) => SPORTS.map((s) => s.sport_id).filter(f);

const asScore = (g: PlayedGame): Score =>
  ({ ...g.final, event_id: g.spec.id, updated_at: '', venue_name: '', venue_location: '', broadcast: '' }) as Score;

test('every sport the simulator plays ends its games final', () => {
  const played = new Set(finals.map((g) => g.spec.sport.sport_id));
  // Golf and motor racing are futures-only: boards, no games.
  for (const sport of SPORTS.filter((s) => !s.futures_only))
    assert.ok(played.has(sport.sport_id), `sport ${sport.sport_id} has games`);
  for (const g of finals) assert.equal(g.final.event_status, 'STATUS_FINAL', g.spec.id);
});

test('football and pro basketball: four entries a side, one more per overtime, Final, Final/OT, Final/2OT', () => {
  const quarters = bySport(ids((id) => schemeOf(sportProfile(id)!) === 'quarters'));
  assert.ok(quarters.length > 100, `${quarters.length} games`);
  let overtime = 0;
  for (const { final: f, spec } of quarters) {
    const label = `${spec.sport.sport_id} ${JSON.stringify(f)}`;
    const n = f.score_away_by_period.length;
    assert.ok(n >= 4, label);
    assert.equal(f.score_home_by_period.length, n, label);
    assert.equal(f.game_period, n, label);
    const expected = n === 4 ? 'Final' : n === 5 ? 'Final/OT' : `Final/${n - 4}OT`;
    assert.equal(f.event_status_detail, expected, label);
    if (n > 4) overtime++;
  }
  assert.ok(overtime > 0, 'some games go to overtime');
});

test('baseball: the home array is one shorter exactly when home did not bat in the last inning', () => {
  const baseball = bySport(ids((id) => schemeOf(sportProfile(id)!) === 'innings'));
  assert.ok(baseball.length > 30, `${baseball.length} games`);
  let skipped = 0;
  for (const { final: f } of baseball) {
    const label = JSON.stringify(f);
    const away = f.score_away_by_period.length;
    const home = f.score_home_by_period.length;
    assert.ok(away >= 9 && f.game_period === away, label);
    assert.ok(home === away || home === away - 1, label);
    if (home === away - 1) {
      skipped++;
      // Home led going into the bottom of the last inning, so it never batted there.
      assert.ok(sum(f.score_home_by_period) > sum(f.score_away_by_period), label);
    } else {
      // Home batted in the last inning: it trailed or was level after the top half.
      const beforeLast = sum(f.score_home_by_period.slice(0, -1));
      assert.ok(beforeLast <= sum(f.score_away_by_period), label);
    }
    assert.equal(f.event_status_detail, finalDetail('innings', away), label);
  }
  assert.ok(skipped > 0, 'some home teams skip the bottom of the last inning');
});

test('period sums equal the finals in regular-season and playoff games; every final obeys the score rules', () => {
  for (const g of finals) {
    const sportId = g.spec.sport.sport_id;
    const f = g.final;
    assert.deepEqual(scoreRuleViolations(asScore(g), g.spec.sport), [], `${sportId} ${JSON.stringify(f)}`);
    const scheme = schemeOf(g.spec.sport);
    if (PRESEASON_SPORT_IDS.has(sportId) || scheme === 'sets' || scheme === 'rounds' || scheme === 'none') continue;
    assert.equal(sum(f.score_away_by_period), f.score_away, `${sportId} away`);
    assert.equal(sum(f.score_home_by_period), f.score_home, `${sportId} home`);
  }
});
