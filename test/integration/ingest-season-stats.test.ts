import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { statByName } from '../../src/catalog/stats.ts';
import { adminToken, startTestServer, type TestServer } from '../helpers/server.ts';

/**
 * The `season_stats` record through POST /admin/v1/ingest: the season routes answer the record a
 * source published in place of the sums of the games held, players listed by the current roster;
 * a record equal to the held one writes nothing; a bad one is refused whole, each fault named by
 * index and field; a restart (from the board saved at shutdown, and from the store) serves it again.
 */

const TEAM = 2014;
const YEAR = 2026;
const POINTS = statByName(4, 'points')!.id;
const ASSISTS = statByName(4, 'assists')!.id;
const REBOUNDS = statByName(4, 'rebounds')!.id;

async function ingest(s: TestServer, token: string, batchId: string, records: unknown[]) {
  const res = await fetch(`${s.url}/admin/v1/ingest`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify({ batch_id: batchId, records }),
  });
  return { status: res.status, body: (await res.json()) as any };
}

const values = (list: [number, string][]) => list.map(([stat_id, value]) => ({ stat_id, value }));

async function roster(s: TestServer): Promise<number[]> {
  const r = await s.get(`/api/v2/teams/${TEAM}/players`);
  assert.equal(r.status, 200);
  return (r.body as any).players.map((p: any) => p.player_id);
}

const teamRows = (body: any) =>
  body.map((g: any) => [g.team.team_id, g.season, g.stats.map((v: any) => [v.stat_id, v.value])]);
const playerRows = (body: any) =>
  body.map((g: any) => [g.player.player_id, g.stats.map((v: any) => [v.stat_id, v.value])]);

test('a source season is served in place of the sums, by roster, and again after a restart', async (t) => {
  let s = await startTestServer({ feed: 'ingest' });
  t.after(() => s.close());
  const token = await adminToken(s);
  const [first, second] = await roster(s);
  const before = await s.get(`/api/v2/teams/${TEAM}/stats?year=${YEAR}`);
  assert.equal(before.status, 200);
  assert.deepEqual(teamRows(before.body), [[TEAM, { year: YEAR, season_type: 2 }, []]], 'no game held: nothing summed');

  const record = {
    kind: 'season_stats',
    team_id: TEAM,
    year: YEAR,
    season_type: 2,
    stats: values([
      [REBOUNDS, '812'],
      [POINTS, '2301.50'],
    ]),
    players: [
      // Not on the roster: not listed (the spec's current roster association).
      { player_id: 99999901, stats: values([[POINTS, '7']]) },
      { player_id: second!, stats: values([[ASSISTS, '44']]) },
      {
        player_id: first!,
        stats: values([
          [POINTS, '600'],
          [ASSISTS, '101'],
        ]),
      },
    ],
  };
  const sent = await ingest(s, token, 'season-1', [record]);
  assert.equal(sent.status, 200, JSON.stringify(sent.body));

  const check = async (server: TestServer) => {
    const team = await server.get(`/api/v2/teams/${TEAM}/stats?year=${YEAR}`);
    assert.equal(team.status, 200);
    assert.deepEqual(teamRows(team.body), [
      [
        TEAM,
        { year: YEAR, season_type: 2 },
        [
          [POINTS, '2301.5'],
          [REBOUNDS, '812'],
        ],
      ],
    ]);
    const players = await server.get(`/api/v2/teams/${TEAM}/players/stats?year=${YEAR}`);
    assert.equal(players.status, 200);
    assert.deepEqual(playerRows(players.body), [
      [
        first,
        [
          [POINTS, 600],
          [ASSISTS, 101],
        ],
      ],
      [second, [[ASSISTS, 44]]],
    ]);
    const filtered = await server.get(
      `/api/v2/teams/${TEAM}/players/stats?year=${YEAR}&stats_ids=${ASSISTS}&player_ids=${second}`,
    );
    assert.deepEqual(playerRows(filtered.body), [[second, [[ASSISTS, 44]]]]);
    const otherType = await server.get(`/api/v2/teams/${TEAM}/stats?year=${YEAR}&season_type=3`);
    assert.deepEqual(
      teamRows(otherType.body),
      [[TEAM, { year: YEAR, season_type: 3 }, []]],
      'a season type of its own',
    );
  };
  await check(s);

  // The same record again (its values written alike) writes no row.
  const head = s.server.ledger.headId;
  const again = await ingest(s, token, 'season-2', [
    {
      ...record,
      stats: values([
        [REBOUNDS, '812.0'],
        [POINTS, '2301.5'],
      ]),
    },
  ]);
  assert.equal(again.status, 200, JSON.stringify(again.body));
  assert.equal(s.server.ledger.headId, head);

  // Whole: a newer record replaces the held one, values it does not name included.
  const newer = await ingest(s, token, 'season-3', [{ ...record, stats: values([[POINTS, '2400']]) }]);
  assert.equal(newer.status, 200);
  const replaced = await s.get(`/api/v2/teams/${TEAM}/stats?year=${YEAR}`);
  assert.deepEqual(teamRows(replaced.body)[0][2], [[POINTS, '2400']]);
  await ingest(s, token, 'season-4', [record]);

  // A restart from the board saved at shutdown, then one that loads the store.
  const dataDir = s.dataDir;
  await s.close({ keepData: true });
  s = await startTestServer({ feed: 'ingest', dataDir });
  await check(s);
  await s.close({ keepData: true });
  rmSync(join(dataDir, 'board.snapshot'), { force: true });
  s = await startTestServer({ feed: 'ingest', dataDir });
  await check(s);
});

test('a bad season record is refused whole, each fault named by index and field', async (t) => {
  const s = await startTestServer({ feed: 'ingest' });
  t.after(() => s.close());
  const token = await adminToken(s);
  const head = s.server.ledger.headId;
  const good = { kind: 'season_stats', team_id: TEAM, year: YEAR, season_type: 2, stats: [], players: [] };
  const r = await ingest(s, token, 'season-bad', [
    good,
    { ...good, team_id: 77777 },
    { ...good, season_type: 9 },
    { ...good, stats: values([[statByName(2, 'points')!.id, '3']]) },
    { ...good, players: [{ player_id: 201401, stats: values([[POINTS, 'lots']]) }] },
    {
      ...good,
      stats: values([
        [POINTS, '1'],
        [POINTS, '2'],
      ]),
    },
    { ...good, year: 'this one' },
    { ...good, sport_id: 4 },
  ]);
  assert.equal(r.status, 400, JSON.stringify(r.body));
  const named = (i: number) => r.body.faults.filter((f: any) => f.index === i).map((f: any) => f.field);
  assert.deepEqual([...new Set(r.body.faults.map((f: any) => f.index))], [1, 2, 3, 4, 5, 6, 7]);
  assert.deepEqual(named(1), ['/team_id']);
  assert.deepEqual(named(2), ['/season_type']);
  assert.deepEqual(named(3), ['/stats/0/stat_id']);
  assert.deepEqual(named(4), ['/players/0/stats/0/value']);
  assert.deepEqual(named(5), ['/stats/1/stat_id']);
  assert.ok(named(6).includes('/year'), JSON.stringify(r.body.faults));
  assert.ok(named(7).length > 0);
  assert.equal(s.server.ledger.headId, head, 'nothing was written');
});
