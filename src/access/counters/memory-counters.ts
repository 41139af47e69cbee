import type { Counters } from './counters.ts';

/** The embedded counters: a Map with expiry times, swept now and then so it cannot grow without end. */
export class MemoryCounters implements Counters {
  private readonly values = new Map<string, { value: number; expiresAt: number }>();
  private readonly dirty = new Set<string>();
  private lastSweep = 0;

  constructor(private readonly now: () => number = Date.now) {}

  async incr(key: string, by: number, expiresAtMs: number): Promise<number> {
    return this.incrSync(key, by, expiresAtMs);
  }

  /** Synchronous form for callers that need no await on the hot path. */
  incrSync(key: string, by: number, expiresAtMs: number): number {
    const t = this.now();
    this.sweep(t);
    const cur = this.values.get(key);
    const value = (cur && cur.expiresAt > t ? cur.value : 0) + by;
    this.values.set(key, { value, expiresAt: expiresAtMs });
    this.dirty.add(key);
    return value;
  }

  async get(key: string): Promise<number> {
    return this.getSync(key);
  }

  getSync(key: string): number {
    const cur = this.values.get(key);
    return cur && cur.expiresAt > this.now() ? cur.value : 0;
  }

  async set(key: string, value: number, expiresAtMs: number): Promise<void> {
    this.values.set(key, { value, expiresAt: expiresAtMs });
    this.dirty.add(key);
  }

  /** Loads saved counters (at start); they do not count as changed. */
  restore(entries: Iterable<{ key: string; value: number; expiresAt: number }>): void {
    for (const e of entries) this.values.set(e.key, { value: e.value, expiresAt: e.expiresAt });
  }

  /** Counters changed since the last call whose key passes `keep`, for saving elsewhere. */
  takeChanged(keep: (key: string) => boolean): { key: string; value: number; expiresAt: number }[] {
    const out = [];
    for (const key of this.dirty) {
      const v = this.values.get(key);
      if (v && keep(key)) out.push({ key, value: v.value, expiresAt: v.expiresAt });
    }
    this.dirty.clear();
    return out;
  }

  async close(): Promise<void> {
    this.values.clear();
  }

  private sweep(t: number): void {
    if (t - this.lastSweep < 60_000) return;
    this.lastSweep = t;
    for (const [k, v] of this.values) if (v.expiresAt <= t) this.values.delete(k);
  }
}
