import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DAY_MS, inPlayAt, playedGames } from '../helpers/live-timeline.ts';

/**
 * Issue 10, item 8: at every hour of the UTC day and every day of the week, at least five events
 * are in progress across sports. Measured on the schedule alone: every game of a simulated week,
 * played out by its engine (no books, no prices), sampled every five minutes.
 */

const FIVE_MINUTES = 5 * 60_000;
const MONDAY = Math.floor(Date.parse('2026-11-23T00:00:00Z') / DAY_MS);

test('every five minutes of a simulated week, at least five events are in play', () => {
  for (const seed of [1, 2, 3]) {
    // Games from the day before run into the first day.
    const games = playedGames(seed, MONDAY - 1, MONDAY + 7);
    const lowest = new Map<string, number>();
    for (let t = MONDAY * DAY_MS; t < (MONDAY + 7) * DAY_MS; t += FIVE_MINUTES) {
      const n = inPlayAt(games, t).length;
      const d = new Date(t);
      const key = `${['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'][d.getUTCDay()]} ${d.getUTCHours()}h`;
      lowest.set(key, Math.min(lowest.get(key) ?? n, n));
    }
    assert.equal(lowest.size, 7 * 24);
    const thin = [...lowest].filter(([, n]) => n < 5);
    assert.deepEqual(thin, [], `seed ${seed}: hours with fewer than five events in play`);
    // The probe: 15:30 UTC on a Monday.
    assert.ok(inPlayAt(games, (MONDAY * 24 + 15.5) * 3_600_000).length >= 5);
  }
});

test('the livelier schedule keeps the number of events within reason', () => {
  const games = playedGames(1, MONDAY, MONDAY + 6);
  const perDay = games.length / 7;
  assert.ok(perDay >= 100 && perDay <= 175, `${perDay.toFixed(0)} events a day`);
});
