import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { statByName } from '../../src/catalog/stats.ts';
import { nbaEvent, score } from '../helpers/fixtures.ts';
import { both, ready, same, until } from '../helpers/mirror-compare.ts';
import { startHttpProxy } from '../helpers/http-proxy.ts';
import { adminToken, startTestServer, type TestServer } from '../helpers/server.ts';

/**
 * The mirror serves the upstream's season aggregates (docs/feeds.md, "Season aggregates from the
 * upstream"): after its catch-up, the season answers of every team equal the upstream's field by
 * field, a team whose season the upstream holds as a source's record (it counts games the mirror
 * never held), one whose season the upstream sums from a game it holds, and one of no game; after
 * that game changes upstream, its teams' new aggregates reach the mirror within the re-read interval
 * (`--upstream-season-ms`, 1 s here). The mirror follows the upstream's stream meanwhile. A season
 * read the upstream never answers holds back neither the follow nor a stop, and nothing is asked
 * after the stop.
 */

const E = 'sea00000000000000000000000000001';
const POINTS = statByName(4, 'points')!.id;
const SEASON_MS = 1000;
const ASSISTS = statByName(4, 'assists')!.id;

let upstream: TestServer;
let mirror: TestServer;
let token: string;
let batches = 0;
let celtic = 0;

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
  celtic = bos[0]!.player_id;
  const year = (await upstream.get('/api/v2/teams/2014/stats')).body[0].season.year as number;
  // A game of the current season the upstream sums Boston's from.
  const game = nbaEvent(E);
  await ingest([
    { kind: 'event', event: { ...game, schedule: { ...game.schedule, season_year: year } } },
    ...boston(12, 3),
  ]);
  // A season a source published for Los Angeles: more than any game the upstream holds.
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
  mirror = await startTestServer({
    upstream: { url: upstream.url, key: upstream.key, pollMs: 200, seasonMs: SEASON_MS },
  });
});

/** The game's score and Boston's box: `points` scored, `assists` by its first player. */
function boston(points: number, assists: number): unknown[] {
  return [
    { kind: 'score', event_id: E, score: score(E, 'STATUS_IN_PROGRESS', points, 9) },
    {
      kind: 'box_score',
      event_id: E,
      teams: [{ team_id: 2002, stats: values([[POINTS, String(points)]]) }],
      players: [
        {
          player_id: celtic,
          team_id: 2002,
          display_name: 'First Celtic',
          position: 'G',
          stats: values([
            [POINTS, String(points)],
            [ASSISTS, String(assists)],
          ]),
        },
      ],
    },
  ];
}

/** The paths of a team's season answers compared. */
const seasonPaths = (teams: number[]) =>
  teams.flatMap((team) => [
    `/api/v2/teams/${team}/stats`,
    `/api/v2/teams/${team}/players/stats`,
    `/api/v2/teams/${team}/players/stats?stats_ids=${ASSISTS}`,
  ]);

/** Resolves once every path answers the same on both servers. */
async function allSame(paths: string[]): Promise<true | undefined> {
  for (const path of paths) {
    const [a, b] = await both(upstream, mirror, path);
    if (JSON.stringify(a) !== JSON.stringify(b)) return undefined;
  }
  return true;
}
after(async () => {
  await mirror?.close();
  await upstream?.close();
});

test('after its catch-up, the mirror’s season answers equal the upstream’s, field by field', async () => {
  await until('the mirror to catch up', ready(mirror));
  const paths = seasonPaths([2014, 2002, 2005]);
  // The seasons are read beside the follow after the catch-up: wait until the last team's is held.
  await until('the seasons read', () => allSame(paths));
  for (const path of paths) {
    const [a, b] = await both(upstream, mirror, path);
    same(b, a, path);
  }
  const [bos] = await both(upstream, mirror, '/api/v2/teams/2002/stats');
  assert.deepEqual(
    (bos as any)[0].stats.map((v: any) => [v.stat_id, v.value]),
    [[POINTS, '12']],
    'the sum of the game the upstream holds',
  );
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

test('a game changed upstream: its teams’ new aggregates reach the mirror within the re-read interval', async () => {
  const [before] = await both(upstream, mirror, '/api/v2/teams/2002/stats');
  await ingest(boston(20, 5));
  const [after] = await both(upstream, mirror, '/api/v2/teams/2002/stats');
  assert.notDeepEqual(after, before, 'the upstream’s aggregate changed');
  const paths = seasonPaths([2002]);
  // The poll that lists the game, then the re-read once the last is SEASON_MS old (with a loaded machine's slack).
  await until('the new aggregate on the mirror', () => allSame(paths), 200 + SEASON_MS + 10_000);
  for (const path of paths) {
    const [a, b] = await both(upstream, mirror, path);
    same(b, a, path);
  }
});

const isSeason = (path: string) => /^\/api\/v2\/teams\/\d+\/(players\/)?stats/.test(path);

test('a season read never answered holds back neither the follow nor a stop; nothing is asked after it', async () => {
  const proxy = await startHttpProxy(upstream.url);
  proxy.rule = (path) => (isSeason(path) ? 'hold' : undefined);
  const held = await startTestServer({ upstream: { url: proxy.url, key: upstream.key, pollMs: 200, mode: 'poll' } });
  try {
    await until('a season read held', async () => (proxy.requests.some((r) => isSeason(r.path)) ? true : undefined));
    await ingest([{ kind: 'score', event_id: E, score: score(E, 'STATUS_IN_PROGRESS', 31, 9) }]);
    await until('the follow to bring the score', async () =>
      held.server.board.events.get(E)?.info.score?.score_away === 31 ? true : undefined,
    );
    assert.equal(proxy.requests.filter((r) => isSeason(r.path)).length, 1, 'one season read at a time');
    let timer: NodeJS.Timeout | undefined;
    const stopped = await Promise.race([
      held.server.services.mirror!.stop().then(() => true),
      new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), 10_000))),
    ]);
    clearTimeout(timer);
    assert.ok(stopped, 'the stop returned');
    const asked = proxy.requests.length;
    await new Promise((r) => setTimeout(r, 1000));
    assert.equal(proxy.requests.length, asked, 'nothing asked after the stop');
  } finally {
    await held.close();
    await proxy.close();
  }
});
