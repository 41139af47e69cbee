export interface TrustedReadsOptions<V> {
  /** The value a presented secret has now in the store; undefined when it has none (unknown, revoked). */
  read: (secret: string) => Promise<V | undefined>;
  /** How long a value is trusted, from the moment the store was asked. */
  ttlMs: number;
  now: () => number;
  /** Entries held at most; past it the cache starts again. */
  maxEntries: number;
  /** While the store does not answer, a secret read before keeps its last value. */
  keepOnError: boolean;
}

/**
 * Values of presented secrets (API keys, admin tokens) read from a store and trusted for `ttlMs`
 * from the moment the store was asked, so a secret created or revoked by another process takes
 * effect within `ttlMs` while the hot path stays off the store. A secret in use is read again in the
 * last quarter of its time, in the background, and requests that find no entry while its read runs
 * share that read: a busy secret's entry never lapses, so its requests never wait on the store. Only
 * found values are kept: a secret created a moment ago works at once, and guesses cannot grow it.
 */
export class TrustedReads<V> {
  private readonly cache = new Map<string, { value: V; until: number }>();
  /** Reads of the store under way, by presented secret. */
  private readonly reading = new Map<string, Promise<V | undefined>>();

  constructor(private readonly o: TrustedReadsOptions<V>) {}

  /** The secret's value while it is trusted, without a read of the store; else undefined. */
  cached(secret: string): V | undefined {
    // Keyed by the presented secret, so a hit costs no hashing.
    const hit = this.cache.get(secret);
    if (!hit) return undefined;
    const left = hit.until - this.o.now();
    if (left <= 0) return undefined;
    if (left < this.o.ttlMs / 4 && !this.reading.has(secret)) void this.read(secret).catch(() => undefined);
    return hit.value;
  }

  /** The secret's value: the trusted one, else the read under way, else a new read. */
  get(secret: string): Promise<V | undefined> {
    const hit = this.cached(secret);
    return hit !== undefined ? Promise.resolve(hit) : (this.reading.get(secret) ?? this.read(secret));
  }

  private read(secret: string): Promise<V | undefined> {
    const read = this.lookUp(secret).finally(() => this.reading.delete(secret));
    this.reading.set(secret, read);
    return read;
  }

  private async lookUp(secret: string): Promise<V | undefined> {
    // A revocation the store did not show yet counts from the ask, not from the answer.
    const asked = this.o.now();
    let value: V | undefined;
    try {
      value = await this.o.read(secret);
    } catch (err) {
      // The store does not answer (PostgreSQL restarting): a node serves what it holds, and a
      // revocation waits for the store.
      const stale = this.o.keepOnError ? this.cache.get(secret) : undefined;
      if (stale) return stale.value;
      throw err;
    }
    if (value === undefined) {
      this.cache.delete(secret);
      return undefined;
    }
    if (this.cache.size >= this.o.maxEntries) this.cache.clear();
    this.cache.set(secret, { value, until: asked + this.o.ttlMs });
    return value;
  }
}
