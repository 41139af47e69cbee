/**
 * A Map for the board's many small collections: a line's prices by book, a participant's lines and
 * main lines, a market's participants. Each holds a few entries, and a board of 1,300 events has
 * about 125,000 of them; a Map's hash table costs about 200 bytes even for two entries (28 MB of a
 * 100 MB heap in a snapshot of such a board). Here keys and values alternate in one array exactly as
 * long as the entries; a lookup scans it, which for a handful of entries is as quick as hashing.
 * Iteration is in insertion order, as a Map's. An insertion or deletion replaces the array (they
 * are rare next to lookups), so an iteration in progress goes on over the entries it started with.
 */
export class SmallMap<K, V> implements Map<K, V> {
  private kv: readonly unknown[] = NONE;

  get size(): number {
    return this.kv.length >> 1;
  }

  get [Symbol.toStringTag](): string {
    return 'SmallMap';
  }

  get(key: K): V | undefined {
    const kv = this.kv;
    for (let i = 0; i < kv.length; i += 2) if (kv[i] === key) return kv[i + 1] as V;
    return undefined;
  }

  has(key: K): boolean {
    return this.indexOf(key) >= 0;
  }

  set(key: K, value: V): this {
    const at = this.indexOf(key);
    if (at >= 0) {
      (this.kv as unknown[])[at + 1] = value;
      return this;
    }
    const kv = this.kv;
    const next = new Array<unknown>(kv.length + 2);
    for (let i = 0; i < kv.length; i++) next[i] = kv[i];
    next[kv.length] = key;
    next[kv.length + 1] = value;
    this.kv = next;
    return this;
  }

  delete(key: K): boolean {
    const at = this.indexOf(key);
    if (at < 0) return false;
    const kv = this.kv;
    if (kv.length === 2) {
      this.kv = NONE;
      return true;
    }
    const next = new Array<unknown>(kv.length - 2);
    for (let i = 0, j = 0; i < kv.length; i += 2) {
      if (i === at) continue;
      next[j++] = kv[i];
      next[j++] = kv[i + 1];
    }
    this.kv = next;
    return true;
  }

  clear(): void {
    this.kv = NONE;
  }

  forEach(fn: (value: V, key: K, map: Map<K, V>) => void, thisArg?: unknown): void {
    const kv = this.kv;
    for (let i = 0; i < kv.length; i += 2) fn.call(thisArg, kv[i + 1] as V, kv[i] as K, this);
  }

  keys(): MapIterator<K> {
    return new Stride<K>(this.kv, 0, false);
  }

  values(): MapIterator<V> {
    return new Stride<V>(this.kv, 1, false);
  }

  entries(): MapIterator<[K, V]> {
    return new Stride<[K, V]>(this.kv, 0, true);
  }

  [Symbol.iterator](): MapIterator<[K, V]> {
    return this.entries();
  }

  private indexOf(key: K): number {
    const kv = this.kv;
    for (let i = 0; i < kv.length; i += 2) if (kv[i] === key) return i;
    return -1;
  }
}

/** Every other element of an entries array from `at` (keys or values), or its pairs. */
class Stride<T> implements MapIterator<T> {
  constructor(
    private readonly kv: readonly unknown[],
    private at: number,
    private readonly pairs: boolean,
  ) {}

  next(): IteratorResult<T, undefined> {
    const i = this.at;
    if (i >= this.kv.length) return { done: true, value: undefined };
    this.at = i + 2;
    return { done: false, value: (this.pairs ? [this.kv[i], this.kv[i + 1]] : this.kv[i]) as T };
  }

  [Symbol.iterator](): MapIterator<T> {
    return this;
  }
}

/** The array of every empty map: never written to, since an insertion makes a new one. */
const NONE: readonly unknown[] = [];
