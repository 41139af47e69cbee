import assert from 'node:assert/strict';
import { describe, it, type TestContext } from 'node:test';
import { CounterSaver } from '../../src/access/counters/counter-saver.ts';
import type { SavedCounters } from '../../src/access/counters/counters.ts';
import { MemoryCounterStore } from '../../src/store/memory/memory-counter-store.ts';
import type { CounterEntry, CounterStore } from '../../src/store/counters.ts';

export interface CountersFixture {
  /**
   * The counters of the nodes that share them: one for an in-process implementation (the whole
   * process is one node), two for a shared backend (two nodes on one server).
   */
  nodes: SavedCounters[];
  /** Resolves once every increment made so far on any node is in every node's view. */
  settle(): Promise<void>;
  cleanup(): Promise<void>;
}

/** A clock the tests move; near the real time, since a shared backend also expires keys on its own clock. */
export interface TestClock {
  now(): number;
  advance(ms: number): void;
}

function testClock(): TestClock {
  let t = Math.floor(Date.now() / 1000) * 1000 + 1;
  return { now: () => t, advance: (ms) => (t += ms) };
}

const SECOND = 1000;
const byKey = (entries: CounterEntry[]): CounterEntry[] => [...entries].sort((a, b) => (a.key < b.key ? -1 : 1));
const HOUR = 3_600_000;

/**
 * The Counters contract (src/access/counters/counters.ts) and the saved view compose uses
 * (`SavedCounters`): values read on the node that changed them at once, on every node once settled.
 */
export function countersContract(name: string, make: (now: () => number) => Promise<CountersFixture>): void {
  describe(`Counters contract: ${name}`, () => {
    async function fresh(t: TestContext): Promise<CountersFixture & { clock: TestClock }> {
      const clock = testClock();
      const f = await make(clock.now);
      t.after(() => f.cleanup());
      return { ...f, clock };
    }
    const everyNode = (f: CountersFixture, key: string) => f.nodes.map((c) => c.get(key));

    it('a counter never counted reads 0 everywhere', async (t) => {
      const f = await fresh(t);
      await f.settle();
      assert.deepEqual(
        everyNode(f, 'use:none'),
        f.nodes.map(() => 0),
      );
    });

    it('incr returns the running total at once on the node that counts, and get reads it', async (t) => {
      const f = await fresh(t);
      const c = f.nodes[0]!;
      const exp = f.clock.now() + HOUR;
      assert.equal(c.incr('use:a', 1, exp), 1);
      assert.equal(c.incr('use:a', 4, exp), 5);
      assert.equal(c.get('use:a'), 5);
    });

    it("every node's increments add up on every node", async (t) => {
      const f = await fresh(t);
      const exp = f.clock.now() + HOUR;
      f.nodes.forEach((c, i) => c.incr('use:sum', i + 1, exp));
      await f.settle();
      const total = f.nodes.reduce((s, _c, i) => s + i + 1, 0);
      assert.deepEqual(
        everyNode(f, 'use:sum'),
        f.nodes.map(() => total),
      );
      assert.equal(f.nodes.at(-1)!.incr('use:sum', 10, exp), total + 10);
    });

    it('no increment is lost or counted twice when nodes count the same key at once', async (t) => {
      const f = await fresh(t);
      const exp = f.clock.now() + HOUR;
      for (let i = 0; i < 500; i++) {
        for (const c of f.nodes) c.incr('use:race', 1, exp);
        if (i % 50 === 0) await new Promise((r) => setImmediate(r));
      }
      await f.settle();
      assert.deepEqual(
        everyNode(f, 'use:race'),
        f.nodes.map(() => 500 * f.nodes.length),
      );
    });

    it('a counter reads 0 from its expiry on, and counts again from 0', async (t) => {
      const f = await fresh(t);
      const c = f.nodes[0]!;
      c.incr('rps:x', 3, f.clock.now() + SECOND);
      await f.settle();
      f.clock.advance(SECOND - 1);
      assert.deepEqual(
        everyNode(f, 'rps:x'),
        f.nodes.map(() => 3),
      );
      f.clock.advance(1);
      assert.deepEqual(
        everyNode(f, 'rps:x'),
        f.nodes.map(() => 0),
      );
      const last = f.nodes.at(-1)!;
      assert.equal(last.incr('rps:x', 2, f.clock.now() + SECOND), 2);
      await f.settle();
      assert.deepEqual(
        everyNode(f, 'rps:x'),
        f.nodes.map(() => 2),
      );
    });

    it('incr moves the expiry to the one it gives', async (t) => {
      const f = await fresh(t);
      const c = f.nodes[0]!;
      c.incr('use:later', 1, f.clock.now() + SECOND);
      c.incr('use:later', 1, f.clock.now() + 10 * SECOND);
      await f.settle();
      f.clock.advance(5 * SECOND);
      assert.deepEqual(
        everyNode(f, 'use:later'),
        f.nodes.map(() => 2),
      );
    });

    it('set replaces the value on every node; later increments add to it', async (t) => {
      const f = await fresh(t);
      const exp = f.clock.now() + HOUR;
      const [first] = f.nodes;
      const last = f.nodes.at(-1)!;
      first!.incr('use:set', 40, exp);
      await f.settle();
      last.set('use:set', 7, exp);
      assert.equal(last.get('use:set'), 7);
      await f.settle();
      assert.deepEqual(
        everyNode(f, 'use:set'),
        f.nodes.map(() => 7),
      );
      first!.incr('use:set', 1, exp);
      await f.settle();
      assert.deepEqual(
        everyNode(f, 'use:set'),
        f.nodes.map(() => 8),
      );
    });

    it('what takeChanged gives, saved, keeps the values this node made, and nothing twice', async (t) => {
      const f = await fresh(t);
      const c = f.nodes[0]!;
      const store = new MemoryCounterStore();
      const saver = new CounterSaver(c, store, f.clock.now);
      const exp = f.clock.now() + HOUR;
      c.incr('use:k1', 2, exp);
      c.incr('use:k1', 3, exp);
      c.set('use:k2', 9, exp + 1);
      await saver.save();
      await saver.save();
      c.incr('use:k2', 1, exp + 1);
      await saver.save();
      assert.deepEqual(byKey(await store.read('use:', f.clock.now())), [
        { key: 'use:k1', value: 5, expiresAt: exp },
        { key: 'use:k2', value: 10, expiresAt: exp + 1 },
      ]);
      assert.deepEqual(c.takeChanged(), []);
    });

    it("every node saves what it counted: the saved total is every node's increments once", async (t) => {
      const f = await fresh(t);
      const store = new MemoryCounterStore();
      const savers = f.nodes.map((c) => new CounterSaver(c, store, f.clock.now));
      const exp = f.clock.now() + HOUR;
      for (let round = 0; round < 3; round++) {
        f.nodes.forEach((c, i) => c.incr('use:all', i + 1, exp));
        // Saved in turn, before and after the nodes saw each other's increments.
        for (const s of savers) await s.save();
        await f.settle();
        for (const s of [...savers].reverse()) await s.save();
      }
      const total = 3 * f.nodes.reduce((s, _c, i) => s + i + 1, 0);
      assert.deepEqual(await store.read('use:all', f.clock.now()), [{ key: 'use:all', value: total, expiresAt: exp }]);
    });

    it('a failed save loses nothing: its changes go with the next one', async (t) => {
      const f = await fresh(t);
      const c = f.nodes[0]!;
      const store = new MemoryCounterStore();
      let down = true;
      const flaky: CounterStore = {
        load: (now) => store.load(now),
        read: (prefix, now) => store.read(prefix, now),
        save: (entries) => (down ? Promise.reject(new Error('down')) : store.save(entries)),
        add: (entries, now) => (down ? Promise.reject(new Error('down')) : store.add(entries, now)),
      };
      const saver = new CounterSaver(c, flaky, f.clock.now);
      const exp = f.clock.now() + HOUR;
      c.incr('use:kept', 4, exp);
      await assert.rejects(saver.save(), /down/);
      c.incr('use:kept', 1, exp);
      down = false;
      await saver.save();
      assert.deepEqual(await store.read('use:kept', f.clock.now()), [{ key: 'use:kept', value: 5, expiresAt: exp }]);
    });

    it('restored counters read at once, are not changes, and every node counts on from them', async (t) => {
      const f = await fresh(t);
      const c = f.nodes[0]!;
      const exp = f.clock.now() + HOUR;
      c.restore([
        { key: 'use:saved', value: 120, expiresAt: exp },
        { key: 'use:gone', value: 5, expiresAt: f.clock.now() - 1 },
      ]);
      assert.equal(c.get('use:saved'), 120);
      assert.equal(c.get('use:gone'), 0);
      assert.deepEqual(c.takeChanged(), []);
      await f.settle();
      assert.deepEqual(
        everyNode(f, 'use:saved'),
        f.nodes.map(() => 120),
      );
      f.nodes.at(-1)!.incr('use:saved', 1, exp);
      await f.settle();
      assert.deepEqual(
        everyNode(f, 'use:saved'),
        f.nodes.map(() => 121),
      );
    });
  });
}
