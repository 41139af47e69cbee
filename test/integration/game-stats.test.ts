import assert from 'node:assert/strict';
import { playerById } from '../../src/catalog/rosters/index.ts';
import { after, before, describe, test } from 'node:test';
import { publicStat, STAT_DEFINITIONS, statByName } from '../../src/catalog/stats.ts';
import type { PlayInput } from '../../src/domain/plays.ts';
import { batch, nbaEvent, rotationPlay, score, today } from '../helpers/fixtures.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

/** Live with 1,000 plays; scheduled; the away team of the fixtures is 2002, the home team 2014. */
const LIVE = '5'.repeat(32);
const SCHEDULED = '6'.repeat(32);
const AWAY = 2002;
const HOME = 2014;
const PLAYS = 1000;
const POINTS = statByName(4, 'points')!.id;
const REBOUNDS = statByName(4, 'rebounds')!.id;
/** Two players a side. */
const PLAYERS = [AWAY * 100 + 1, AWAY * 100 + 2, HOME * 100 + 1, HOME * 100 + 2];

let s: TestServer;
let ultra: string;
/** Created before the stats-access cutoff of 2026-09-07T18:00Z: a legacy account with every stats feature. */
let pro: string;
/** Created now: stats features by its plan (live game stats need Ultra). */
let newPro: string;
/** The score after each play, as sent. */
const sent: PlayInput[] = [];

const play = (n: number, before: { away: number; home: number }): PlayInput => rotationPlay(n, before, AWAY, HOME);

before(async () => {
  s = await startTestServer();
  ultra = await s.newKey('ultra');
  pro = await s.newKey('pro', { createdAt: new Date('2026-06-01T00:00:00Z') });
  newPro = await s.newKey('pro');
  // Long enough ago that every delayed plan sees it.
  const past = new Date(Date.now() - 3_600_000).toISOString();
  await s.server.ledger.apply(
    batch(past, [
      { kind: 'event', event: nbaEvent(LIVE, today(), 1) },
      { kind: 'event', event: nbaEvent(SCHEDULED, today(), 23) },
      { kind: 'score', event_id: LIVE, score: score(LIVE, 'STATUS_IN_PROGRESS', 0, 0) },
    ]),
  );
  let at = { away: 0, home: 0 };
  const updates = [];
  for (let n = 1; n <= PLAYS; n++) {
    const p = play(n, at);
    at = { away: p.score_away, home: p.score_home };
    sent.push(p);
    updates.push({ kind: 'play' as const, event_id: LIVE, play: p });
  }
  await s.server.ledger.apply(
    batch(past, [
      ...updates,
      {
        kind: 'score',
        event_id: LIVE,
        score: score(LIVE, 'STATUS_IN_PROGRESS', at.away, at.home),
        live_game_state: { last_play: `play ${PLAYS}` },
      },
    ]),
  );
});

after(() => s.close());

const sumOf = (team: number, stat: string) =>
  sent
    .flatMap((p) => p.credits)
    .filter((c) => c.team_id === team && c.stat === stat)
    .reduce((a, c) => a + c.n, 0);

describe('/api/v2/stats', () => {
  test('lists definitions with every field, filtered by id and sport_id, free of data points', async () => {
    const all = await s.get('/api/v2/stats', { 'X-Service-Key': pro });
    assert.equal(all.status, 200);
    assert.equal(all.headers.get('x-datapoints'), null);
    // The catalog's stats records answer as the simulator's tables did, byte for byte.
    assert.equal(JSON.stringify(all.body), JSON.stringify(STAT_DEFINITIONS.map(publicStat)));
    assert.deepEqual(Object.keys(all.body[0]).sort(), [
      'abbreviation',
      'category',
      'description',
      'display_name',
      'id',
      'name',
      'sport_id',
    ]);
    // Every definition describes its stat (existing clients show it).
    assert.ok(
      all.body.every((d: { description: unknown }) => typeof d.description === 'string' && d.description !== ''),
    );
    const mlb = await s.get('/api/v2/stats?sport_id=3');
    const names = mlb.body.map((d: { name: string }) => d.name);
    assert.ok(names.includes('startingPitcher') && names.includes('positionPlayerPitching'));
    assert.ok(mlb.body.every((d: { sport_id: number }) => d.sport_id === 3));
    const one = await s.get(`/api/v2/stats?id=${POINTS}`);
    assert.deepEqual(
      one.body.map((d: { id: number }) => d.id),
      [POINTS],
    );
    assert.equal((await s.get('/api/v2/stats?sport_id=x')).status, 400);
    // "404: unknown event ID, sport ID or other identifier": not an empty list.
    const unknown = await s.get('/api/v2/stats?sport_id=99');
    assert.equal(unknown.status, 404);
    assert.match(unknown.body.message, /sport 99/);
    assert.equal((await s.get('/api/v2/stats', {})).status, 401);
  });

  test('the sample box score needs a key, costs nothing and has the box routes’ shapes', async () => {
    assert.equal((await s.get('/api/v2/stats/sample', {})).status, 401);
    const res = await s.get('/api/v2/stats/sample', { 'X-Service-Key': pro });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('x-datapoints'), null);
    assert.equal(res.body.team_stats.length, 2);
    assert.deepEqual(Object.keys(res.body.team_stats[0]), ['team', 'meta', 'stats']);
    assert.deepEqual(Object.keys(res.body.player_stats[0]), ['player', 'meta', 'stats']);
  });
});

describe('/api/v2/events/{eventID}/stats', () => {
  test('team game stats in the spec’s shape, summing the plays, metered per value', async () => {
    const res = await s.get(`/api/v2/events/${LIVE}/stats`, { 'X-Service-Key': ultra });
    assert.equal(res.status, 200);
    assert.equal(res.body.length, 2);
    const [away, home] = res.body;
    assert.deepEqual(Object.keys(away), ['team', 'meta', 'stats']);
    assert.deepEqual(away.team, {
      team_id: AWAY,
      name: 'Boston',
      mascot: 'Celtics',
      abbreviation: 'BOS',
      is_away: true,
      is_home: false,
    });
    assert.deepEqual(away.meta, { complete: false, event_id: LIVE });
    assert.deepEqual(Object.keys(away.stats[0]), ['team_id', 'stat_id', 'stat', 'event_id', 'value']);
    assert.deepEqual(Object.keys(away.stats[0].stat), ['id', 'name', 'display_name', 'abbreviation', 'sport_id']);
    const value = (group: { stats: { stat_id: number; value: string }[] }, id: number) =>
      group.stats.find((r) => r.stat_id === id)?.value;
    assert.equal(value(away, POINTS), String(sumOf(AWAY, 'points')));
    assert.equal(value(home, POINTS), String(sumOf(HOME, 'points')));
    assert.equal(value(home, REBOUNDS), String(sumOf(HOME, 'rebounds')));
    const last = sent.at(-1)!;
    assert.deepEqual([Number(value(away, POINTS)), Number(value(home, POINTS))], [last.score_away, last.score_home]);
    assert.equal(res.headers.get('x-datapoints'), '4');
  });

  test('stats_ids and team_id narrow it; over 12 stats_ids is 400', async () => {
    const res = await s.get(`/api/v2/events/${LIVE}/stats?stats_ids=${POINTS}&team_id=${HOME}`, {
      'X-Service-Key': ultra,
    });
    assert.equal(res.body.length, 1);
    assert.equal(res.body[0].team.team_id, HOME);
    assert.deepEqual(
      res.body[0].stats.map((r: { stat_id: number }) => r.stat_id),
      [POINTS],
    );
    const thirteen = Array.from({ length: 13 }, (_, i) => 4001 + i).join(',');
    const bad = await s.get(`/api/v2/events/${LIVE}/stats?stats_ids=${thirteen}`);
    assert.equal(bad.status, 400);
    assert.match(bad.body.error, /at most 12/);
    assert.equal((await s.get(`/api/v2/events/${LIVE}/stats?stats_ids=a`)).status, 400);
    assert.equal((await s.get(`/api/v2/events/${LIVE}/stats?team_id=-1`)).status, 400);
  });

  test('an event not started gives an empty array; an unknown event 404', async () => {
    const res = await s.get(`/api/v2/events/${SCHEDULED}/stats`);
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, []);
    const unknown = await s.get(`/api/v2/events/${'9'.repeat(32)}/stats`);
    assert.equal(unknown.status, 404);
    assert.match(unknown.body.message, /not found/);
  });

  test('a delayed plan sees the box as of its delay', async () => {
    const p = play(PLAYS + 1, { away: sent.at(-1)!.score_away, home: sent.at(-1)!.score_home });
    await s.server.ledger.apply(batch(new Date().toISOString(), [{ kind: 'play', event_id: LIVE, play: p }]));
    const points = (body: { stats: { stat_id: number; value: string }[] }[], team: number) =>
      Number(
        body
          .find((g: any) => g.team.team_id === team)!
          .stats.find((r) => r.stat_id === statByName(4, p.credits[0]!.stat)!.id)!.value,
      );
    const team = p.credits[0]!.team_id;
    const live = await s.get(`/api/v2/events/${LIVE}/stats`, { 'X-Service-Key': ultra });
    const delayed = await s.get(`/api/v2/events/${LIVE}/stats`, { 'X-Service-Key': pro });
    assert.equal(points(live.body, team) - points(delayed.body, team), p.credits[0]!.n);
    sent.push(p);
  });

  test('an account created after the cutoff reads live box scores only from Ultra up', async () => {
    for (const path of [`/api/v2/events/${LIVE}/stats`, `/api/v2/events/${LIVE}/players/stats`]) {
      const res = await s.get(path, { 'X-Service-Key': newPro });
      assert.equal(res.status, 403, path);
      assert.equal(res.body.feature, 'live_game_stats');
      assert.equal(res.body.sample_url, '/api/v2/stats/sample');
      assert.ok(res.body.upgrade_url);
    }
    // A game not started has no box to refuse.
    assert.deepEqual((await s.get(`/api/v2/events/${SCHEDULED}/stats`, { 'X-Service-Key': newPro })).body, []);
  });

  test('an event row that renames a team is in the next box, with no new stat row', async () => {
    const names = async () =>
      ((await s.get(`/api/v2/events/${LIVE}/stats`)).body as { team: { name: string; abbreviation: string } }[]).map(
        (g) => `${g.team.name} ${g.team.abbreviation}`,
      );
    assert.deepEqual(await names(), ['Boston BOS', 'Los Angeles LAL']);
    const event = nbaEvent(LIVE, today(), 1);
    const renamed = {
      ...event,
      teams: [{ ...event.teams[0]!, name: 'Boston Renamed', abbreviation: 'BOR' }, event.teams[1]!],
    };
    const past = new Date(Date.now() - 3_600_000).toISOString();
    await s.server.ledger.apply(batch(past, [{ kind: 'event', event: renamed }]));
    assert.deepEqual(await names(), ['Boston Renamed BOR', 'Los Angeles LAL']);
    await s.server.ledger.apply(batch(past, [{ kind: 'event', event }]));
    assert.deepEqual(await names(), ['Boston BOS', 'Los Angeles LAL']);
  });
});

describe('/api/v2/events/{eventID}/players/stats', () => {
  test('player lines in the spec’s shape; player_ids and stats_ids narrow them; bounds are 400', async () => {
    const res = await s.get(`/api/v2/events/${LIVE}/players/stats`, { 'X-Service-Key': ultra });
    assert.equal(res.status, 200);
    assert.equal(res.body.length, 4);
    const first = res.body[0];
    assert.deepEqual(Object.keys(first), ['player', 'meta', 'stats']);
    assert.deepEqual(Object.keys(first.player), [
      'id',
      'display_name',
      'position',
      'team_id',
      'sport_id',
      'first_name',
      'last_name',
      'jersey',
    ]);
    assert.deepEqual(Object.keys(first.stats[0]), ['stat', 'value']);
    assert.equal(first.player.display_name, `Player ${first.player.id}`);
    // The sport, names and jersey existing clients read: from the roster, else the display name.
    assert.equal(first.player.sport_id, 4);
    const roster = playerById(first.player.id);
    assert.deepEqual(
      [first.player.first_name, first.player.last_name, first.player.jersey],
      roster ? [roster.first_name, roster.last_name, roster.jersey_number] : ['Player', String(first.player.id), ''],
    );
    const one = await s.get(`/api/v2/events/${LIVE}/players/stats?player_ids=${PLAYERS[2]}&stats_ids=${POINTS}`);
    assert.equal(one.body.length, 1);
    assert.equal(one.body[0].player.id, PLAYERS[2]);
    assert.deepEqual(
      one.body[0].stats.map((r: { stat: { id: number } }) => r.stat.id),
      [POINTS],
    );
    const seven = (await s.get(`/api/v2/events/${LIVE}/players/stats?player_ids=1,2,3,4,5,6,7`)).status;
    assert.equal(seven, 400);
    const thirteen = Array.from({ length: 13 }, (_, i) => i + 1).join(',');
    assert.equal((await s.get(`/api/v2/events/${LIVE}/players/stats?stats_ids=${thirteen}`)).status, 400);
    assert.deepEqual((await s.get(`/api/v2/events/${SCHEDULED}/players/stats`)).body, []);
    assert.equal((await s.get(`/api/v2/events/${'9'.repeat(32)}/players/stats`)).status, 404);
  });
});

describe('/api/v2/events/{eventID}/plays', () => {
  test('denied below Ultra with the entitlement body, whatever the account’s date', async () => {
    const res = await s.get(`/api/v2/events/${LIVE}/plays`, { 'X-Service-Key': pro });
    assert.equal(res.status, 403);
    // The wording existing clients recognise; feature and upgrade_url kept.
    assert.equal(res.body.error, 'Live game state requires Ultra plan or higher');
    assert.equal(res.body.feature, 'plays');
    assert.ok(res.body.upgrade_url);
    for (const tier of ['free', 'starter', 'pro'] as const) {
      for (const createdAt of [new Date('2026-06-01T00:00:00Z'), new Date()]) {
        const k = await s.newKey(tier, { createdAt });
        const r = await s.get(`/api/v2/events/${LIVE}/plays`, { 'X-Service-Key': k });
        assert.equal(r.status, 403, tier);
        assert.equal(r.headers.get('x-datapoints'), null, tier);
      }
    }
  });

  test('500 newest first, paged back with before_sequence down to play 1', async () => {
    const total = PLAYS + 1;
    const first = await s.get(`/api/v2/events/${LIVE}/plays`, { 'X-Service-Key': ultra });
    assert.equal(first.status, 200);
    assert.equal(first.body.plays.length, 500);
    assert.equal(first.body.plays[0].sequence, total);
    assert.equal(first.body.meta.last_sequence, total);
    assert.equal(first.body.meta.next_before_sequence, total - 499);
    assert.equal(first.headers.get('x-datapoints'), '500');
    const p = first.body.plays[1];
    assert.deepEqual(Object.keys(p), [
      'event_id',
      'sequence',
      'period',
      'game_clock',
      'display_clock',
      'description',
      'team_id',
      'score_away',
      'score_home',
      'players',
      'created_at',
    ]);
    assert.equal(p.description, `play ${PLAYS}`);
    assert.deepEqual([p.score_away, p.score_home], [sent[PLAYS - 1]!.score_away, sent[PLAYS - 1]!.score_home]);
    const second = await s.get(`/api/v2/events/${LIVE}/plays?before_sequence=${first.body.meta.next_before_sequence}`, {
      'X-Service-Key': ultra,
    });
    const third = await s.get(`/api/v2/events/${LIVE}/plays?before_sequence=${second.body.meta.next_before_sequence}`, {
      'X-Service-Key': ultra,
    });
    const sequences = [...first.body.plays, ...second.body.plays, ...third.body.plays].map(
      (x: { sequence: number }) => x.sequence,
    );
    assert.deepEqual(
      sequences,
      Array.from({ length: total }, (_, i) => total - i),
    );
    assert.equal(third.body.meta.next_before_sequence, null);
    const small = await s.get(`/api/v2/events/${LIVE}/plays?limit=3&before_sequence=3`, { 'X-Service-Key': ultra });
    assert.deepEqual(
      small.body.plays.map((x: { sequence: number }) => x.sequence),
      [2, 1],
    );
  });

  test('bounds and unknown events', async () => {
    for (const q of ['limit=501', 'limit=0', 'before_sequence=0', 'before_sequence=x']) {
      assert.equal((await s.get(`/api/v2/events/${LIVE}/plays?${q}`)).status, 400, q);
    }
    assert.equal((await s.get(`/api/v2/events/${'9'.repeat(32)}/plays`)).status, 404);
    const none = await s.get(`/api/v2/events/${SCHEDULED}/plays`);
    assert.deepEqual(none.body, {
      meta: { event_id: SCHEDULED, count: 0, last_sequence: 0, next_before_sequence: null },
      plays: [],
    });
  });
});

describe('the change log', () => {
  test('plays and stat rows are no price rows of the markets delta', async () => {
    const res = await s.get('/api/v2/markets/delta?last_id=0', { 'X-Service-Key': ultra });
    assert.equal(res.status, 200);
    assert.deepEqual(res.body.deltas, []);
    assert.ok(Number(res.body.meta.delta_last_id) > PLAYS, 'the cursor moves past them');
  });
});

describe('live_game_state', () => {
  test('stays on Ultra and above only', async () => {
    const seen = async (key: string) =>
      (await s.get(`/api/v2/events/${LIVE}`, { 'X-Service-Key': key })).body.events[0].live_game_state;
    assert.equal((await seen(ultra)).last_play, `play ${PLAYS}`);
    assert.equal(await seen(pro), undefined);
    for (const tier of ['free', 'starter'] as const) assert.equal(await seen(await s.newKey(tier)), undefined, tier);
    // The one-event route and the snapshot by date alike.
    const byDate = await s.get(`/api/v2/sports/4/events/${today()}`, { 'X-Service-Key': await s.newKey('starter') });
    const live = byDate.body.events.find((e: { event_id: string }) => e.event_id === LIVE);
    assert.ok(live, 'the live event is on the day');
    assert.equal(live.live_game_state, undefined);
  });
});
