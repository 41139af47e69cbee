import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { Board } from '../../src/board/board.ts';
import type { CommittedBatch } from '../../src/bus/bus.ts';
import type { PriceDetail } from '../../src/changelog/change.ts';
import type { DeltaRow } from '../../src/domain/types.ts';
import { MemoryBus } from '../../src/bus/memory-bus.ts';
import { Ledger, LedgerError } from '../../src/ledger/ledger.ts';
import { openSqlite } from '../../src/store/sqlite/database.ts';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.ts';
import { batch, nbaEvent, nbaPrices, price, score, statsRecord } from '../helpers/fixtures.ts';

async function setup(dir = mkdtempSync(join(tmpdir(), 'oddsbase-ledger-'))) {
  const store = new SqliteStore(openSqlite(dir));
  const board = new Board();
  const bus = new MemoryBus();
  const published: CommittedBatch[] = [];
  bus.subscribe((b) => published.push(b));
  const ledger = await Ledger.open(store, board, bus);
  return { dir, store, board, ledger, published };
}

/** A batch's price rows, each as served (its payload) with its detail beside. */
const rows = (b: CommittedBatch): (DeltaRow & PriceDetail)[] =>
  b.changes
    .filter((c) => c.kind === 'price')
    .map((c) => ({ ...(JSON.parse(c.payload) as DeltaRow), ...(JSON.parse(c.detail ?? '{}') as PriceDetail) }));
const E = 'a'.repeat(32);

test('change ids are global, in commit order, and change types follow the history of each price', async (t) => {
  const s = await setup();
  t.after(async () => {
    await s.store.close();
    rmSync(s.dir, { recursive: true, force: true });
  });
  await s.ledger.apply(batch('2026-11-23T10:00:00Z', [{ kind: 'event', event: nbaEvent(E) }, ...nbaPrices(E)]));
  const first = s.published[0]!;
  assert.deepEqual(
    first.changes.map((c) => c.id),
    first.changes.map((_, i) => i + 1),
  );
  assert.ok(rows(first).every((r) => r.change_type === 'new' && r.previous_price === ''));

  await s.ledger.apply(
    batch('2026-11-23T10:01:00Z', [
      price(E, {
        market_id: 1,
        participant_id: 2002,
        participant_name: 'Boston',
        affiliate_id: 19,
        price: 125,
      }),
    ]),
  );
  const [r] = rows(s.published[1]!);
  assert.equal(r!.change_type, 'price_change');
  assert.equal(r!.previous_price, '130');
  assert.equal(r!.price, '125');
  assert.equal(r!.price_delta, -5);
  assert.equal(r!.id, first.headId + 1);
  assert.equal(r!.closed_at, '');
  assert.equal(r!.updated_at, '2026-11-23T10:01:00.000Z');
});

test('a main line moving to a line priced for the first time is a line_change from the old price', async (t) => {
  const s = await setup();
  t.after(() => rmSync(s.dir, { recursive: true, force: true }));
  await s.ledger.apply(batch('2026-11-23T10:00:00Z', [{ kind: 'event', event: nbaEvent(E) }, ...nbaPrices(E)]));
  await s.ledger.apply(
    batch('2026-11-23T10:02:00Z', [
      price(E, {
        market_id: 2,
        participant_id: 2002,
        participant_name: 'Boston',
        affiliate_id: 19,
        line: '4',
        price: -115,
        is_main_line: true,
      }),
    ]),
  );
  const [off, on] = rows(s.published[1]!);
  assert.deepEqual([off!.line, off!.is_main_line, off!.change_type], ['3.5', false, 'line_change']);
  assert.deepEqual([on!.line, on!.is_main_line, on!.change_type], ['4', true, 'line_change']);
  assert.equal(on!.previous_price, '-110');
  assert.equal(on!.price_delta, -5);
});

test('an unchanged price writes nothing', async (t) => {
  const s = await setup();
  t.after(() => rmSync(s.dir, { recursive: true, force: true }));
  await s.ledger.apply(batch('2026-11-23T10:00:00Z', [{ kind: 'event', event: nbaEvent(E) }, ...nbaPrices(E)]));
  const head = s.ledger.headId;
  await s.ledger.apply(batch('2026-11-23T10:05:00Z', nbaPrices(E)));
  assert.equal(s.ledger.headId, head);
  assert.equal(s.published.length, 1);
});

test('when the main line moves, the flag leaves the old line and arrives on the new one at the same time', async (t) => {
  const s = await setup();
  t.after(() => rmSync(s.dir, { recursive: true, force: true }));
  await s.ledger.apply(batch('2026-11-23T10:00:00Z', [{ kind: 'event', event: nbaEvent(E) }, ...nbaPrices(E)]));
  await s.ledger.apply(
    batch('2026-11-23T10:02:00Z', [
      price(E, {
        market_id: 2,
        participant_id: 2014,
        participant_name: 'Los Angeles',
        affiliate_id: 19,
        line: '-4.5',
        price: -108,
        is_main_line: true,
      }),
    ]),
  );
  const moved = rows(s.published[1]!);
  assert.equal(moved.length, 2);
  const [off, on] = moved;
  assert.equal(off!.line, '-3.5');
  assert.equal(off!.is_main_line, false);
  assert.equal(on!.line, '-4.5');
  assert.equal(on!.is_main_line, true);
  assert.equal(off!.updated_at, on!.updated_at);
  assert.equal(on!.change_type, 'line_change');
  assert.equal(off!.change_type, 'line_change');
  const lines = s.board.getEvent(E)!.markets.get('2:0')!.participants.get('TYPE_TEAM:2014')!.lines;
  const mains = [...lines.values()].filter((l) => l.prices.get(19)?.is_main_line);
  assert.deepEqual(
    mains.map((l) => l.value),
    ['-4.5'],
  );
  // book 23 keeps its own main line
  assert.equal(lines.get('-3.5')!.prices.get(23)!.is_main_line, true);
});

test('the price a main line moved to remembers the line it came from until its next row, across a restart', async (t) => {
  const s = await setup();
  t.after(() => rmSync(s.dir, { recursive: true, force: true }));
  await s.ledger.apply(batch('2026-11-23T10:00:00Z', [{ kind: 'event', event: nbaEvent(E) }, ...nbaPrices(E)]));
  const home = { market_id: 2, participant_id: 2014, participant_name: 'Los Angeles', affiliate_id: 19 };
  await s.ledger.apply(
    batch('2026-11-23T10:02:00Z', [price(E, { ...home, line: '-4.5', price: -108, is_main_line: true })]),
  );
  const lines = () => s.board.getEvent(E)!.markets.get('2:0')!.participants.get('TYPE_TEAM:2014')!.lines;
  assert.equal(lines().get('-4.5')!.prices.get(19)!.moved_from, '-3.5');
  assert.equal(lines().get('-3.5')!.prices.get(19)!.moved_from, undefined);
  // Book 23 did not move.
  assert.equal(lines().get('-3.5')!.prices.get(23)!.moved_from, undefined);
  await s.store.close();

  const again = await setup(s.dir);
  t.after(() => again.store.close());
  const after = () => again.board.getEvent(E)!.markets.get('2:0')!.participants.get('TYPE_TEAM:2014')!.lines;
  assert.equal(after().get('-4.5')!.prices.get(19)!.moved_from, '-3.5');
  await again.ledger.apply(batch('2026-11-23T10:03:00Z', [price(E, { ...home, line: '-4.5', price: -112 })]));
  assert.equal(after().get('-4.5')!.prices.get(19)!.moved_from, undefined);
});

test('closing sets closed_at to the batch time; the off-board sentinel is a price with no delta', async (t) => {
  const s = await setup();
  t.after(() => rmSync(s.dir, { recursive: true, force: true }));
  await s.ledger.apply(batch('2026-11-23T10:00:00Z', [{ kind: 'event', event: nbaEvent(E) }, ...nbaPrices(E)]));
  await s.ledger.apply(
    batch('2026-11-23T10:03:00Z', [price(E, { market_id: 1, participant_id: 2002, affiliate_id: 23, price: 0.0001 })]),
  );
  const [off] = rows(s.published[1]!);
  assert.equal(off!.price, '0.0001');
  assert.equal(off!.price_delta, 0);
  await s.ledger.apply(
    batch('2026-11-23T10:04:00Z', [
      price(E, { market_id: 1, participant_id: 2002, affiliate_id: 23, price: 0.0001, closed: true }),
    ]),
  );
  const [closed] = rows(s.published[2]!);
  assert.equal(closed!.closed_at, '2026-11-23T10:04:00.000Z');
});

test('a batch naming an unknown event is refused whole and nothing is written', async (t) => {
  const s = await setup();
  t.after(() => rmSync(s.dir, { recursive: true, force: true }));
  await assert.rejects(s.ledger.apply(batch('2026-11-23T10:00:00Z', [...nbaPrices(E)])), LedgerError);
  assert.equal(s.ledger.headId, 0);
  assert.equal(s.board.events.size, 0);
});

test("a stats record listing another sport's stat id is refused whole; an id the batch frees first may move", async (t) => {
  const s = await setup();
  t.after(async () => {
    await s.store.close();
    rmSync(s.dir, { recursive: true, force: true });
  });
  // 4001 is NBA points: the simulator's definitions hold while the catalog has no stats record.
  await assert.rejects(
    s.ledger.apply(batch('2026-11-23T10:00:00Z', [statsRecord(60, [60_001, 4001])])),
    (err: Error) => err instanceof LedgerError && /stat id 4001 is sport 4's/.test(err.message),
  );
  assert.equal(s.ledger.headId, 0);
  await s.ledger.apply(batch('2026-11-23T10:00:00Z', [statsRecord(60, [60_001])]));
  await assert.rejects(
    s.ledger.apply(batch('2026-11-23T10:01:00Z', [statsRecord(61, [61_001, 60_001])])),
    /stat id 60001 is sport 60's/,
  );
  await s.ledger.apply(batch('2026-11-23T10:02:00Z', [statsRecord(60, [60_002]), statsRecord(61, [60_001])]));
  assert.deepEqual(s.board.catalog.sportsOfStat(60_001), [61]);
});

test('a restart keeps every committed row, the board and the id sequence', async (t) => {
  const s = await setup();
  t.after(() => rmSync(s.dir, { recursive: true, force: true }));
  await s.ledger.apply(batch('2026-11-23T10:00:00Z', [{ kind: 'event', event: nbaEvent(E) }, ...nbaPrices(E)]));
  await s.ledger.apply(
    batch('2026-11-23T10:02:00Z', [
      price(E, {
        market_id: 2,
        participant_id: 2014,
        participant_name: 'Los Angeles',
        affiliate_id: 19,
        line: '-4.5',
        price: -108,
        is_main_line: true,
      }),
    ]),
  );
  const head = s.ledger.headId;
  const marketIds = [...s.board.getEvent(E)!.markets.values()].map((m) => m.id);
  await s.store.close();

  const again = await setup(s.dir);
  t.after(() => again.store.close());
  assert.equal(again.ledger.headId, head);
  assert.deepEqual(
    [...again.board.getEvent(E)!.markets.values()].map((m) => m.id),
    marketIds,
  );
  await again.ledger.apply(
    batch('2026-11-23T10:06:00Z', [
      price(E, {
        market_id: 2,
        participant_id: 2014,
        participant_name: 'Los Angeles',
        affiliate_id: 19,
        line: '-3.5',
        price: -120,
        is_main_line: true,
      }),
    ]),
  );
  const moved = rows(again.published[0]!);
  assert.deepEqual(
    moved.map((r) => [r.id, r.line, r.is_main_line]),
    [
      [head + 1, '-4.5', false],
      [head + 2, '-3.5', true],
    ],
  );
  assert.equal(moved[1]!.previous_price, '-110');
});

test("a batch that changes only an event's prices leaves its stored record, and a restart finds the same event", async (t) => {
  const s = await setup();
  t.after(() => rmSync(s.dir, { recursive: true, force: true }));
  const written: string[][] = [];
  const commit = s.store.commit.bind(s.store);
  s.store.commit = (c) => {
    written.push(c.events.map((e) => e.event_id));
    return commit(c);
  };
  const F = 'f'.repeat(32);
  await s.ledger.apply(
    batch('2026-11-23T10:00:00Z', [
      { kind: 'event', event: nbaEvent(E) },
      { kind: 'event', event: nbaEvent(F) },
      ...nbaPrices(E),
      ...nbaPrices(F),
    ]),
  );
  const moneyline = (eventId: string, p: number) =>
    price(eventId, { market_id: 1, participant_id: 2002, participant_name: 'Boston', affiliate_id: 19, price: p });
  await s.ledger.apply(batch('2026-11-23T10:01:00Z', [moneyline(E, 140), moneyline(F, 150)]));
  await s.ledger.apply(
    batch('2026-11-23T10:02:00Z', [
      moneyline(E, 145),
      { kind: 'score', event_id: F, score: score(F, 'STATUS_IN_PROGRESS', 2, 0) },
    ]),
  );
  assert.deepEqual(written, [[E, F], [], [F]]);
  const before = [E, F].map((id) => {
    const ev = s.board.getEvent(id)!;
    return { info: ev.info, version: ev.version };
  });
  assert.equal(before[0]!.version, s.ledger.headId - 1, "E's version is its last price row");
  await s.store.close();

  const again = await setup(s.dir);
  t.after(() => again.store.close());
  assert.deepEqual(
    [E, F].map((id) => {
      const ev = again.board.getEvent(id)!;
      return { info: ev.info, version: ev.version };
    }),
    before,
  );
});

test('a batch the store refuses leaves the board as committed, and the next batch builds on it', async (t) => {
  const s = await setup();
  t.after(() => rmSync(s.dir, { recursive: true, force: true }));
  await s.ledger.apply(batch('2026-11-23T10:00:00Z', [{ kind: 'event', event: nbaEvent(E) }, ...nbaPrices(E)]));
  const head = s.ledger.headId;
  const spread = () => s.board.getEvent(E)!.markets.get('2:0')!.participants.get('TYPE_TEAM:2014')!.lines;
  const at19 = (line: string) => {
    const p = spread().get(line)!.prices.get(19)!;
    return [p.price, p.is_main_line, p.price_delta, p.change_id];
  };
  const before = [at19('-3.5'), at19('-4.5')];
  const commit = s.store.commit.bind(s.store);
  s.store.commit = () => {
    throw new Error('disk full');
  };
  // The batch changes prices the board holds, and moves a main line, before the store refuses it.
  const move = (p: number) =>
    batch('2026-11-23T10:01:00Z', [
      price(E, { market_id: 1, participant_id: 2002, affiliate_id: 19, price: 140 }),
      price(E, {
        market_id: 2,
        participant_id: 2014,
        participant_name: 'Los Angeles',
        affiliate_id: 19,
        line: '-4.5',
        price: p,
        is_main_line: true,
      }),
    ]);
  await assert.rejects(s.ledger.apply(move(-108)), /disk full/);
  assert.equal(s.ledger.headId, head);
  assert.equal(s.published.length, 1);
  assert.deepEqual([at19('-3.5'), at19('-4.5')], before);

  s.store.commit = commit;
  // Starts with the market the refused batch ended with.
  await s.ledger.apply(batch('2026-11-23T10:01:00Z', move(-106).updates.reverse()));
  const [off, on, ml] = rows(s.published[1]!);
  assert.deepEqual(
    [ml!.previous_price, off!.line, off!.is_main_line, on!.previous_price, on!.change_type],
    ['130', '-3.5', false, '105', 'line_change'],
  );
  // The writes reached the live board, not objects of the board as it was before the reload.
  assert.deepEqual([at19('-3.5')[1], at19('-4.5')[0], at19('-4.5')[1]], [false, -106, true]);
});

test('a market with many participants finds each by its type and id', async (t) => {
  const s = await setup();
  t.after(() => rmSync(s.dir, { recursive: true, force: true }));
  const players = (p: number) =>
    Array.from({ length: 12 }, (_, i) =>
      price(E, {
        market_id: 401,
        participant_id: 100 + (i % 6),
        participant_type: i < 6 ? 'TYPE_PLAYER' : 'TYPE_TEAM',
        participant_name: `P${i}`,
        affiliate_id: 19,
        line: '20.5',
        price: p + i,
      }),
    );
  await s.ledger.apply(batch('2026-11-23T10:00:00Z', [{ kind: 'event', event: nbaEvent(E) }, ...players(100)]));
  await s.ledger.apply(batch('2026-11-23T10:01:00Z', players(120)));
  const changed = rows(s.published[1]!);
  assert.equal(changed.length, 12);
  assert.deepEqual(
    changed.map((r) => [r.change_type, r.previous_price]),
    changed.map((_, i) => ['price_change', String(100 + i)]),
  );
  assert.equal(s.board.getEvent(E)!.markets.get('401:0')!.participants.size, 12);
});

test('a futures board or price sent again unchanged writes no row and uses no id', async (t) => {
  const s = await setup();
  t.after(async () => {
    await s.store.close();
    rmSync(s.dir, { recursive: true, force: true });
  });
  const board = {
    kind: 'futures_board' as const,
    board: {
      event_id: 'f'.repeat(32),
      sport_id: 4,
      name: 'NBA Championship',
      season_year: 2026,
      starts_at: '2026-10-01T00:00:00Z',
      ends_at: '2027-06-30T00:00:00Z',
      markets: [
        {
          market_id: 1140,
          name: 'Championship Winner',
          participants: [
            { id: 2002, name: 'Boston', type: 'TYPE_TEAM' as const },
            { id: 2014, name: 'Los Angeles', type: 'TYPE_TEAM' as const },
          ],
        },
      ],
    },
  };
  const quote = (participant_id: number, price: number) => ({
    kind: 'futures_price' as const,
    event_id: board.board.event_id,
    market_id: 1140,
    participant_id,
    affiliate_id: 19,
    price,
  });
  await s.ledger.apply(batch('2026-11-23T10:00:00Z', [board, quote(2002, 350), quote(2014, 500)]));
  const head = s.ledger.headId;
  // The board and one price as they are, then one price that moved.
  await s.ledger.apply(batch('2026-11-23T10:01:00Z', [board, quote(2002, 350), quote(2014, 450)]));
  const last = s.published.at(-1)!;
  assert.deepEqual(
    last.changes.map((c) => [c.kind, c.id]),
    [['futures_price', head + 1]],
  );
  assert.equal(s.ledger.headId, head + 1);
});

test('an event lists its markets in instance-id order, however a feed brought them, as a restart does', async (t) => {
  const s = await setup();
  t.after(() => rmSync(s.dir, { recursive: true, force: true }));
  const made = (market_id: number, market_instance_id: number, price_id: number) =>
    price(E, { market_id, market_instance_id, price_id, participant_id: 2002, affiliate_id: 19, price: 110 });
  await s.ledger.apply(batch('2026-11-23T10:00:00Z', [{ kind: 'event', event: nbaEvent(E) }, made(1, 50, 500)]));
  // A mirror may learn of a market after one its upstream made later: the lower id goes first.
  await s.ledger.apply(batch('2026-11-23T10:01:00Z', [made(3, 70, 700)]));
  await s.ledger.apply(batch('2026-11-23T10:02:00Z', [made(2, 60, 600)]));
  const listed = (board: Board) => [...board.getEvent(E)!.markets.values()].map((m) => [m.id, m.market_id]);
  const expected = [
    [50, 1],
    [60, 2],
    [70, 3],
  ];
  assert.deepEqual(listed(s.board), expected);
  await s.store.close();
  const again = await setup(s.dir);
  t.after(() => again.store.close());
  assert.deepEqual(listed(again.board), expected);
});

test('a named batch sent again applies nothing and is no failed commit, even once its event was archived', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'oddsbase-ledger-'));
  const store = new SqliteStore(openSqlite(dir));
  t.after(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const bus = new MemoryBus();
  const published: CommittedBatch[] = [];
  bus.subscribe((b) => published.push(b));
  const failed: boolean[] = [];
  const ledger = await Ledger.open(store, new Board(), bus, { onCommit: (_rows, _s, f) => failed.push(f) });
  const at = () => new Date().toISOString();
  const named = (id: string, updates: Parameters<typeof batch>[1]) => ({ ...batch(at(), updates), batch_id: id });
  const opening = [{ kind: 'event' as const, event: nbaEvent(E) }, ...nbaPrices(E)];
  const first = await ledger.applyNamed(named('b-1', opening));
  assert.deepEqual(first, { applied: true, headId: ledger.headId });
  const boston = (p: number) => price(E, { market_id: 1, participant_id: 2002, affiliate_id: 19, price: p });
  await ledger.apply(batch(at(), [boston(125)]));
  const head = ledger.headId;
  const told = published.length;

  assert.deepEqual(await ledger.applyNamed(named('b-1', opening)), { applied: false, headId: first.headId });
  assert.equal(ledger.headId, head);
  assert.equal(published.length, told, 'nothing published');
  assert.deepEqual(failed, [false, false], 'the store refusing a kept name is no failed commit');
  // The ids the refused commit's plan took are handed out again.
  await ledger.apply(batch(at(), [boston(120)]));
  assert.equal(published.at(-1)!.changes[0]!.id, head + 1);

  // The event ends and is archived: a batch naming it is invalid now, unless it was applied before.
  const final = named('b-2', [{ kind: 'score', event_id: E, score: score(E, 'STATUS_FINAL', 100, 90) }]);
  const ended = await ledger.applyNamed(final);
  assert.equal(ended.applied, true);
  assert.equal(await ledger.archiveFinished(Date.now() + 1, 0), 1);
  assert.deepEqual(await ledger.applyNamed(final), { applied: false, headId: ended.headId });
  await assert.rejects(ledger.applyNamed({ ...final, batch_id: 'b-3' }), LedgerError);
  assert.ok(!failed.includes(true));
});
