import assert from 'node:assert/strict';
import { test } from 'node:test';
import { leagues } from '../../src/catalog/teams/index.ts';
import type { Score } from '../../src/domain/types.ts';
import { type CreditReader, resumeGame } from '../../src/feeds/simulator/game.ts';
import { expectation, sportParams, teamRatings } from '../../src/feeds/simulator/model.ts';
import { Rng } from '../../src/feeds/simulator/rng.ts';
import { lineup } from '../../src/feeds/simulator/roster.ts';

/**
 * A position player pitches in a late blowout, and his box line carries the sparse
 * `positionPlayerPitching` flag once. A restart rebuilds the engine from the committed score and
 * live state; the flag already in the box must not be credited again.
 */

const MLB = 3;
const SEED = 7;
const [away, home] = leagues.find((l) => l.key === 'mlb')!.teams;

function context() {
  const params = sportParams(MLB);
  return {
    sportId: MLB,
    params,
    expected: expectation(params, teamRatings(SEED, home!.team_id), teamRatings(SEED, away!.team_id), false, 0),
    rng: Rng.of(SEED, 'game', 'restore'),
    who: Rng.of(SEED, 'game', 'who', 'restore'),
    away: { team: away!, roster: lineup(SEED, away!, 'baseball') },
    home: { team: home!, roster: lineup(SEED, home!, 'baseball') },
    postseason: false,
    mainEvent: false,
  };
}

/** Top of the 9th, the away side 12 runs up: the home side has its second baseman on the mound. */
const blowout: Score = {
  event_id: 'e'.repeat(32),
  event_status: 'STATUS_IN_PROGRESS',
  score_away: 12,
  score_home: 0,
  winner_away: 0,
  winner_home: 0,
  score_away_by_period: [2, 2, 2, 2, 2, 1, 1, 0, 0],
  score_home_by_period: [0, 0, 0, 0, 0, 0, 0, 0],
  venue_name: '',
  venue_location: '',
  game_clock: 0,
  display_clock: '',
  game_period: 9,
  broadcast: '',
  event_status_detail: 'Top 9th',
  updated_at: '2026-11-24T20:00:00Z',
};

/** The flag credits the resumed game sends until it ends. */
function flagsAfterRestart(credited: CreditReader): { player: number | undefined }[] {
  const ctx = context();
  const engine = resumeGame('baseball', ctx, blowout, { inning: 9, half: 'top', outs: 0 }, credited);
  const flags: { player: number | undefined }[] = [];
  for (let s = 0; s < 6 * 3600 && engine.status !== 'STATUS_FINAL'; s += 10) {
    engine.advance(10);
    for (const play of engine.takePlays()) {
      for (const c of play.credits) if (c.stat === 'positionPlayerPitching') flags.push({ player: c.player_id });
    }
  }
  assert.equal(engine.status, 'STATUS_FINAL');
  return flags;
}

test('a position player pitching after a restart is flagged once, never again if his box has the flag', () => {
  const secondBaseman = context().home.roster[8]!;
  assert.equal(secondBaseman.position, '2B');
  // Not flagged before the restart: the next plate appearance he pitches flags him, once.
  assert.deepEqual(
    flagsAfterRestart(() => 0),
    [{ player: secondBaseman.id }],
  );
  // Flagged before the restart: the committed box already has his one.
  const flagged: CreditReader = (p, stat) => (p.id === secondBaseman.id && stat === 'positionPlayerPitching' ? 1 : 0);
  assert.deepEqual(flagsAfterRestart(flagged), []);
});
