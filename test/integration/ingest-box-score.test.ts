import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { statByName } from '../../src/catalog/stats.ts';
import { nbaEvent, score } from '../helpers/fixtures.ts';
import { type IngestServer, startIngestServer } from '../helpers/server.ts';

/**
 * The `box_score` record and plays that keep their source's numbers and times, through
 * POST /admin/v1/ingest: served by the box-score and plays routes as sent; a bad record refused
 * whole with each fault named by index and field.
 */

const E = 'box0000000000000000000000000001';
const POINTS = statByName(4, 'points')!.id;
const ASSISTS = statByName(4, 'assists')!.id;
const PLAYED_AT = '2026-12-01T20:05:00.000Z';

let s: IngestServer;

before(async () => {
  s = await startIngestServer();
});
after(() => s.close());

async function ingest(batchId: string, records: unknown[]): Promise<{ status: number; body: any }> {
  const res = await fetch(`${s.url}/admin/v1/ingest`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${s.token}` },
    body: JSON.stringify({ batch_id: batchId, records }),
  });
  return { status: res.status, body: await res.json() };
}

const play = (sequence: number, away: number, home: number) => ({
  kind: 'play',
  event_id: E,
  play: {
    period: 1,
    game_clock: 700 - sequence,
    display_clock: '11:40',
    description: `play ${sequence}`,
    team_id: 2014,
    score_away: away,
    score_home: home,
    players: [201401],
    credits: [],
    people: [],
    sequence,
    created_at: PLAYED_AT,
  },
});

const boxScore = (players: unknown[], teams: unknown[] = []) => ({ kind: 'box_score', event_id: E, teams, players });
const lal = (stats: [number, string][], player_id = 201401) => ({
  player_id,
  team_id: 2014,
  display_name: 'Luka Doncic',
  position: 'G',
  stats: stats.map(([stat_id, value]) => ({ stat_id, value })),
});

test('a box score and plays as a source gives them are served as given', async () => {
  const r = await ingest('box-1', [
    { kind: 'event', event: nbaEvent(E) },
    { kind: 'score', event_id: E, score: score(E, 'STATUS_IN_PROGRESS', 0, 5) },
    play(1, 0, 2),
    play(2, 0, 5),
    boxScore(
      [
        lal([
          [POINTS, '5'],
          [ASSISTS, '1'],
        ]),
      ],
      [
        { team_id: 2002, stats: [] },
        { team_id: 2014, stats: [{ stat_id: POINTS, value: '5' }] },
      ],
    ),
  ]);
  assert.equal(r.status, 200, JSON.stringify(r.body));

  const plays = await s.get(`/api/v2/events/${E}/plays`);
  assert.equal(plays.status, 200);
  assert.deepEqual(
    plays.body.plays.map((p: any) => [p.sequence, p.description, p.created_at]),
    [
      [2, 'play 2', PLAYED_AT],
      [1, 'play 1', PLAYED_AT],
    ],
  );
  const teams = await s.get(`/api/v2/events/${E}/stats`);
  assert.equal(teams.status, 200);
  assert.deepEqual(
    teams.body.map((g: any) => [g.team.team_id, g.stats.map((v: any) => [v.stat_id, v.value])]),
    [
      [2002, []],
      [2014, [[POINTS, '5']]],
    ],
  );
  const players = await s.get(`/api/v2/events/${E}/players/stats`);
  assert.deepEqual(
    players.body.map((g: any) => [g.player.id, g.player.display_name, g.stats.map((v: any) => [v.stat.id, v.value])]),
    [
      [
        201401,
        'Luka Doncic',
        [
          [POINTS, '5'],
          [ASSISTS, '1'],
        ],
      ],
    ],
  );

  // A correction: the value set again, lower; values not named keep theirs.
  const fix = await ingest('box-2', [boxScore([lal([[POINTS, '4']])])]);
  assert.equal(fix.status, 200, JSON.stringify(fix.body));
  const fixed = await s.get(`/api/v2/events/${E}/players/stats`);
  assert.deepEqual(
    fixed.body[0].stats.map((v: any) => [v.stat.id, v.value]),
    [
      [POINTS, '4'],
      [ASSISTS, '1'],
    ],
  );
});

test('a bad box score or play is refused whole, each fault named by index and field', async () => {
  const head = s.server.ledger.headId;
  const other = statByName(2, 'points')!.id;
  const r = await ingest('box-bad', [
    { kind: 'event', event: nbaEvent(E) },
    boxScore([lal([[POINTS, 'many']])]),
    boxScore([{ ...lal([[POINTS, '1']]), team_id: 3001 }, lal([[other, '3']])]),
    { ...play(3, 0, 5), play: { ...play(3, 0, 5).play, sequence: 0 } },
    boxScore([{ player_id: 201402, team_id: 2014, stats: [] }]),
    boxScore([lal([[POINTS, '1']])], [{ team_id: 2014, stats: [{ stat_id: POINTS, value: '1' }], extra: 1 }]),
  ]);
  assert.equal(r.status, 400, JSON.stringify(r.body));
  const named = (i: number) => r.body.faults.filter((f: any) => f.index === i).map((f: any) => f.field);
  assert.deepEqual([...new Set(r.body.faults.map((f: any) => f.index))], [1, 2, 3, 4, 5]);
  assert.ok(named(1).includes('/players/0/stats/0/value'), JSON.stringify(r.body.faults));
  assert.deepEqual(named(2), ['/players/0/team_id', '/players/1/stats/0/stat_id']);
  assert.ok(named(3).includes('/play/sequence'));
  assert.ok(named(4).some((f: string) => f.startsWith('/players/0')));
  assert.ok(named(5).some((f: string) => f.startsWith('/teams/0')));
  assert.equal(s.server.ledger.headId, head, 'nothing was written');

  // A play number that is not the event's next: only the ledger knows; refused whole with why.
  const gap = await ingest('box-gap', [play(5, 0, 5)]);
  assert.equal(gap.status, 400);
  assert.match(gap.body.message, /play 5 of event box0+1 is not its next play, 3/);
  assert.equal(s.server.ledger.headId, head);
});
