import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  addPeriodPoints,
  displayClock,
  finalDetail,
  formatClock,
  openPeriod,
  ordinal,
  periodLabel,
  statusDetail,
  winners,
} from '../../src/domain/score.ts';
import { type ScoredSport, schemeOf, scoreRuleViolations } from '../../src/catalog/score-rules.ts';
import { sportProfile } from '../../src/catalog/sports.ts';
import type { Score } from '../../src/domain/types.ts';

function score(away: number[], home: number[], extra: Partial<Score> = {}): Score {
  const scoreAway = away.reduce((a, b) => a + b, 0);
  const scoreHome = home.reduce((a, b) => a + b, 0);
  const status = extra.event_status ?? 'STATUS_FINAL';
  return {
    event_id: 'e',
    event_status: status,
    score_away: scoreAway,
    score_home: scoreHome,
    ...winners(status, scoreAway, scoreHome),
    score_away_by_period: away,
    score_home_by_period: home,
    venue_name: '',
    venue_location: '',
    game_clock: 0,
    display_clock: '0:00',
    game_period: away.length,
    broadcast: '',
    event_status_detail: 'Final',
    updated_at: '2026-11-23T00:00:00Z',
    ...extra,
  };
}

/** The simulator's record of a sport id. */
const sport = (sportId: number): ScoredSport => sportProfile(sportId)!;

test('ordinals and clocks', () => {
  assert.deepEqual([1, 2, 3, 4, 11, 12, 13, 21, 22, 103].map(ordinal), [
    '1st',
    '2nd',
    '3rd',
    '4th',
    '11th',
    '12th',
    '13th',
    '21st',
    '22nd',
    '103rd',
  ]);
  assert.equal(formatClock(312), '5:12');
  assert.equal(formatClock(7.9), '0:07');
  assert.equal(formatClock(0), '0:00');
  assert.equal(formatClock(-3), '0:00');
});

test("schemes follow the sport record's discipline", () => {
  assert.equal(schemeOf(sport(2)), 'quarters');
  assert.equal(schemeOf(sport(4)), 'quarters');
  assert.equal(schemeOf(sport(5)), 'halves');
  assert.equal(schemeOf(sport(6)), 'hockey');
  assert.equal(schemeOf(sport(3)), 'innings');
  assert.equal(schemeOf(sport(11)), 'soccer');
  assert.equal(schemeOf(sport(38)), 'sets');
  assert.equal(schemeOf(sport(7)), 'rounds');
  assert.equal(schemeOf(sport(20)), 'cricket');
  assert.equal(schemeOf(sport(22)), 'none');
  // A feed's own sport: its record's discipline, whatever its id.
  assert.equal(schemeOf({ sport_id: 60, discipline: 'basketball', season_type: 'Regular Season' }), 'quarters');
  assert.equal(schemeOf({ sport_id: 61, discipline: 'hockey', season_type: 'Regular Season' }), 'hockey');
  // A simulator sport id a feed redefines follows the new record.
  assert.equal(schemeOf({ sport_id: 4, discipline: 'tennis', season_type: 'Regular Season' }), 'sets');
});

test('period labels, with overtime periods after regulation', () => {
  assert.equal(periodLabel('quarters', 3), 'Q3');
  assert.equal(periodLabel('quarters', 5), 'OT');
  assert.equal(periodLabel('quarters', 6), '2OT');
  assert.equal(periodLabel('halves', 2), '2nd Half');
  assert.equal(periodLabel('halves', 3), 'OT');
  assert.equal(periodLabel('hockey', 2), '2nd');
  assert.equal(periodLabel('innings', 7), '7th');
  assert.equal(periodLabel('rounds', 2), 'R2');
  assert.equal(periodLabel('sets', 3), 'Set 3');
});

test('final markers: Final, one entry per overtime, Final/SO, extra innings', () => {
  assert.equal(finalDetail('quarters', 4), 'Final');
  assert.equal(finalDetail('quarters', 5), 'Final/OT');
  assert.equal(finalDetail('quarters', 6), 'Final/2OT');
  assert.equal(finalDetail('halves', 2), 'Final');
  assert.equal(finalDetail('halves', 3), 'Final/OT');
  assert.equal(finalDetail('hockey', 3), 'Final');
  assert.equal(finalDetail('hockey', 4), 'Final/OT');
  assert.equal(finalDetail('hockey', 5, true), 'Final/SO');
  assert.equal(finalDetail('innings', 9), 'Final');
  assert.equal(finalDetail('innings', 11), 'Final/11');
  assert.equal(finalDetail('soccer', 2), 'Final');
  assert.equal(finalDetail('sets', 0), 'Final');
});

test('live status details per scheme', () => {
  const live = 'STATUS_IN_PROGRESS' as const;
  assert.equal(statusDetail({ scheme: 'quarters', status: live, period: 3, clock: 312 }), 'Q3 5:12');
  assert.equal(statusDetail({ scheme: 'quarters', status: live, period: 5, clock: 130 }), 'OT 2:10');
  assert.equal(statusDetail({ scheme: 'quarters', status: live, period: 1, clock: 0, periodOver: true }), 'End Q1');
  assert.equal(statusDetail({ scheme: 'quarters', status: 'STATUS_HALFTIME', period: 2, clock: 0 }), 'Halftime');
  assert.equal(statusDetail({ scheme: 'halves', status: live, period: 1, clock: 750 }), '1st Half 12:30');
  assert.equal(statusDetail({ scheme: 'hockey', status: live, period: 2, clock: 0, periodOver: true }), 'End 2nd');
  assert.equal(statusDetail({ scheme: 'hockey', status: live, period: 5, clock: 0, shootout: true }), 'SO');
  assert.equal(statusDetail({ scheme: 'innings', status: live, period: 7, clock: 0, half: 'top' }), 'Top 7th');
  assert.equal(statusDetail({ scheme: 'innings', status: live, period: 7, clock: 0, half: 'bottom' }), 'Bot 7th');
  assert.equal(
    statusDetail({ scheme: 'innings', status: live, period: 7, clock: 0, half: 'top', periodOver: true }),
    'Mid 7th',
  );
  assert.equal(
    statusDetail({ scheme: 'innings', status: live, period: 7, clock: 0, half: 'bottom', periodOver: true }),
    'End 7th',
  );
  assert.equal(statusDetail({ scheme: 'soccer', status: live, period: 1, clock: 33 * 60 + 5 }), "34'");
  assert.equal(statusDetail({ scheme: 'soccer', status: live, period: 1, clock: 46 * 60 + 10 }), "45'+2'");
  assert.equal(statusDetail({ scheme: 'soccer', status: live, period: 2, clock: 92 * 60 }), "90'+3'");
  assert.equal(statusDetail({ scheme: 'rounds', status: live, period: 2, clock: 192 }), 'R2 3:12');
  assert.equal(statusDetail({ scheme: 'sets', status: live, period: 2, clock: 0 }), 'Set 2');
  assert.equal(
    statusDetail({ scheme: 'cricket', status: live, period: 1, clock: 0, periodOver: true }),
    'Innings Break',
  );
  assert.equal(statusDetail({ scheme: 'quarters', status: 'STATUS_POSTPONED', period: 0, clock: 0 }), 'Postponed');
  assert.equal(statusDetail({ scheme: 'quarters', status: 'STATUS_CANCELED', period: 0, clock: 0 }), 'Canceled');
});

test('display clocks: countdown M:SS, soccer minutes, 0:00 without a clock', () => {
  assert.equal(displayClock('quarters', 312, 3), '5:12');
  assert.equal(displayClock('hockey', 59, 1), '0:59');
  assert.equal(displayClock('soccer', 61 * 60, 2), "62'");
  assert.equal(displayClock('innings', 0, 7), '0:00');
});

test('winner flags: 1 for the winner of a final, 0 otherwise and for ties', () => {
  assert.deepEqual(winners('STATUS_FINAL', 101, 99), { winner_away: 1, winner_home: 0 });
  assert.deepEqual(winners('STATUS_FINAL', 20, 27), { winner_away: 0, winner_home: 1 });
  assert.deepEqual(winners('STATUS_FINAL', 17, 17), { winner_away: 0, winner_home: 0 });
  assert.deepEqual(winners('STATUS_IN_PROGRESS', 3, 0), { winner_away: 0, winner_home: 0 });
});

test('period arrays grow only for periods a side has reached', () => {
  const away: number[] = [];
  addPeriodPoints(away, 1, 7);
  addPeriodPoints(away, 3, 3);
  assert.deepEqual(away, [7, 0, 3]);
  const home = [1, 0];
  openPeriod(home, 2);
  assert.deepEqual(home, [1, 0]);
  openPeriod(home, 3);
  assert.deepEqual(home, [1, 0, 0]);
});

test('rule 3: regulation and overtime finals in football and basketball', () => {
  assert.deepEqual(scoreRuleViolations(score([7, 3, 7, 0], [0, 10, 3, 7]), sport(2)), []);
  assert.deepEqual(
    scoreRuleViolations(
      score([25, 30, 22, 28, 10], [30, 25, 27, 23, 8], { event_status_detail: 'Final/OT' }),
      sport(4),
    ),
    [],
  );
  assert.deepEqual(
    scoreRuleViolations(
      score([25, 30, 22, 28, 10, 9], [30, 25, 27, 23, 10, 12], { event_status_detail: 'Final/2OT' }),
      sport(4),
    ),
    [],
  );
  const wrongDetail = score([25, 30, 22, 28, 10], [30, 25, 27, 23, 8]);
  assert.deepEqual(
    scoreRuleViolations(wrongDetail, sport(4)).map((f) => f.field),
    ['/event_status_detail'],
  );
  const short = score([7, 3, 7], [0, 10, 3]);
  assert.ok(scoreRuleViolations(short, sport(2)).some((v) => v.message.includes('regulation')));
  const period = score([25, 30, 22, 28], [30, 25, 27, 22], { game_period: 5 });
  assert.ok(scoreRuleViolations(period, sport(4)).some((v) => v.message.includes('game_period')));
});

test('rule 4: baseball home array is one shorter only when home skipped its last at-bat', () => {
  const skipped = score([0, 1, 0, 0, 2, 0, 0, 0, 0], [1, 0, 0, 2, 0, 0, 1, 0]);
  assert.deepEqual(scoreRuleViolations({ ...skipped, game_period: 9 }, sport(3)), []);
  const walkOff = score([0, 1, 0, 0, 2, 0, 0, 0, 0], [1, 0, 0, 0, 0, 0, 1, 0, 2]);
  assert.deepEqual(scoreRuleViolations(walkOff, sport(3)), []);
  const extras = score([0, 1, 0, 0, 2, 0, 0, 0, 0, 1], [1, 0, 0, 0, 0, 0, 1, 1, 0, 0], {
    event_status_detail: 'Final/10',
  });
  assert.deepEqual(scoreRuleViolations(extras, sport(3)), []);
  const trailingShort = score([0, 1, 0, 0, 2, 0, 0, 0, 1], [1, 0, 0, 0, 0, 0, 1, 0]);
  assert.ok(scoreRuleViolations({ ...trailingShort, game_period: 9 }, sport(3)).length > 0);
  const padded = score([0, 1, 0, 0, 2, 0, 0, 0, 0], [1, 0, 0, 2, 0, 0, 1, 0, 0, 0]);
  assert.ok(scoreRuleViolations({ ...padded, game_period: 9 }, sport(3)).length > 0);
});

test('rule 5: preseason finals may have empty period arrays, other sports may not', () => {
  const empty = { ...score([], []), score_away: 101, score_home: 99, winner_away: 1, game_period: 4 };
  assert.deepEqual(scoreRuleViolations(empty, sport(23)), []);
  assert.deepEqual(scoreRuleViolations(empty, sport(25)), []);
  assert.ok(scoreRuleViolations(empty, sport(4)).length > 0);
  // By the record's season type: a feed's own preseason sport too.
  const feedPreseason: ScoredSport = { sport_id: 62, discipline: 'basketball', season_type: 'Preseason' };
  assert.deepEqual(scoreRuleViolations(empty, feedPreseason), []);
  assert.ok(scoreRuleViolations(empty, { ...feedPreseason, season_type: 'Regular Season' }).length > 0);
});

test('period sums and winner flags must agree with the score', () => {
  const s = score([1, 0, 2], [0, 1, 0]);
  assert.deepEqual(scoreRuleViolations(s, sport(6)), []);
  assert.ok(scoreRuleViolations({ ...s, score_away: 4 }, sport(6)).some((v) => v.message.includes('add up')));
  assert.ok(scoreRuleViolations({ ...s, winner_away: 0 }, sport(6)).some((v) => v.message.includes('winner')));
  const so = score([1, 1, 0, 0, 1], [1, 1, 0, 0, 0], { event_status_detail: 'Final/SO' });
  assert.deepEqual(scoreRuleViolations(so, sport(6)), []);
});

test('tennis scores count sets won; MMA and politics carry no period entries', () => {
  const tennis = {
    ...score([6, 3, 7], [4, 6, 5]),
    score_away: 2,
    score_home: 1,
    winner_away: 1,
    winner_home: 0,
  };
  assert.deepEqual(scoreRuleViolations(tennis, sport(38)), []);
  assert.ok(scoreRuleViolations({ ...tennis, score_away: 16 }, sport(38)).length > 0);
  const mma = { ...score([], []), winner_home: 1, game_period: 2 };
  assert.deepEqual(scoreRuleViolations(mma, sport(7)), []);
  assert.ok(scoreRuleViolations({ ...mma, score_home_by_period: [1] }, sport(7)).length > 0);
});
