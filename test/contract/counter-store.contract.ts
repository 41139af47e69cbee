import assert from 'node:assert/strict';
import { describe, it, type TestContext } from 'node:test';
import type { CounterEntry, CounterStore } from '../../src/store/counters.ts';

export interface CounterStoreFixture {
  counters: CounterStore;
  /** The same counters opened again; absent for a store that lives in the process. */
  reopen?: () => Promise<CounterStore>;
  cleanup(): Promise<void>;
}

const NO_REOPEN = 'this counter store lives in the process: there is nothing to reopen';

const NOW = Date.UTC(2026, 10, 23, 18, 0, 0);
const HOUR = 3_600_000;

const entry = (key: string, value: number, expiresAt: number): CounterEntry => ({ key, value, expiresAt });

/** Two keys' usage, one key's rate counter, and one counter that has already expired at NOW. */
const ENTRIES: CounterEntry[] = [
  entry('usage:ob_1111111:2026-11', 120, NOW + 24 * HOUR),
  entry('usage:ob_1111111:2026-11-23', 7, NOW + HOUR),
  entry('usage:ob_2222222:2026-11', 30, NOW + 24 * HOUR),
  entry('rate:ob_1111111:18:00', 3, NOW + 1000),
  entry('usage:ob_1111111:2026-10', 900, NOW - HOUR),
];

const byKey = (entries: CounterEntry[]): CounterEntry[] => [...entries].sort((a, b) => (a.key < b.key ? -1 : 1));
const keysOf = (entries: CounterEntry[]): string[] => byKey(entries).map((e) => e.key);

export function counterStoreContract(name: string, make: () => Promise<CounterStoreFixture>): void {
  describe(`CounterStore contract: ${name}`, () => {
    async function fresh(t: TestContext): Promise<CounterStoreFixture> {
      const f = await make();
      t.after(() => f.cleanup());
      return f;
    }

    async function withEntries(t: TestContext): Promise<CounterStore> {
      const { counters } = await fresh(t);
      await counters.save(ENTRIES);
      return counters;
    }

    it('an empty store loads and reads nothing', async (t) => {
      const { counters } = await fresh(t);
      assert.deepEqual(await counters.load(NOW), []);
      assert.deepEqual(await counters.read('', NOW), []);
    });

    it('loads every counter saved that has not expired', async (t) => {
      const counters = await withEntries(t);
      assert.deepEqual(byKey(await counters.load(NOW)), byKey(ENTRIES.slice(0, 4)));
    });

    it('a counter expires at its expiry time, not after', async (t) => {
      const counters = await withEntries(t);
      assert.deepEqual(keysOf(await counters.load(NOW + 999)), keysOf(ENTRIES.slice(0, 4)));
      assert.deepEqual(keysOf(await counters.load(NOW + 1000)), keysOf(ENTRIES.slice(0, 3)));
    });

    it('a save replaces the value and the expiry kept, a shorter expiry too', async (t) => {
      const counters = await withEntries(t);
      await counters.save([
        entry('usage:ob_1111111:2026-11', 5, NOW + HOUR),
        entry('usage:ob_2222222:2026-11', 31, NOW + 48 * HOUR),
      ]);
      assert.deepEqual(byKey(await counters.read('usage:', NOW)), [
        entry('usage:ob_1111111:2026-11', 5, NOW + HOUR),
        entry('usage:ob_1111111:2026-11-23', 7, NOW + HOUR),
        entry('usage:ob_2222222:2026-11', 31, NOW + 48 * HOUR),
      ]);
      assert.deepEqual(keysOf(await counters.load(NOW + HOUR)), ['usage:ob_2222222:2026-11']);
    });

    it('a save can bring an expired counter back', async (t) => {
      const counters = await withEntries(t);
      await counters.load(NOW);
      await counters.save([entry('usage:ob_1111111:2026-10', 1, NOW + HOUR)]);
      assert.deepEqual(await counters.read('usage:ob_1111111:2026-10', NOW), [
        entry('usage:ob_1111111:2026-10', 1, NOW + HOUR),
      ]);
    });

    it('add adds to the kept value and sets the expiry; a counter not kept starts from 0', async (t) => {
      const counters = await withEntries(t);
      await counters.add(
        [
          entry('usage:ob_1111111:2026-11', 5, NOW + 48 * HOUR),
          entry('usage:ob_3333333:2026-11', 4, NOW + HOUR),
          entry('usage:ob_3333333:2026-11', 2, NOW + 2 * HOUR),
        ],
        NOW,
      );
      assert.deepEqual(byKey(await counters.read('usage:ob_1111111:2026-11', NOW)), [
        entry('usage:ob_1111111:2026-11', 125, NOW + 48 * HOUR),
        entry('usage:ob_1111111:2026-11-23', 7, NOW + HOUR),
      ]);
      assert.deepEqual(await counters.read('usage:ob_3333333:', NOW), [
        entry('usage:ob_3333333:2026-11', 6, NOW + 2 * HOUR),
      ]);
    });

    it('add to a counter expired at its time starts it again from the value added', async (t) => {
      const counters = await withEntries(t);
      await counters.add([entry('rate:ob_1111111:18:00', 2, NOW + 5000)], NOW + 1000);
      await counters.add([entry('usage:ob_1111111:2026-10', 3, NOW + HOUR)], NOW);
      assert.deepEqual(await counters.read('rate:', NOW + 1000), [entry('rate:ob_1111111:18:00', 2, NOW + 5000)]);
      assert.deepEqual(await counters.read('usage:ob_1111111:2026-10', NOW), [
        entry('usage:ob_1111111:2026-10', 3, NOW + HOUR),
      ]);
    });

    it('an empty save changes nothing', async (t) => {
      const counters = await withEntries(t);
      await counters.save([]);
      assert.equal((await counters.load(NOW)).length, 4);
    });

    const key1Usage = ['usage:ob_1111111:2026-11', 'usage:ob_1111111:2026-11-23'];
    const reads: [string, string, number, string[]][] = [
      ['one key’s usage', 'usage:ob_1111111:', NOW, key1Usage],
      ['every usage counter', 'usage:', NOW, [...key1Usage, 'usage:ob_2222222:2026-11']],
      ['every counter', '', NOW, keysOf(ENTRIES.slice(0, 4))],
      ['a whole key is its own prefix', 'usage:ob_1111111:2026-11', NOW, key1Usage],
      ['a prefix longer than every key', 'usage:ob_1111111:2026-11-23:x', NOW, []],
      ['no key with the prefix', 'plays:', NOW, []],
      ['the prefix must start the key', 'ob_1111111', NOW, []],
      ['expired counters are left out, at their expiry exactly', 'rate:', NOW + 1000, []],
      ['a counter not yet expired is in', 'rate:', NOW + 999, ['rate:ob_1111111:18:00']],
    ];
    for (const [title, prefix, now, expected] of reads) {
      it(`read: ${title}`, async (t) => {
        const counters = await withEntries(t);
        assert.deepEqual(keysOf(await counters.read(prefix, now)), expected);
      });
    }

    it('read gives the saved values and expiries', async (t) => {
      const counters = await withEntries(t);
      assert.deepEqual(byKey(await counters.read('usage:ob_2222222:', NOW)), [ENTRIES[2]]);
    });

    it('saved counters are there after reopening', async (t) => {
      const f = await fresh(t);
      if (!f.reopen) return t.skip(NO_REOPEN);
      await f.counters.save(ENTRIES);
      const again = await f.reopen();
      assert.deepEqual(byKey(await again.load(NOW)), byKey(ENTRIES.slice(0, 4)));
    });
  });
}
