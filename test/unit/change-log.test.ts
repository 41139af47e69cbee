import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Board } from '../../src/board/board.ts';
import { ChangeFeed } from '../../src/board/change-feed.ts';
import type { LeagueEntry, TeamEntry } from '../../src/catalog/records.ts';
import type { CommittedBatch } from '../../src/bus/bus.ts';
import { MemoryBus } from '../../src/bus/memory-bus.ts';
import { CHANGE_KINDS, decodeChange } from '../../src/changelog/change.ts';
import type { FuturesHeader } from '../../src/domain/futures.ts';
import { Ledger, LedgerBusyError } from '../../src/ledger/ledger.ts';
import { MemoryStore } from '../../src/store/memory/memory-store.ts';
import { batch, nbaEvent, nbaPrices, price, score } from '../helpers/fixtures.ts';

const E = 'c1'.repeat(16);
const at = '2026-11-23T10:00:00.000Z';
const ml = (p: number) => price(E, { market_id: 1, participant_id: 2002, affiliate_id: 19, price: p });

async function ledgerOn(store = new MemoryStore(), bus = new MemoryBus(), opts = {}) {
  const board = new Board();
  const ledger = await Ledger.open(store, board, bus, opts);
  return { store, bus, board, ledger };
}

test('batches span ids without gaps and carry the log epoch', async () => {
  const s = await ledgerOn();
  const seen: CommittedBatch[] = [];
  s.bus.subscribe((b) => seen.push(b));
  await s.ledger.apply(batch(at, [{ kind: 'event', event: nbaEvent(E) }, ...nbaPrices(E)]));
  await s.ledger.apply(batch(at, [ml(140)]));
  assert.equal(seen.length, 2);
  assert.equal(seen[0]!.fromId, 0);
  assert.equal(seen[1]!.fromId, seen[0]!.headId, 'each batch starts where the previous one ended');
  for (const b of seen) {
    assert.deepEqual(
      b.changes.map((c) => c.id),
      Array.from({ length: b.headId - b.fromId }, (_, i) => b.fromId + i + 1),
    );
    assert.equal(b.epoch, s.ledger.position.epoch);
  }
  assert.match(s.ledger.position.epoch, /^[0-9a-f-]{36}$/);
  assert.deepEqual(s.ledger.position, { id: s.board.head, epoch: seen[0]!.epoch });
});

test('the epoch is kept by a reopened log and differs between logs', async () => {
  const store = new MemoryStore();
  const a = await ledgerOn(store);
  await a.ledger.apply(batch(at, [{ kind: 'event', event: nbaEvent(E) }]));
  const again = await ledgerOn(store);
  assert.equal(again.ledger.position.epoch, a.ledger.position.epoch);
  const other = await ledgerOn();
  assert.notEqual(other.ledger.position.epoch, a.ledger.position.epoch);
});

const F = 'f0'.repeat(16);
const FUTURES: FuturesHeader = {
  event_id: F,
  sport_id: 4,
  name: 'NBA Championship',
  season_year: 2026,
  starts_at: '2026-11-16T00:00:00.000Z',
  ends_at: '2026-11-30T00:00:00.000Z',
  markets: [
    {
      market_id: 1140,
      name: 'Championship Winner',
      participants: [
        { id: 2002, name: 'Boston Celtics', type: 'TYPE_TEAM', team_id: 2002 },
        { id: 2014, name: 'Los Angeles Lakers', type: 'TYPE_TEAM', team_id: 2014 },
      ],
    },
  ],
};

test('every kind of stored row decodes to a change of its kind', async () => {
  const s = await ledgerOn();
  // A season record names a team of a committed league.
  const league: LeagueEntry = {
    type: 'league',
    league_key: 'nba',
    league_name: 'NBA',
    sport_ids: [4],
    team_ids: [2002, 2014],
  };
  const team: TeamEntry = {
    type: 'team',
    team_id: 2002,
    name: 'Boston',
    mascot: 'Celtics',
    abbreviation: 'BOS',
    conference: 'East',
    division: 'Atlantic',
    venue_name: '',
    venue_location: '',
  };
  await s.ledger.apply(
    batch(at, [
      { kind: 'catalog', record: team },
      { kind: 'catalog', record: league },
    ]),
  );
  const seen: CommittedBatch[] = [];
  s.bus.subscribe((b) => seen.push(b));
  await s.ledger.apply(
    batch(at, [
      { kind: 'event', event: nbaEvent(E) },
      { kind: 'score', event_id: E, score: score(E, 'STATUS_IN_PROGRESS', 1, 2), live_game_state: { period: 1 } },
      ml(125),
      {
        kind: 'play',
        event_id: E,
        play: {
          period: 1,
          game_clock: 700,
          display_clock: '11:40',
          description: 'A makes jump shot',
          team_id: 2002,
          score_away: 2,
          score_home: 0,
          players: [200201],
          credits: [{ team_id: 2002, player_id: 200201, stat: 'points', n: 2 }],
          people: [{ id: 200201, display_name: 'A', position: 'PG' }],
        },
      },
      { kind: 'futures_board', board: FUTURES },
      { kind: 'futures_price', event_id: F, market_id: 1140, participant_id: 2002, affiliate_id: 19, price: 450 },
      { kind: 'futures_settlement', event_id: F, state: 'settled', winner_participant_id: 2002 },
      {
        kind: 'catalog',
        record: {
          type: 'book',
          affiliate_id: 9001,
          affiliate_name: 'Test Book',
          affiliate_url: 'https://book.example',
          status: 'healthy',
          regions: ['us'],
        },
      },
      { kind: 'season_stats', team_id: 2002, year: 2026, season_type: 2, stats: [], players: [] },
    ]),
  );
  const rows = seen[0]!.changes;
  // Futures rows name their board, not an event: no event record, and not in the batch's events.
  assert.deepEqual(seen[0]!.eventIds, [E]);
  assert.deepEqual(new Set(rows.map((r) => r.kind)), new Set(CHANGE_KINDS));
  for (const row of rows) assert.equal(decodeChange(row).kind, row.kind);
  const p = decodeChange(rows[2]!);
  assert.ok(p.kind === 'price' && p.fact.price === 125 && p.fact.affiliate_id === 19);
});

test('a listener that throws neither starves the others nor fails the writer', async () => {
  const errors: unknown[] = [];
  const bus = new MemoryBus((err) => errors.push(err));
  const s = await ledgerOn(new MemoryStore(), bus);
  let after = 0;
  bus.subscribe(() => {
    throw new Error('a broken reader');
  });
  bus.subscribe(() => after++);
  await s.ledger.apply(batch(at, [{ kind: 'event', event: nbaEvent(E) }]));
  assert.equal(after, 1);
  assert.equal(errors.length, 1);
  assert.equal(s.board.head, 1);
});

test('batches commit in the order handed in, and a full queue refuses at once', async () => {
  const store = new MemoryStore();
  // A slow store: every commit waits for the test to release it.
  const waiting: (() => void)[] = [];
  const commit = store.commit.bind(store);
  store.commit = async (c) => {
    await new Promise<void>((resolve) => waiting.push(resolve));
    return commit(c);
  };
  const s = await ledgerOn(store, new MemoryBus(), { maxQueuedBatches: 3 });
  const done: number[] = [];
  const first = s.ledger
    .apply(batch(at, [{ kind: 'event', event: nbaEvent(E) }, ...nbaPrices(E)]))
    .then(() => done.push(1));
  const second = s.ledger.apply(batch(at, [ml(140)])).then(() => done.push(2));
  const third = s.ledger.apply(batch(at, [ml(150)])).then(() => done.push(3));
  await assert.rejects(s.ledger.apply(batch(at, [ml(160)])), LedgerBusyError);
  assert.equal(s.ledger.backlog, 3);
  assert.equal(s.board.head, 0, 'nothing is visible before its commit');
  while (done.length < 3) {
    await new Promise((r) => setImmediate(r));
    waiting.shift()?.();
  }
  await Promise.all([first, second, third]);
  assert.deepEqual(done, [1, 2, 3]);
  assert.equal(s.ledger.backlog, 0);
  const p = s.board.getEvent(E)!.markets.get('1:0')!.participants.get('TYPE_TEAM:2002')!.lines.get('')!.prices.get(19)!;
  assert.equal(p.price, 150);
});

test('a feed that misses a batch reads the gap from the store, not from what it holds', async () => {
  const store = new MemoryStore();
  const bus = new MemoryBus();
  const s = await ledgerOn(store, bus);
  await s.ledger.apply(batch(at, [{ kind: 'event', event: nbaEvent(E) }, ...nbaPrices(E)]));
  const feed = await ChangeFeed.open(store, bus, s.board.head, { maxScan: 1000 });
  const head = s.board.head;
  // A batch that reaches the store and the board but not this feed (as a dropped message from another node would).
  const lost = bus.subscribe(() => {});
  feed.close();
  await s.ledger.apply(batch(at, [ml(141)]));
  lost();
  const deliver = feed as unknown as { receive(b: CommittedBatch): void };
  // The next batch arrives with a fromId the feed has not reached.
  const seen: CommittedBatch[] = [];
  bus.subscribe((b) => seen.push(b));
  await s.ledger.apply(batch(at, [ml(142)]));
  deliver.receive(seen[0]!);
  const read = await feed.read({ pricesOnly: true, afterId: head }, 100);
  assert.deepEqual(
    read.rows.map((r) => JSON.parse(r.payload).price),
    ['141', '142'],
    'the missed row comes from the store, in order',
  );
  const page = await feed.readPayloadPage({ afterId: head }, 100);
  assert.equal(page.count, 2);
});

test('a futures board is refused a price on an unlisted participant, and a price or settlement once decided', async () => {
  const s = await ledgerOn();
  const price = (participant_id: number, p: number) =>
    ({ kind: 'futures_price', event_id: F, market_id: 1140, participant_id, affiliate_id: 19, price: p }) as const;
  await s.ledger.apply(batch(at, [{ kind: 'futures_board', board: FUTURES }, price(2002, 450)]));
  await assert.rejects(s.ledger.apply(batch(at, [price(9999, 300)])), /lists no participant/);
  // An unchanged price writes nothing.
  const head = s.ledger.headId;
  await s.ledger.apply(batch(at, [price(2002, 450)]));
  assert.equal(s.ledger.headId, head);
  await s.ledger.apply(
    batch(at, [{ kind: 'futures_settlement', event_id: F, state: 'void', winner_participant_id: null }]),
  );
  await assert.rejects(s.ledger.apply(batch(at, [price(2002, 500)])), /is decided/);
  await assert.rejects(
    s.ledger.apply(
      batch(at, [{ kind: 'futures_settlement', event_id: F, state: 'settled', winner_participant_id: 2002 }]),
    ),
    /already decided/,
  );
});
