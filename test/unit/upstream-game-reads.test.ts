import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  type ErrorDetail,
  type Event,
  ForbiddenError,
  type OddsbaseClient,
  type Play,
  type PlayerGameStats,
  type TeamGameStats,
} from '../../packages/client/src/index.ts';
import { Board } from '../../src/board/board.ts';
import { statByName } from '../../src/catalog/stats.ts';
import type { EventInfo } from '../../src/domain/types.ts';
import { GameReads } from '../../src/feeds/upstream/game-reads.ts';
import type { BoxScoreUpdate, PlayUpdate, UpdateBatch } from '../../src/ledger/updates.ts';
import { nbaEvent } from '../helpers/fixtures.ts';

/**
 * The mirror's reads of plays and box scores against a fake upstream that pages plays as the route
 * does (newest first, `limit`, `before_sequence`): which pages it asks, what it hands the ledger.
 */

const E = 'd'.repeat(32);
const POINTS = statByName(4, 'points')!.id;
const NOW = Date.parse('2026-12-06T20:00:00Z');

function play(sequence: number): Play {
  return {
    event_id: E,
    sequence,
    period: 1,
    game_clock: 100,
    display_clock: '1:40',
    description: `play ${sequence}`,
    team_id: 2014,
    score_away: 0,
    score_home: sequence,
    players: [201401],
    created_at: new Date(NOW - 10_000 + sequence).toISOString(),
  };
}

const TEAMS = [
  {
    team: { team_id: 2014 },
    stats: [
      { team_id: 2014, stat_id: POINTS, value: '9' },
      // A stat the mirror's catalog does not keep for the sport is left out.
      { team_id: 2014, stat_id: 999_001, value: '1' },
    ],
  },
] as unknown as TeamGameStats;
const PLAYERS = [
  {
    player: { id: 201401, display_name: 'A B', position: 'G', team_id: 2014 },
    stats: [{ stat: { id: POINTS }, value: '9' }],
  },
] as unknown as PlayerGameStats;

/** An upstream with `count` plays of E; `refusePlays` answers the plays route 403. */
function upstream(count: number, refusePlays = false) {
  const asked: string[] = [];
  const client = {
    async plays(eventId: string, q: { limit?: number; before_sequence?: number }) {
      asked.push(`plays limit=${q.limit} before=${q.before_sequence ?? '-'}`);
      if (refusePlays) {
        throw new ForbiddenError({ status: 403, body: { feature: 'plays' }, method: 'GET', path: '/' } as ErrorDetail);
      }
      const to = Math.min(count, (q.before_sequence ?? count + 1) - 1);
      const from = Math.max(1, to - (q.limit ?? 500) + 1);
      const plays: Play[] = [];
      for (let n = to; n >= from; n--) plays.push({ ...play(n), event_id: eventId });
      return { data: { meta: { last_sequence: count }, plays } };
    },
    async teamGameStats() {
      asked.push('team stats');
      return { data: TEAMS };
    },
    async playerGameStats() {
      asked.push('player stats');
      return { data: PLAYERS };
    },
  };
  return { client: client as unknown as OddsbaseClient, asked };
}

function mirror(count: number, held: number, refusePlays = false) {
  const board = new Board();
  board.events.set(E, {
    info: nbaEvent(E) as EventInfo,
    startMs: 0,
    markets: new Map(),
    version: 0,
    ...(held > 0 ? { game: { plays: held, teams: new Map(), players: new Map(), version: 0 } } : {}),
  });
  const batches: UpdateBatch[] = [];
  const up = upstream(count, refusePlays);
  const reads = new GameReads({
    client: up.client,
    ledger: { apply: async (b) => void batches.push(b) },
    board,
    now: () => NOW,
  });
  const started = { event_id: E, sport_id: 4, score: { event_status: 'STATUS_IN_PROGRESS' } } as unknown as Event;
  return { reads, batches, asked: up.asked, started, signal: new AbortController().signal };
}

const sequences = (b: UpdateBatch) =>
  b.updates.filter((u): u is PlayUpdate => u.kind === 'play').map((u) => u.play.sequence);

test('from no play held: a probe, then pages of 500 back to play 1; the plays in order, then the box', async () => {
  const m = mirror(1200, 0);
  await m.reads.mirror(m.started, false, m.signal);
  assert.deepEqual(m.asked, [
    'plays limit=1 before=-',
    'plays limit=500 before=1200',
    'plays limit=500 before=700',
    'plays limit=199 before=200',
    'team stats',
    'player stats',
  ]);
  assert.equal(m.batches.length, 1);
  const [b] = m.batches;
  assert.deepEqual(
    sequences(b!),
    Array.from({ length: 1200 }, (_, i) => i + 1),
  );
  assert.equal(b!.at, play(1200).created_at, 'the batch is dated by the newest play');
  const first = b!.updates[0] as PlayUpdate;
  assert.deepEqual([first.play.credits, first.play.people, first.play.created_at], [[], [], play(1).created_at]);
  assert.deepEqual(b!.updates.at(-1) as BoxScoreUpdate, {
    kind: 'box_score',
    event_id: E,
    teams: [{ team_id: 2014, stats: [{ stat_id: POINTS, value: '9' }] }],
    players: [
      {
        player_id: 201401,
        team_id: 2014,
        display_name: 'A B',
        position: 'G',
        stats: [{ stat_id: POINTS, value: '9' }],
      },
    ],
    whole: true,
  });
});

test('from plays held: only the newer ones; none new: the probe alone, unless a snapshot asks for the box', async () => {
  const some = mirror(1200, 1195);
  await some.reads.mirror(some.started, false, some.signal);
  assert.deepEqual(some.asked.slice(0, 2), ['plays limit=1 before=-', 'plays limit=4 before=1200']);
  assert.deepEqual(sequences(some.batches[0]!), [1196, 1197, 1198, 1199, 1200]);

  const none = mirror(1200, 1200);
  await none.reads.mirror(none.started, false, none.signal);
  assert.deepEqual(none.asked, ['plays limit=1 before=-']);
  assert.equal(none.batches.length, 0, 'nothing new: nothing handed to the ledger');
  await none.reads.mirror(none.started, true, none.signal);
  assert.deepEqual(none.asked.slice(1), ['plays limit=1 before=-', 'team stats', 'player stats']);
  assert.deepEqual(
    none.batches.map((b) => b.updates.map((u) => u.kind)),
    [['box_score']],
  );
  assert.equal(none.batches[0]!.at, new Date(NOW).toISOString());
});

test('an event without a score is not asked; plays refused (403) are not asked again, the box is', async () => {
  const m = mirror(10, 0, true);
  await m.reads.mirror({ ...m.started, score: undefined } as Event, true, m.signal);
  assert.deepEqual(m.asked, []);
  await m.reads.mirror(m.started, false, m.signal);
  await m.reads.mirror(m.started, false, m.signal);
  assert.deepEqual(m.asked, ['plays limit=1 before=-', 'team stats', 'player stats', 'team stats', 'player stats']);
});
