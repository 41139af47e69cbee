/**
 * One memory budget for every cache of the HTTP layer (house rule 12). Each entry is charged its
 * estimated bytes; when a new entry would take the total past the limit, the least recently used
 * entries go first, whichever cache holds them. A hit moves its entry to the front in O(1), so hot
 * entries stay while a flood of one-off requests cycles through the cold end, and the total never
 * grows with the variety of requests.
 */
export class ByteBudget {
  private used = 0;
  private count = 0;
  private evicted = 0;
  /** Most recently used entry; `older` links lead to the least recently used one. */
  private newest: Entry | undefined;
  private oldest: Entry | undefined;
  /** Entries larger than this are not kept: one would push out a large share of the hot ones. */
  readonly maxEntryBytes: number;

  constructor(readonly limit: number) {
    this.maxEntryBytes = Math.floor(limit / 8);
  }

  /** Bytes charged now, entries kept, and entries evicted so far to make room. */
  stats(): { bytes: number; entries: number; evictions: number; limit: number } {
    return { bytes: this.used, entries: this.count, evictions: this.evicted, limit: this.limit };
  }

  /** Links a new entry at the front, after evicting the oldest entries until it fits. */
  add(e: Entry): void {
    while (this.used + e.bytes > this.limit && this.oldest) {
      const victim = this.oldest;
      this.unlink(victim);
      victim.map.delete(victim.key);
      this.evicted++;
    }
    e.older = this.newest;
    if (this.newest) this.newest.newer = e;
    else this.oldest = e;
    this.newest = e;
    this.used += e.bytes;
    this.count++;
  }

  /** Marks an entry as just used. */
  touch(e: Entry): void {
    if (e === this.newest) return;
    // Not the newest, so it has a newer neighbour.
    e.newer!.older = e.older;
    if (e.older) e.older.newer = e.newer;
    else this.oldest = e.newer;
    e.newer = undefined;
    e.older = this.newest;
    this.newest!.newer = e;
    this.newest = e;
  }

  /** Unlinks an entry its cache dropped by itself (replaced or deleted). */
  remove(e: Entry): void {
    this.unlink(e);
  }

  private unlink(e: Entry): void {
    if (e.newer) e.newer.older = e.older;
    else this.newest = e.older;
    if (e.older) e.older.newer = e.newer;
    else this.oldest = e.newer;
    e.newer = e.older = undefined;
    this.used -= e.bytes;
    this.count--;
  }
}

/** An entry as the budget sees it: its bytes, its place in the recency list, and where it is kept. */
interface Entry {
  bytes: number;
  newer: Entry | undefined;
  older: Entry | undefined;
  map: { delete(key: unknown): boolean };
  key: unknown;
}

interface Node<K, V> extends Entry {
  key: K;
  value: V;
}

/**
 * Heap bytes of one BudgetMap entry beyond its key and value: the node and its slot in the Map's
 * hash table, measured at 109 on Node 20 x64, plus room for the table's spare capacity.
 * test/unit/byte-budget.test.ts checks every cache's estimates against the heap.
 */
export const ENTRY_BYTES = 128;

/**
 * Heap bytes of a mark: that a key was asked once, kept in place of what it would keep. The caches
 * keep an entry from the second time its key is asked: one-off requests (distinct filters, as fast
 * as a rate limit allows) would otherwise fill the shared budget with entries no one asks for again
 * and push out the ones polls reuse.
 */
export const MARK_BYTES = 64;

/**
 * Heap bytes of a string: a 16-byte header and one byte a character, two if any is above U+00FF.
 * Strings built piece by piece (serialiser output) are ropes that take about five times that
 * (measured: 15.7 kB for a 3.2 kB event view) until V8 flattens them; the regular expression
 * below reads the string and so flattens it, which makes a kept string cost what it is charged.
 */
export function stringBytes(s: string): number {
  // V8 answers at once for strings stored one byte a character; it scans only the others.
  return 16 + (TWO_BYTE.test(s) ? 2 * s.length : s.length);
}
const TWO_BYTE = /[\u0100-\uffff]/;

/**
 * A Map from keys to values whose entries are charged to a shared ByteBudget: `set` says what a
 * value costs, and the budget may evict any entry at any time to make room for another cache's.
 * `get` counts as a use.
 */
export class BudgetMap<K, V> {
  private readonly map = new Map<K, Node<K, V>>();

  constructor(private readonly budget: ByteBudget) {}

  get size(): number {
    return this.map.size;
  }

  get(key: K): V | undefined {
    const node = this.map.get(key);
    if (node === undefined) return undefined;
    this.budget.touch(node);
    return node.value;
  }

  /** The value under `key` without counting a use. */
  peek(key: K): V | undefined {
    return this.map.get(key)?.value;
  }

  /**
   * Keeps `value` under `key`, charged `valueBytes` plus the key's and the entry's own bytes;
   * returns false (and keeps nothing) when the entry is too large for the budget to hold.
   */
  set(key: K, value: V, valueBytes: number): boolean {
    this.delete(key);
    const bytes = valueBytes + ENTRY_BYTES + (typeof key === 'string' ? stringBytes(key) : 0);
    if (bytes > this.budget.maxEntryBytes) return false;
    const node: Node<K, V> = { key, value, bytes, newer: undefined, older: undefined, map: this.map };
    this.map.set(key, node);
    this.budget.add(node);
    return true;
  }

  delete(key: K): boolean {
    const node = this.map.get(key);
    if (node === undefined) return false;
    this.map.delete(key);
    this.budget.remove(node);
    return true;
  }
}
