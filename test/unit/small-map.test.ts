import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SmallMap } from '../../src/board/small-map.ts';

test('a SmallMap answers as a Map does over a random run of sets, deletes and clears', () => {
  let seed = 7;
  const rand = (n: number) => {
    seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
    return seed % n;
  };
  const small = new SmallMap<number, string>();
  const map = new Map<number, string>();
  for (let step = 0; step < 5_000; step++) {
    const key = rand(12);
    const op = rand(10);
    if (op < 5) {
      assert.equal(small.set(key, `v${step}`), small);
      map.set(key, `v${step}`);
    } else if (op < 9) assert.equal(small.delete(key), map.delete(key));
    else if (rand(20) === 0) {
      small.clear();
      map.clear();
    }
    assert.equal(small.size, map.size);
    assert.equal(small.get(key), map.get(key));
    assert.equal(small.has(key), map.has(key));
    // Insertion order, as a Map keeps it (a set of a present key keeps its place).
    assert.deepEqual([...small], [...map]);
    assert.deepEqual([...small.keys()], [...map.keys()]);
    assert.deepEqual([...small.values()], [...map.values()]);
  }
  const seen: [number, string][] = [];
  small.forEach((v, k, m) => {
    assert.equal(m, small);
    seen.push([k, v]);
  });
  assert.deepEqual(seen, [...map.entries()]);
});

test('an iteration goes on over the entries it started with while the map changes', () => {
  const m = new SmallMap<string, number>();
  m.set('a', 1).set('b', 2).set('c', 3);
  const seen: string[] = [];
  for (const [k] of m) {
    seen.push(k);
    if (k === 'a') {
      m.delete('b');
      m.set('d', 4);
    }
  }
  assert.deepEqual(seen, ['a', 'b', 'c']);
  assert.deepEqual([...m.keys()], ['a', 'c', 'd']);
});
