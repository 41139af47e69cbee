import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { rosterOf } from '../../src/catalog/rosters/index.ts';
import { seasonYear } from '../../src/catalog/seasons.ts';
import { sportProfile } from '../../src/catalog/sports.ts';
import { statByName } from '../../src/catalog/stats.ts';
import { teamById } from '../../src/catalog/teams/index.ts';
import type { PlayInput } from '../../src/domain/plays.ts';
import { batch, creditPlay, nbaEvent, score, today } from '../helpers/fixtures.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

/** Boston (2002) plays two regular-season games of the current season: one final, one in progress. */
const BOS = 2002;
const LAL = 2014;
const FINAL = '7'.repeat(32);
const LIVE = '8'.repeat(32);
const YEAR = seasonYear(sportProfile(4)!, Date.now());
const POINTS = statByName(4, 'points')!.id;
const REBOUNDS = statByName(4, 'rebounds')!.id;
const ROSTER = rosterOf(BOS)!;
const [P1, P2] = [ROSTER[0]!, ROSTER[1]!];

let s: TestServer;
/** Created now: season stats need Pro under the new policy. */
let newStarter: string;
/** Created before the cutoff of 2026-09-07T18:00Z: legacy access to every stats feature. */
let legacyStarter: string;
let pro: string;

const play = creditPlay;

function game(id: string) {
  const ev = nbaEvent(id, today(), 1);
  return { ...ev, schedule: { ...ev.schedule, season_year: YEAR } };
}

async function apply(at: string, eventId: string, plays: PlayInput[], status: 'STATUS_FINAL' | 'STATUS_IN_PROGRESS') {
  const last = plays.at(-1)!;
  await s.server.ledger.apply(
    batch(at, [
      ...plays.map((p) => ({ kind: 'play' as const, event_id: eventId, play: p })),
      { kind: 'score', event_id: eventId, score: score(eventId, status, last.score_away, last.score_home) },
    ]),
  );
}

before(async () => {
  s = await startTestServer();
  newStarter = await s.newKey('starter');
  legacyStarter = await s.newKey('starter', { createdAt: new Date('2026-06-01T00:00:00Z') });
  pro = await s.newKey('pro');
  // Long enough ago that every delayed plan sees it.
  const past = new Date(Date.now() - 3_600_000).toISOString();
  await s.server.ledger.apply(
    batch(past, [
      { kind: 'event', event: game(FINAL) },
      { kind: 'event', event: game(LIVE) },
      { kind: 'score', event_id: FINAL, score: score(FINAL, 'STATUS_IN_PROGRESS', 0, 0) },
      { kind: 'score', event_id: LIVE, score: score(LIVE, 'STATUS_IN_PROGRESS', 0, 0) },
    ]),
  );
  await apply(
    past,
    FINAL,
    [
      play(BOS, P1.player_id, 'points', 2, { away: 2, home: 0 }),
      play(BOS, P2.player_id, 'points', 3, { away: 5, home: 0 }),
      play(LAL, LAL * 100 + 1, 'points', 2, { away: 5, home: 2 }),
      play(BOS, P1.player_id, 'rebounds', 1, { away: 5, home: 2 }),
    ],
    'STATUS_FINAL',
  );
  await apply(past, LIVE, [play(BOS, P1.player_id, 'points', 3, { away: 3, home: 0 })], 'STATUS_IN_PROGRESS');
});

after(() => s.close());

type Row = { stat_id: number; name: string; value: string | number };
const valueOf = (stats: Row[], id: number) => stats.find((r) => r.stat_id === id)?.value;

describe('/api/v2/teams/{teamID}/stats', () => {
  test('the current regular season by default, summing the final and in-progress games, one point per value', async () => {
    const res = await s.get(`/api/v2/teams/${BOS}/stats`);
    assert.equal(res.status, 200);
    assert.equal(res.body.length, 1);
    const [row] = res.body;
    assert.deepEqual(Object.keys(row), ['team', 'season', 'stats']);
    assert.deepEqual(row.team, { team_id: BOS, name: teamById(BOS)!.name });
    assert.deepEqual(row.season, { year: YEAR, season_type: 2 });
    assert.deepEqual(Object.keys(row.stats[0]), ['stat_id', 'name', 'value']);
    assert.equal(valueOf(row.stats, POINTS), '8');
    assert.equal(valueOf(row.stats, REBOUNDS), '1');
    assert.equal(row.stats.find((r: Row) => r.stat_id === POINTS).name, 'points');
    assert.equal(res.headers.get('x-datapoints'), String(row.stats.length));
  });

  test('stats_ids narrows it; another year or season type has no games; the aggregate follows new plays', async () => {
    const one = await s.get(`/api/v2/teams/${BOS}/stats?stats_ids=${REBOUNDS}`);
    assert.deepEqual(one.body[0].stats, [{ stat_id: REBOUNDS, name: 'rebounds', value: '1' }]);
    assert.equal(one.headers.get('x-datapoints'), '1');
    const last = await s.get(`/api/v2/teams/${BOS}/stats?year=${YEAR - 1}`);
    assert.deepEqual(last.body, [
      { team: { team_id: BOS, name: teamById(BOS)!.name }, season: { year: YEAR - 1, season_type: 2 }, stats: [] },
    ]);
    const pre = await s.get(`/api/v2/teams/${BOS}/stats?season_type=1`);
    assert.deepEqual(pre.body[0].season, { year: YEAR, season_type: 1 });
    assert.deepEqual(pre.body[0].stats, []);
    await apply(
      new Date(Date.now() - 3_600_000).toISOString(),
      LIVE,
      [play(BOS, P2.player_id, 'points', 2, { away: 5, home: 0 })],
      'STATUS_IN_PROGRESS',
    );
    const moved = await s.get(`/api/v2/teams/${BOS}/stats?stats_ids=${POINTS}`);
    assert.equal(valueOf(moved.body[0].stats, POINTS), '10');
  });

  test('bounds and unknowns: 13 stats_ids, a bad year or season type are 400; an unknown team 404', async () => {
    const thirteen = Array.from({ length: 13 }, (_, i) => 4001 + i).join(',');
    const bad = await s.get(`/api/v2/teams/${BOS}/stats?stats_ids=${thirteen}`);
    assert.equal(bad.status, 400);
    assert.match(bad.body.error, /at most 12/);
    for (const q of ['year=abc', 'year=20260', 'season_type=0', 'season_type=9', 'season_type=x']) {
      const res = await s.get(`/api/v2/teams/${BOS}/stats?${q}`);
      assert.equal(res.status, 400, q);
      assert.ok(res.body.error, q);
    }
    const unknown = await s.get('/api/v2/teams/999999/stats');
    assert.equal(unknown.status, 404);
    assert.match(unknown.body.message, /not found/);
    assert.equal((await s.get('/api/v2/teams/abc/stats')).status, 400);
    assert.equal((await s.get(`/api/v2/teams/${BOS}/stats`, {})).status, 401);
  });
});

describe('a delayed plan', () => {
  test('sees the season as of its delay: a play within it is counted for real-time plans only', async () => {
    const before = await s.get(`/api/v2/teams/${BOS}/stats?stats_ids=${POINTS}`, { 'X-Service-Key': pro });
    await apply(
      new Date().toISOString(),
      LIVE,
      [play(BOS, P2.player_id, 'points', 2, { away: 7, home: 0 })],
      'STATUS_IN_PROGRESS',
    );
    const live = await s.get(`/api/v2/teams/${BOS}/stats?stats_ids=${POINTS}`);
    const delayed = await s.get(`/api/v2/teams/${BOS}/stats?stats_ids=${POINTS}`, { 'X-Service-Key': pro });
    assert.equal(Number(valueOf(live.body[0].stats, POINTS)), Number(valueOf(before.body[0].stats, POINTS)) + 2);
    assert.deepEqual(delayed.body, before.body);
  });
});

// A delayed view moves on by itself (its delay passes): a body built while it did shows the head the
// build read, and is kept under that head, never under the later one, whose state it does not show.
test("a delayed plan's season body is kept under the head it was built at, though the view moved on meanwhile", async (t) => {
  const clock = { now: Date.now() };
  const own = await startTestServer({ now: () => clock.now });
  t.after(() => own.close());
  const key = await own.newKey('pro');
  const path = `/api/v2/teams/${BOS}/stats?stats_ids=${POINTS}`;
  await own.server.ledger.apply(
    batch(new Date(clock.now - 3_600_000).toISOString(), [
      { kind: 'event', event: game(LIVE) },
      { kind: 'play', event_id: LIVE, play: play(BOS, P1.player_id, 'points', 3, { away: 3, home: 0 }) },
      { kind: 'score', event_id: LIVE, score: score(LIVE, 'STATUS_IN_PROGRESS', 3, 0) },
    ]),
  );
  // Described now: real-time plans count it at once, Pro (30 s) once its delay has passed.
  await own.server.ledger.apply(
    batch(new Date(clock.now).toISOString(), [
      { kind: 'play', event_id: LIVE, play: play(BOS, P1.player_id, 'points', 2, { away: 5, home: 0 }) },
      { kind: 'score', event_id: LIVE, score: score(LIVE, 'STATUS_IN_PROGRESS', 5, 0) },
    ]),
  );
  // The box as the Pro view shows it is read from the store; while that read is out, the delay passes.
  const { store, views } = own.server.services;
  const readStats = store.readStats.bind(store);
  let reads = 0;
  store.readStats = async (eventId, uptoId) => {
    const rows = await readStats(eventId, uptoId);
    if (reads++ === 0) {
      clock.now += 31_000;
      views.forDelay(30);
    }
    return rows;
  };
  const points = async () => {
    const res = await own.get(path, { 'X-Service-Key': key });
    assert.equal(res.status, 200);
    return Number(valueOf(res.body[0].stats, POINTS));
  };
  assert.equal(await points(), 3, 'built at the head before the play');
  assert.equal(reads, 1);
  assert.equal(await points(), 5, 'the view has moved on: the play is counted, not the body built before it');
});

describe('/api/v2/teams/{teamID}/players/stats', () => {
  test('one row per current roster player who played, with the roster’s name and position', async () => {
    const res = await s.get(`/api/v2/teams/${BOS}/players/stats`);
    assert.equal(res.status, 200);
    assert.deepEqual(
      res.body.map((r: { player: { player_id: number } }) => r.player.player_id),
      [P1.player_id, P2.player_id],
    );
    const [first] = res.body;
    assert.deepEqual(Object.keys(first), ['player', 'team', 'season', 'stats']);
    assert.deepEqual(first.player, { player_id: P1.player_id, name: P1.name, position: P1.position });
    assert.deepEqual(first.team, { team_id: BOS, name: teamById(BOS)!.name });
    assert.deepEqual(first.season, { year: YEAR, season_type: 2 });
    // Player season values are numbers (existing clients read numbers; the spec types team values only).
    assert.equal(valueOf(first.stats, POINTS), 5);
    assert.equal(valueOf(first.stats, REBOUNDS), 1);
    const values = res.body.reduce((a: number, r: { stats: Row[] }) => a + r.stats.length, 0);
    assert.equal(res.headers.get('x-datapoints'), String(values));
  });

  test('player_ids and stats_ids narrow it; bounds are 400; an unknown team 404', async () => {
    const one = await s.get(`/api/v2/teams/${BOS}/players/stats?player_ids=${P2.player_id}&stats_ids=${POINTS}`);
    assert.equal(one.body.length, 1);
    assert.equal(one.body[0].player.player_id, P2.player_id);
    assert.deepEqual(
      one.body[0].stats.map((r: Row) => r.stat_id),
      [POINTS],
    );
    // Another team's player is not on Boston's roster.
    assert.deepEqual((await s.get(`/api/v2/teams/${BOS}/players/stats?player_ids=${LAL * 100 + 1}`)).body, []);
    const thirteen = Array.from({ length: 13 }, (_, i) => 4001 + i).join(',');
    assert.equal((await s.get(`/api/v2/teams/${BOS}/players/stats?stats_ids=${thirteen}`)).status, 400);
    assert.equal((await s.get(`/api/v2/teams/${BOS}/players/stats?player_ids=x`)).status, 400);
    // No roster has 100 players (ids are team_id x 100 + slot), so a longer list is refused.
    const hundred = Array.from({ length: 100 }, (_, i) => BOS * 100 + i + 1).join(',');
    assert.equal((await s.get(`/api/v2/teams/${BOS}/players/stats?player_ids=${hundred}`)).status, 400);
    assert.equal(
      (await s.get(`/api/v2/teams/${BOS}/players/stats?player_ids=${hundred.split(',').slice(0, 99).join(',')}`))
        .status,
      200,
    );
    assert.equal((await s.get(`/api/v2/teams/${BOS}/players/stats?season_type=5`)).status, 400);
    assert.equal((await s.get('/api/v2/teams/999999/players/stats')).status, 404);
  });
});

describe('the stats-access policy', () => {
  test('by account date over HTTP: the Free evaluation, the new plans and legacy access to a final and a live box', async () => {
    const DAY = 86_400_000;
    // A key per request: Free's burst ceiling is one request a second.
    const status = async (path: string, tier: 'free' | 'starter', createdAt: Date) => {
      const res = await s.get(path, { 'X-Service-Key': await s.newKey(tier, { createdAt }) });
      return res.status === 200 ? 200 : `${res.status} ${res.body.feature}`;
    };
    const now = new Date();
    const legacy = new Date('2026-09-07T17:59:59Z');
    const finalBox = `/api/v2/events/${FINAL}/stats`;
    const liveBox = `/api/v2/events/${LIVE}/players/stats`;
    const season = `/api/v2/teams/${BOS}/stats`;
    assert.equal(await status(finalBox, 'free', now), 200, 'a new Free account evaluates current-season boxes');
    assert.equal(
      await status(finalBox, 'free', new Date(Date.now() - 8 * DAY)),
      '403 completed_box_scores',
      'its evaluation ends after seven days',
    );
    assert.equal(await status(finalBox, 'free', legacy), 200, 'legacy access');
    assert.equal(await status(finalBox, 'starter', now), 200);
    assert.equal(
      await status(liveBox, 'free', now),
      '403 live_game_stats',
      'the evaluation covers completed games only',
    );
    assert.equal(await status(liveBox, 'starter', now), '403 live_game_stats');
    assert.equal(await status(liveBox, 'starter', legacy), 200);
    assert.equal(await status(season, 'free', now), '403 season_stats');
    assert.equal(await status(season, 'free', legacy), 200);
  });

  test('a Starter key created after the cutoff is refused season stats; a legacy one and a new Pro one are not', async () => {
    for (const path of [`/api/v2/teams/${BOS}/stats`, `/api/v2/teams/${BOS}/players/stats`]) {
      const res = await s.get(path, { 'X-Service-Key': newStarter });
      assert.equal(res.status, 403, path);
      assert.equal(res.body.feature, 'season_stats');
      assert.equal(res.body.sample_url, '/api/v2/stats/sample');
      assert.ok(res.body.upgrade_url);
      assert.equal(res.headers.get('x-datapoints'), null);
      assert.equal((await s.get(path, { 'X-Service-Key': legacyStarter })).status, 200, path);
      assert.equal((await s.get(path, { 'X-Service-Key': pro })).status, 200, path);
      // The body kept for this URL and the Starter delay is not served past the policy.
      const again = await s.get(path, { 'X-Service-Key': await s.newKey('starter') });
      assert.equal(again.status, 403, path);
      assert.equal(again.headers.get('x-datapoints'), null);
    }
  });
});
