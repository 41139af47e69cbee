import { BudgetMap, type ByteBudget, MARK_BYTES } from './byte-budget.ts';
import { PLAIN } from './switch.ts';

/**
 * The one notion of freshness every cache of the server shares. A value is kept under a key with
 * the freshness token it was made for (a board head, a view position, an event's version, where the
 * views and the day stood); it is an answer for that key only while the token it was kept with is
 * current for the caller's token, by `===` unless the cache says otherwise. Entries draw from the
 * shared byte budget (least recently used out first, whichever cache holds them), so memory never
 * grows with the variety of keys.
 *
 * Invariant: `get(key, token)` returns only a value that `set(key, t, value)` kept for a `t` that
 * is current for `token`; a user that makes the value again on a miss therefore answers what it
 * would answer with no cache at all. The plain twin keeps nothing, so every answer is made anew.
 */
export interface FreshCache<K, T, V> {
  /** The value kept under `key` if it is current for `token`; counts as a use. */
  get(key: K, token: T): V | undefined;
  /** The value last kept under `key`, current or not, without counting a use (a refill may reuse its parts). */
  last(key: K): V | undefined;
  /** Whether `key` was kept or marked before, at any token. */
  asked(key: K): boolean;
  /**
   * Keeps `value` as made for `token`, charged `bytes` besides the key and the entry; with
   * `fromSecond`, only from the key's second `set`, the first leaving a mark. Returns whether kept.
   */
  set(key: K, token: T, value: V, bytes: number): boolean;
}

export interface FreshOptions<T, V> {
  /**
   * Keep a key's value from its second `set` on, the first leaving a mark of a few bytes: requests
   * that are never asked again (distinct filters, as fast as a rate limit allows) would otherwise
   * fill the budget with entries no one reads and push out the ones polls reuse.
   */
  fromSecond?: boolean;
  /** Whether `value`, kept for `kept`, answers a caller at `now`; `kept === now` by default. */
  current?: (kept: T, now: T, value: V) => boolean;
}

/** The token of values that never go stale: what the key alone determines (a parsed query). */
export const ALWAYS = 0;

/** Which of the twins a cache runs: the trick (`kept`) or no cache at all (`plain`). */
export type Keeping = 'kept' | 'plain';

/** The switch's choice (src/perf/switch.ts): ODDSBASE_PLAIN=1 runs every cache as its plain twin. */
export const KEEPING: Keeping = PLAIN ? 'plain' : 'kept';

interface Slot<T, V> {
  token: T;
  value: V;
}

/** Heap bytes of a Slot besides its token and value. */
const SLOT_BYTES = 32;

const same = <T>(a: T, b: T): boolean => a === b;

/** The trick: values kept per key with their token, in the shared byte budget. */
export class KeptCache<K, T, V> implements FreshCache<K, T, V> {
  private readonly slots: BudgetMap<K, Slot<T, V> | null>;
  private readonly fromSecond: boolean;
  private readonly current: (kept: T, now: T, value: V) => boolean;

  constructor(budget: ByteBudget, opts: FreshOptions<T, V> = {}) {
    this.slots = new BudgetMap(budget);
    this.fromSecond = opts.fromSecond ?? false;
    this.current = opts.current ?? same;
  }

  get(key: K, token: T): V | undefined {
    const slot = this.slots.get(key);
    return slot && this.current(slot.token, token, slot.value) ? slot.value : undefined;
  }

  last(key: K): V | undefined {
    return this.slots.peek(key)?.value;
  }

  asked(key: K): boolean {
    return this.slots.peek(key) !== undefined;
  }

  set(key: K, token: T, value: V, bytes: number): boolean {
    if (this.fromSecond && this.slots.peek(key) === undefined) {
      this.slots.set(key, null, MARK_BYTES);
      return false;
    }
    return this.slots.set(key, { token, value }, SLOT_BYTES + bytes);
  }
}

/**
 * The trick for values made from an object that lives no longer than they are useful to (an
 * event's info, a serialised box, a live event's state): kept in a WeakMap beside their key, so an
 * entry goes with its key and is charged to no budget; nothing can outlive what it was made from.
 * The freshness is KeptCache's: a value answers only while its token is current for the caller's.
 * A cache whose value the key alone determines (the key is never changed, only replaced) keeps it
 * with the token ALWAYS.
 */
export class ObjectKeptCache<K extends object, T, V> implements FreshCache<K, T, V> {
  private readonly slots = new WeakMap<K, Slot<T, V>>();
  private readonly current: (kept: T, now: T, value: V) => boolean;

  constructor(opts: Pick<FreshOptions<T, V>, 'current'> = {}) {
    this.current = opts.current ?? same;
  }

  get(key: K, token: T): V | undefined {
    const slot = this.slots.get(key);
    return slot && this.current(slot.token, token, slot.value) ? slot.value : undefined;
  }

  last(key: K): V | undefined {
    return this.slots.get(key)?.value;
  }

  asked(key: K): boolean {
    return this.slots.has(key);
  }

  set(key: K, token: T, value: V): boolean {
    this.slots.set(key, { token, value });
    return true;
  }

  /** Lets go of what `key` holds before the key itself goes (a value no caller will ask for again). */
  drop(key: K): void {
    this.slots.delete(key);
  }
}

/** The plain twin: keeps nothing, so every caller makes its answer anew. */
export class PlainCache<K, T, V> implements FreshCache<K, T, V> {
  get(): V | undefined {
    return undefined;
  }

  last(): V | undefined {
    return undefined;
  }

  asked(): boolean {
    return false;
  }

  set(): boolean {
    return false;
  }

  drop(): void {}
}

/** A cache as `keeping` says (the switch's choice by default). */
export function freshCache<K, T, V>(
  budget: ByteBudget,
  opts: FreshOptions<T, V> = {},
  keeping: Keeping = KEEPING,
): FreshCache<K, T, V> {
  return keeping === 'kept' ? new KeptCache<K, T, V>(budget, opts) : new PlainCache<K, T, V>();
}

/** A cache kept beside its key objects (ObjectKeptCache) as `keeping` says (the switch's choice by default). */
export function objectCache<K extends object, T, V>(
  opts: Pick<FreshOptions<T, V>, 'current'> = {},
  keeping: Keeping = KEEPING,
): ObjectKeptCache<K, T, V> | PlainCache<K, T, V> {
  return keeping === 'kept' ? new ObjectKeptCache<K, T, V>(opts) : new PlainCache<K, T, V>();
}

/**
 * `make` as a memo of its key object: what it made for an object is given again for as long as the
 * object lives (an object-kept cache with the token ALWAYS); the plain twin makes it every time.
 */
export function objectMemo<K extends object, V>(make: (key: K) => V, keeping: Keeping = KEEPING): (key: K) => V {
  const cache = objectCache<K, typeof ALWAYS, V>({}, keeping);
  return (key) => {
    let value = cache.get(key, ALWAYS);
    if (value === undefined) {
      value = make(key);
      cache.set(key, ALWAYS, value);
    }
    return value;
  };
}
