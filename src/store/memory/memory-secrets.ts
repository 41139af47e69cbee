import type { AdminTokenRecord, AdminTokenStore } from '../admin-tokens.ts';
import type { KeyRecord, KeyStore } from '../keys.ts';
import { ADMIN_TOKENS, API_KEYS, type SecretRecord, type SecretTable } from '../secret-tables.ts';

/**
 * Hashed secrets of a server run without a data directory: lost with the process. Records are
 * copied in and out.
 */
export class MemorySecretStore<R extends SecretRecord> {
  private readonly records = new Map<string, R>();

  constructor(private readonly table: SecretTable<R>) {}

  async insert(record: R): Promise<void> {
    const hash = String(record[this.table.hash]);
    if (this.records.has(hash)) throw new Error(`${this.table.noun} with hash ${hash} is already kept`);
    this.records.set(hash, { ...record });
  }

  async findByHash(hash: string): Promise<R | undefined> {
    const found = this.records.get(hash);
    return found && { ...found };
  }

  /** Oldest first; the sort is stable, so records created at the same time stay in insertion order. */
  async list(): Promise<R[]> {
    return [...this.records.values()]
      .map((r) => ({ ...r }))
      .sort((a, b) => (a.created_at < b.created_at ? -1 : a.created_at > b.created_at ? 1 : 0));
  }

  async revoke(match: { hash?: string; prefix?: string }, at: string): Promise<number> {
    // Operators revoke a handful of secrets by hand: a scan of them all is enough for the prefix.
    const candidates = match.hash
      ? [this.records.get(match.hash)]
      : [...this.records.values()].filter((r) => r[this.table.prefix] === match.prefix);
    let revoked = 0;
    for (const r of candidates) {
      if (r === undefined || r.revoked_at !== null) continue;
      r.revoked_at = at;
      revoked++;
    }
    return revoked;
  }

  async activeByPrefix(prefix: string): Promise<R[]> {
    return (await this.list()).filter((r) => r[this.table.prefix] === prefix && r.revoked_at === null);
  }

  async count(): Promise<number> {
    return this.records.size;
  }
}

export class MemoryKeyStore extends MemorySecretStore<KeyRecord> implements KeyStore {
  constructor() {
    super(API_KEYS);
  }
}

export class MemoryAdminTokenStore extends MemorySecretStore<AdminTokenRecord> implements AdminTokenStore {
  constructor() {
    super(ADMIN_TOKENS);
  }
}
