import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { rosterOf } from '../../src/catalog/rosters/index.ts';
import { seasonYear } from '../../src/catalog/seasons.ts';
import { sportProfile } from '../../src/catalog/sports.ts';
import { batch, creditPlay, nbaEvent, score } from '../helpers/fixtures.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { PLAIN } from '../../src/perf/switch.ts';

/**
 * A rule per caller that changes its answer while a kept answer stays current (no commit, same day
 * of the kept stats): the handler refuses from that instant, and so must a repeated poll, which the
 * fast lane would otherwise answer from the kept body (src/http/caller-rules.ts).
 */

const DAY = 86_400_000;
const FINAL = '7'.repeat(32);
const BOS = 2002;
const FINAL_BOX = `/api/v2/events/${FINAL}/players/stats`;
const P1 = rosterOf(BOS)![0]!;

/** Noon UTC of today: an hour either way stays in the same day. */
const NOON = Math.floor(Date.now() / DAY) * DAY + DAY / 2;
let clock = NOON;
let s: TestServer;

/** Requests the lane answered; none under the plain switch, which turns it off (the router is its twin). */
const lane = () => s.server.app.fastLane?.count ?? 0;
const LANED = PLAIN ? 0 : 1;
const isoDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** One request a second is Free's limit (spec: Rate limit tiers): each request moves the clock on a second. */
async function get(path: string, key: string) {
  clock += 1001;
  const res = await fetch(s.url + path, { headers: { 'X-Service-Key': key } });
  return { status: res.status, text: await res.text() };
}

before(async () => {
  // A long key cache: the lane knows cached keys only, and these tests are about its rules alone.
  s = await startTestServer({ now: () => clock, limits: { authCacheMs: 3_600_000 } });
  const season = seasonYear(sportProfile(4)!, clock);
  const yesterday = isoDay(clock - DAY);
  const event = nbaEvent(FINAL, yesterday, 23);
  await s.server.ledger.apply(
    batch(new Date(clock - 3_600_000).toISOString(), [
      { kind: 'event', event: { ...event, schedule: { ...event.schedule, season_year: season } } },
      { kind: 'score', event_id: FINAL, score: score(FINAL, 'STATUS_IN_PROGRESS', 0, 0) },
      { kind: 'play', event_id: FINAL, play: creditPlay(BOS, P1.player_id, 'points', 3, { away: 3, home: 0 }) },
      { kind: 'score', event_id: FINAL, score: score(FINAL, 'STATUS_FINAL', 3, 0) },
    ]),
  );
});

after(() => s.close());

test('a Free evaluation that ends between two polls of a kept box score: the repeated poll is refused too', async () => {
  // Created so that its seven days of completed box scores end a minute from now (spec: stats access).
  const free = await s.newKey('free', { createdAt: new Date(clock - 7 * DAY + 60_000) });
  const first = await get(FINAL_BOX, free);
  assert.equal(first.status, 200);
  const before = lane();
  const again = await get(FINAL_BOX, free);
  assert.equal(lane(), before + LANED, "the repeated poll is the lane's");
  assert.equal(again.text, first.text);
  clock += 60_000;
  for (let i = 0; i < 2; i++) {
    const refused = await get(FINAL_BOX, free);
    assert.equal(refused.status, 403);
    assert.equal(JSON.parse(refused.text).feature, 'completed_box_scores');
  }
  assert.equal(lane(), before + LANED, 'the lane answered none of the refused polls');
});

test('a history window that moves at midnight between two polls of a kept snapshot: the repeated poll is refused too', async () => {
  const free = await s.newKey('free');
  // Ten seconds before midnight: the oldest day Free's window (7 days) reaches goes out of it then.
  const midnight = Math.floor(clock / DAY) * DAY + DAY;
  clock = midnight - 10_000;
  const oldest = `/api/v2/sports/4/events/${isoDay(midnight - 1 - 7 * DAY)}`;
  // A snapshot is kept from its second request; the third is the lane's.
  for (let i = 0; i < 2; i++) assert.equal((await get(oldest, free)).status, 200);
  const before = lane();
  assert.equal((await get(oldest, free)).status, 200);
  assert.equal(lane(), before + LANED, "the repeated poll is the lane's");
  clock = midnight + 1_000;
  for (let i = 0; i < 2; i++) {
    const refused = await get(oldest, free);
    assert.equal(refused.status, 403);
    assert.equal(JSON.parse(refused.text).history_days_limit, 7);
  }
  assert.equal(lane(), before + LANED, 'the lane answered none of the refused polls');
});
