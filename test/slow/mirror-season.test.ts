import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { statByName } from '../../src/catalog/stats.ts';
import { nbaEvent, score } from '../helpers/fixtures.ts';
import { both, ready, same, until } from '../helpers/mirror-compare.ts';
import { adminToken, startTestServer, type TestServer } from '../helpers/server.ts';

/**
 * The mirror serves the upstream's season aggregates (docs/feeds.md, "Season aggregates"): after
 * its catch-up, the season answers of every team equal the upstream's field by field, both a team
 * whose season the upstream holds as a source's record (it counts games the mirror never held) and
 * one whose season the upstream sums from a game it holds.
 */

const E = 'sea00000000000000000000000000001';
const POINTS = statByName(4, 'points')!.id;
const ASSISTS = statByName(4, 'assists')!.id;

let upstream: TestServer;
let mirror: TestServer;
let token: string;
let batches = 0;

async function ingest(records: unknown[]): Promise<void> {
  const res = await fetch(`${upstream.url}/admin/v1/ingest`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify({ batch_id: `season-${++batches}`, records }),
  });
  assert.equal(res.status, 200, await res.text());
}

const removal = (key: string) => ({ kind: 'catalog', record: { type: 'removal', key } });
const values = (list: [number, string][]) => list.map(([stat_id, value]) => ({ stat_id, value }));

before(async () => {
  upstream = await startTestServer({ feed: 'ingest' });
  token = await adminToken(upstream);
  // Basketball alone, and two rosters: the catch-up's catalog read and season sweep stay small.
  const sports = (await upstream.get('/api/v2/sports')).body.sports as { sport_id: number }[];
  const teams = (await upstream.get('/api/v2/sports/4/teams')).body.teams as { team_id: number }[];
  await ingest([
    ...sports.filter((x) => x.sport_id !== 4).map((x) => removal(`sport:${x.sport_id}`)),
    ...teams.filter((x) => x.team_id !== 2002 && x.team_id !== 2014).map((x) => removal(`roster:${x.team_id}`)),
  ]);
  const bos = (await upstream.get('/api/v2/teams/2002/players')).body.players as { player_id: number }[];
  const lal = (await upstream.get('/api/v2/teams/2014/players')).body.players as { player_id: number }[];
  // A game the upstream sums Boston's season from.
  await ingest([
    { kind: 'event', event: nbaEvent(E) },
    { kind: 'score', event_id: E, score: score(E, 'STATUS_IN_PROGRESS', 12, 9) },
    {
      kind: 'box_score',
      event_id: E,
      teams: [{ team_id: 2002, stats: values([[POINTS, '12']]) }],
      players: [
        {
          player_id: bos[0]!.player_id,
          team_id: 2002,
          display_name: 'First Celtic',
          position: 'G',
          stats: values([
            [POINTS, '12'],
            [ASSISTS, '3'],
          ]),
        },
      ],
    },
  ]);
  // A season a source published for Los Angeles: more than any game the upstream holds.
  const year = (await upstream.get('/api/v2/teams/2014/stats')).body[0].season.year as number;
  await ingest([
    {
      kind: 'season_stats',
      team_id: 2014,
      year,
      season_type: 2,
      stats: values([
        [POINTS, '2310'],
        [ASSISTS, '540'],
      ]),
      players: [
        { player_id: lal[1]!.player_id, stats: values([[ASSISTS, '88']]) },
        { player_id: lal[0]!.player_id, stats: values([[POINTS, '701.5']]) },
      ],
    },
  ]);
  const key = await upstream.newKey('enterprise');
  mirror = await startTestServer({ upstream: { url: upstream.url, key, pollMs: 200, mode: 'poll' } });
});
after(async () => {
  await mirror?.close();
  await upstream?.close();
});

test('after its catch-up, the mirror’s season answers equal the upstream’s, field by field', async () => {
  await until('the mirror to catch up', ready(mirror));
  const paths = [2014, 2002, 2005].flatMap((team) => [
    `/api/v2/teams/${team}/stats`,
    `/api/v2/teams/${team}/players/stats`,
    `/api/v2/teams/${team}/players/stats?stats_ids=${ASSISTS}`,
  ]);
  // The seasons are read over the polls after the catch-up: wait until the last team's is held.
  await until('the seasons read', async () => {
    for (const path of paths) {
      const [a, b] = await both(upstream, mirror, path);
      if (JSON.stringify(a) !== JSON.stringify(b)) return undefined;
    }
    return true;
  });
  for (const path of paths) {
    const [a, b] = await both(upstream, mirror, path);
    same(b, a, path);
  }
  const [lal] = await both(upstream, mirror, '/api/v2/teams/2014/stats');
  assert.deepEqual(
    (lal as any)[0].stats.map((v: any) => [v.stat_id, v.value]),
    [
      [POINTS, '2310'],
      [ASSISTS, '540'],
    ],
    'the source’s season, not a sum of the games held',
  );
});
