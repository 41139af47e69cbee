import type { KeyRecord, KeyStore } from '../keys.ts';

/** Keys of a server run without a data directory: lost with the process. Records are copied in and out. */
export class MemoryKeyStore implements KeyStore {
  private readonly keys = new Map<string, KeyRecord>();

  async insert(record: KeyRecord): Promise<void> {
    if (this.keys.has(record.key_hash)) throw new Error(`a key with hash ${record.key_hash} is already kept`);
    this.keys.set(record.key_hash, { ...record });
  }

  async findByHash(hash: string): Promise<KeyRecord | undefined> {
    const found = this.keys.get(hash);
    return found && { ...found };
  }

  /** Oldest first; the sort is stable, so keys created at the same time stay in insertion order. */
  async list(): Promise<KeyRecord[]> {
    return [...this.keys.values()]
      .map((r) => ({ ...r }))
      .sort((a, b) => (a.created_at < b.created_at ? -1 : a.created_at > b.created_at ? 1 : 0));
  }

  async revoke(match: { hash?: string; prefix?: string }, at: string): Promise<number> {
    // Operators revoke a handful of keys by hand: a scan of them all is enough for the prefix.
    const candidates = match.hash
      ? [this.keys.get(match.hash)]
      : [...this.keys.values()].filter((r) => r.key_prefix === match.prefix);
    let revoked = 0;
    for (const r of candidates) {
      if (r === undefined || r.revoked_at !== null) continue;
      r.revoked_at = at;
      revoked++;
    }
    return revoked;
  }

  async count(): Promise<number> {
    return this.keys.size;
  }
}
