import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type TestContext, test } from 'node:test';
import { Board } from '../../src/board/board.ts';
import type { CommittedBatch } from '../../src/bus/bus.ts';
import { MemoryBus } from '../../src/bus/memory-bus.ts';
import { statByName } from '../../src/catalog/stats.ts';
import type { StatValue } from '../../src/changelog/change.ts';
import type { Play } from '../../src/domain/plays.ts';
import { Ledger, LedgerError } from '../../src/ledger/ledger.ts';
import type { BoxScoreUpdate, Update } from '../../src/ledger/updates.ts';
import { openSqlite } from '../../src/store/sqlite/database.ts';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.ts';
import { batch, creditPlay, nbaEvent } from '../helpers/fixtures.ts';

/** A box score set as a source gives it (`box_score`), and plays that keep a source's numbers and times. */

const E = 'b'.repeat(32);
const NFL = 'c'.repeat(32);
const AT = '2026-11-23T10:00:00.000Z';
const id = (sport: number, name: string) => statByName(sport, name)!.id;
const POINTS = id(4, 'points');
const ASSISTS = id(4, 'assists');

async function setup(t: TestContext, dir = mkdtempSync(join(tmpdir(), 'oddsbase-box-'))) {
  const store = new SqliteStore(openSqlite(dir));
  const board = new Board();
  const bus = new MemoryBus();
  const published: CommittedBatch[] = [];
  bus.subscribe((b) => published.push(b));
  const ledger = await Ledger.open(store, board, bus);
  t.after(async () => {
    await store.close().catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  });
  return { dir, store, board, ledger, published };
}

const events: Update[] = [
  { kind: 'event', event: nbaEvent(E) },
  { kind: 'event', event: { ...nbaEvent(NFL), sport_id: 2 } },
];

/** A new store's ledger whose log holds the two events E (NBA) and NFL. */
async function withEvents(t: TestContext) {
  const s = await setup(t);
  await s.ledger.apply(batch(AT, events));
  return s;
}

function box(players: BoxScoreUpdate['players'], teams: BoxScoreUpdate['teams'] = []): BoxScoreUpdate {
  return { kind: 'box_score', event_id: E, teams, players };
}

const player = (player_id: number, team_id: number, stats: [number, string][]) => ({
  player_id,
  team_id,
  display_name: `Player ${player_id}`,
  position: 'G',
  stats: stats.map(([stat_id, value]) => ({ stat_id, value })),
});

const statRows = (b: CommittedBatch): StatValue[] =>
  b.changes.filter((c) => c.kind === 'stat').map((c) => JSON.parse(c.payload) as StatValue);

/** The board's box of E: team values, and players in their order with name and values. */
function boardBox(board: Board) {
  const game = board.events.get(E)!.game!;
  return {
    teams: [...game.teams].map(([team, stats]) => [team, [...stats]]),
    players: [...game.players].map(([p, line]) => [p, line.team_id, line.display_name, [...line.stats]]),
  };
}

test('a box score sets its values: a row per value that differs, a player named once, kept across a restart', async (t) => {
  const s = await withEvents(t);
  await s.ledger.apply(
    batch(AT, [
      box(
        [
          player(201401, 2014, [
            [POINTS, '12'],
            [ASSISTS, '3'],
          ]),
          player(200201, 2002, [[POINTS, '7']]),
        ],
        [
          { team_id: 2002, stats: [{ stat_id: POINTS, value: '7' }] },
          { team_id: 2014, stats: [{ stat_id: POINTS, value: '12' }] },
        ],
      ),
    ]),
  );
  assert.deepEqual(statRows(s.published.at(-1)!), [
    { team_id: 2002, stat_id: POINTS, value: '7' },
    { team_id: 2014, stat_id: POINTS, value: '12' },
    { team_id: 2014, player_id: 201401, stat_id: POINTS, value: '12', display_name: 'Player 201401', position: 'G' },
    { team_id: 2014, player_id: 201401, stat_id: ASSISTS, value: '3' },
    { team_id: 2002, player_id: 200201, stat_id: POINTS, value: '7', display_name: 'Player 200201', position: 'G' },
  ]);

  // The same box again writes nothing; a correction down and a new player write their rows only.
  const head = s.ledger.headId;
  await s.ledger.apply(
    batch(AT, [
      box([
        player(201401, 2014, [
          [POINTS, '12'],
          [ASSISTS, '3'],
        ]),
      ]),
    ]),
  );
  assert.equal(s.ledger.headId, head, 'an unchanged box writes no row');
  await s.ledger.apply(
    batch(AT, [
      box([
        player(201401, 2014, [
          [POINTS, '10.0'],
          [ASSISTS, '3'],
        ]),
        player(201402, 2014, [[ASSISTS, '1']]),
      ]),
    ]),
  );
  assert.deepEqual(statRows(s.published.at(-1)!), [
    { team_id: 2014, player_id: 201401, stat_id: POINTS, value: '10' },
    { team_id: 2014, player_id: 201402, stat_id: ASSISTS, value: '1', display_name: 'Player 201402', position: 'G' },
  ]);
  const live = boardBox(s.board);
  assert.deepEqual(live, {
    teams: [
      [2002, [[POINTS, 7]]],
      [2014, [[POINTS, 12]]],
    ],
    players: [
      [
        201401,
        2014,
        'Player 201401',
        [
          [POINTS, 10],
          [ASSISTS, 3],
        ],
      ],
      [200201, 2002, 'Player 200201', [[POINTS, 7]]],
      [201402, 2014, 'Player 201402', [[ASSISTS, 1]]],
    ],
  });

  await s.store.close();
  const again = await setup(t, s.dir);
  assert.deepEqual(boardBox(again.board), live, 'a restart loads the box as set');
});

test('a whole box takes away what it does not name: a removal row each, the box as given after a restart', async (t) => {
  const s = await withEvents(t);
  await s.ledger.apply(
    batch(AT, [
      box(
        [
          player(201401, 2014, [
            [POINTS, '12'],
            [ASSISTS, '3'],
          ]),
          player(200201, 2002, [[POINTS, '7']]),
        ],
        [{ team_id: 2014, stats: [{ stat_id: POINTS, value: '12' }] }],
      ),
    ]),
  );
  // Without `whole`, a value not named keeps the one held.
  const head = s.ledger.headId;
  await s.ledger.apply(batch(AT, [box([player(201401, 2014, [[POINTS, '12']])])]));
  assert.equal(s.ledger.headId, head);
  await s.ledger.apply(batch(AT, [{ ...box([player(201401, 2014, [[POINTS, '12']])]), whole: true }]));
  assert.deepEqual(statRows(s.published.at(-1)!), [
    { team_id: 2014, stat_id: POINTS, value: '', removed: true },
    { team_id: 2014, player_id: 201401, stat_id: ASSISTS, value: '', removed: true },
    { team_id: 2002, player_id: 200201, stat_id: POINTS, value: '', removed: true },
  ]);
  const live = boardBox(s.board);
  assert.deepEqual(live, {
    teams: [],
    players: [[201401, 2014, 'Player 201401', [[POINTS, 12]]]],
  });
  // The same whole box again takes nothing more away.
  const after = s.ledger.headId;
  await s.ledger.apply(batch(AT, [{ ...box([player(201401, 2014, [[POINTS, '12']])]), whole: true }]));
  assert.equal(s.ledger.headId, after);
  await s.store.close();
  const again = await setup(t, s.dir);
  assert.deepEqual(boardBox(again.board), live, 'a restart loads the box as taken away');
});

test('a box score the event cannot hold is refused whole, nothing written', async (t) => {
  const s = await withEvents(t);
  const head = s.ledger.headId;
  const refused = async (u: BoxScoreUpdate, message: RegExp) => {
    await assert.rejects(
      s.ledger.apply(batch(AT, [box([player(201401, 2014, [[POINTS, '1']])]), u])),
      (err: Error) => err instanceof LedgerError && message.test(err.message),
    );
    assert.equal(s.ledger.headId, head);
  };
  await refused(box([player(201401, 2014, [[id(2, 'points'), '1']])]), /keeps no stat/);
  await refused(box([player(301, 3001, [[POINTS, '1']])]), /team 3001 does not play/);
  await refused(box([player(201401, 2014, [[POINTS, 'twelve']])]), /not a number/);
  const nfl = (u: BoxScoreUpdate): BoxScoreUpdate => ({ ...u, event_id: NFL });
  await refused(
    nfl(box([], [{ team_id: 2002, stats: [{ stat_id: id(2, 'receptions'), value: '4' }] }])),
    /receptions is a player's stat/,
  );
  await refused(nfl(box([player(200201, 2002, [[id(2, 'points'), '7']])])), /points is a team's stat/);
  assert.equal(s.board.events.get(E)!.game, undefined, 'the board holds no box');
});

test('a play keeps the number and time its source gives; a number that is not the next is refused', async (t) => {
  const s = await withEvents(t);
  const when = '2026-11-23T09:12:34.500Z';
  const play = { ...creditPlay(2014, 201401, 'points', 2, { away: 0, home: 2 }), credits: [], people: [] };
  await s.ledger.apply(batch(AT, [{ kind: 'play', event_id: E, play: { ...play, sequence: 1, created_at: when } }]));
  const row = s.published.at(-1)!.changes.find((c) => c.kind === 'play')!;
  const served = JSON.parse(row.payload) as Play;
  assert.equal(served.sequence, 1);
  assert.equal(served.created_at, when);
  assert.equal(row.at, AT, 'the row keeps the batch time');
  assert.equal(
    Object.keys(served).join(),
    'event_id,sequence,period,game_clock,display_clock,description,team_id,score_away,score_home,players,created_at',
  );

  const head = s.ledger.headId;
  await assert.rejects(
    s.ledger.apply(batch(AT, [{ kind: 'play', event_id: E, play: { ...play, sequence: 3 } }])),
    /play 3 of event b+ is not its next play, 2/,
  );
  await assert.rejects(
    s.ledger.apply(batch(AT, [{ kind: 'play', event_id: E, play: { ...play, created_at: '2026-13-45' } }])),
    /created_at is not ISO 8601/,
  );
  assert.equal(s.ledger.headId, head);
  await s.ledger.apply(batch(AT, [{ kind: 'play', event_id: E, play }]));
  const next = JSON.parse(s.published.at(-1)!.changes.find((c) => c.kind === 'play')!.payload) as Play;
  assert.deepEqual([next.sequence, next.created_at], [2, AT], 'omitted: the next number and the batch time');
});
