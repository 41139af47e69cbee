import assert from 'node:assert/strict';
import { test } from 'node:test';
import { scopeOf } from '../../src/access/plan-scope.ts';
import { Board } from '../../src/board/board.ts';
import { SmallMap } from '../../src/board/small-map.ts';
import { MemoryBus } from '../../src/bus/memory-bus.ts';
import { ByteBudget } from '../../src/perf/byte-budget.ts';
import { parseEventQuery } from '../../src/projection/event-query.ts';
import { envelope, envelopeInSlices, type SliceOptions } from '../../src/http/events-envelope.ts';
import { SnapshotCache } from '../../src/http/snapshot-cache.ts';
import { Ledger } from '../../src/ledger/ledger.ts';
import { MemoryStore } from '../../src/store/memory/memory-store.ts';
import { batch, nbaEvent, nbaPrices, price } from '../helpers/fixtures.ts';
import { SIMULATOR_CATALOG } from '../helpers/simulator-catalog.ts';

const IDS = Array.from({ length: 6 }, (_, i) => `e${i}`.repeat(16));

async function board(): Promise<{ board: Board; ledger: Ledger }> {
  const b = new Board();
  const ledger = await Ledger.open(new MemoryStore(), b, new MemoryBus());
  const updates = IDS.flatMap((id) => [{ kind: 'event' as const, event: nbaEvent(id) }, ...nbaPrices(id)]);
  await ledger.apply(batch(new Date().toISOString(), updates));
  return { board: b, ledger };
}

/** A deep copy of board state: plain objects, arrays, and the board's maps kept of their own class. */
function copyOf<T>(x: T): T {
  if (x instanceof Map || x instanceof SmallMap) {
    const copy = x instanceof SmallMap ? new SmallMap() : new Map();
    for (const [k, v] of x) copy.set(k, copyOf(v));
    return copy as T;
  }
  if (Array.isArray(x)) return x.map(copyOf) as T;
  if (x !== null && typeof x === 'object')
    return Object.fromEntries(Object.entries(x).map(([k, v]) => [k, copyOf(v)])) as T;
  return x;
}

const query = () =>
  parseEventQuery({ include: 'price_delta' }, 4, scopeOf(undefined, SIMULATOR_CATALOG), SIMULATOR_CATALOG);

/** Slices of no time at all: a yield before every event, each running `onYield` first. */
function everyEvent(onYield: (n: number) => Promise<void> = async () => {}): SliceOptions & { yields: number } {
  const opts = {
    sliceMs: 0,
    now: () => 0,
    yields: 0,
    turns: {
      next: async () => {
        await onYield(++opts.yields);
      },
    },
  };
  return opts;
}

test('built in slices, the envelope has the bytes it has built at once', async () => {
  const { board: b } = await board();
  const events = () => b.eventsOfSport(4);
  const q = query();
  const once = envelope(new SnapshotCache(new ByteBudget(1 << 24), SIMULATOR_CATALOG), events(), q, b.head);
  const opts = everyEvent();
  const sliced = await envelopeInSlices(
    new SnapshotCache(new ByteBudget(1 << 24), SIMULATOR_CATALOG),
    b,
    b,
    events,
    q,
    opts,
  );
  assert.equal(opts.yields, IDS.length, 'a yield before each event');
  assert.equal(sliced.body.toString(), once.body.toString());
  assert.equal(sliced.points, once.points);
  assert.equal(sliced.head, b.head);
});

test('a commit during a yield: the envelope shows the new head, the events it changed made again', async () => {
  const { board: b, ledger } = await board();
  const before = b.head;
  const cache = new SnapshotCache(new ByteBudget(1 << 24), SIMULATOR_CATALOG);
  const q = query();
  const prices = [155, 160];
  const opts = everyEvent(async (n) => {
    // The last event changes twice while the build waits: before it is made, and after.
    if (n === 3 || n === 6) {
      const p = prices.shift()!;
      await ledger.apply(
        batch(new Date().toISOString(), [
          price(IDS[5]!, { market_id: 1, participant_id: 2002, affiliate_id: 19, price: p }),
        ]),
      );
    }
  });
  const sliced = await envelopeInSlices(cache, b, b, () => b.eventsOfSport(4), q, opts);
  assert.ok(b.head > before);
  assert.equal(sliced.head, b.head);
  const once = envelope(new SnapshotCache(new ByteBudget(1 << 24), SIMULATOR_CATALOG), b.eventsOfSport(4), q, b.head);
  assert.equal(sliced.body.toString(), once.body.toString());
  assert.match(sliced.body.toString(), /"price":160/);
});

test("a delayed view: an event a commit changed during a yield shows the state at the view's head", async () => {
  const { board: b, ledger } = await board();
  // A view that stays at the head the build began at, as a delayed plan's does while it waits.
  const held = b.head;
  const delayed = { ...b, head: held, eventsInWindow: () => [] } as unknown as typeof b;
  const snapshot = envelope(
    new SnapshotCache(new ByteBudget(1 << 24), SIMULATOR_CATALOG),
    b.eventsOfSport(4),
    query(),
    held,
  ).body.toString();
  const copies = new Map(b.eventsOfSport(4).map((e) => [e.info.event_id, copyOf(e)]));
  let committed = false;
  const opts = everyEvent(async (n) => {
    if (n !== 2) return;
    await ledger.apply(
      batch(new Date().toISOString(), [
        price(IDS[4]!, { market_id: 1, participant_id: 2002, affiliate_id: 19, price: 190 }),
      ]),
    );
    committed = true;
  });
  // Before the commit the view shows the live objects; after it, a copy of each as it was at `held`.
  const inWindow = () => b.eventsOfSport(4).map((e) => (committed ? copies.get(e.info.event_id)! : e));
  const sliced = await envelopeInSlices(
    new SnapshotCache(new ByteBudget(1 << 24), SIMULATOR_CATALOG),
    b,
    delayed,
    inWindow,
    query(),
    opts,
  );
  assert.equal(sliced.head, held);
  assert.equal(sliced.body.toString(), snapshot);
  assert.doesNotMatch(sliced.body.toString(), /"price":190/);
});

test('the body is the meta and each kept event view joined by commas, in UTF-8, those left out skipped', async () => {
  const b = new Board();
  const ledger = await Ledger.open(new MemoryStore(), b, new MemoryBus());
  const names = ['São Paulo', 'Zürich 🏒', 'Plain'];
  const updates = IDS.slice(0, 3).flatMap((id, i) => {
    const ev = nbaEvent(id);
    ev.teams[0]!.name = names[i]!;
    return [{ kind: 'event' as const, event: ev }, ...(i === 1 ? [] : nbaPrices(id))];
  });
  await ledger.apply(batch(new Date().toISOString(), updates));
  const cache = new SnapshotCache(new ByteBudget(1 << 24), SIMULATOR_CATALOG);
  const events = b.eventsOfSport(4);
  for (const hide of [false, true]) {
    const q = parseEventQuery(
      { hide_no_markets: String(hide) },
      4,
      scopeOf(undefined, SIMULATOR_CATALOG),
      SIMULATOR_CATALOG,
    );
    const views = events.map((e) => cache.event(e, q.filter, q.filterKey)).filter((v) => !hide || v.marketCount > 0);
    const body = envelope(cache, events, q, b.head).body;
    assert.equal(
      body.toString('utf8'),
      `{"meta":{"delta_last_id":"${b.head}"},"events":[${views.map((v) => v.body.toString('utf8')).join(',')}]}`,
    );
    assert.equal(JSON.parse(body.toString('utf8')).events.length, hide ? 2 : 3);
  }
  assert.equal(envelope(cache, [], query(), 7).body.toString(), '{"meta":{"delta_last_id":"7"},"events":[]}');
});
