import type { AdminTokenRecord, AdminTokenStore } from '../admin-tokens.ts';

/** Admin tokens of a server run without a data directory: lost with the process. Records are copied in and out. */
export class MemoryAdminTokenStore implements AdminTokenStore {
  private readonly tokens = new Map<string, AdminTokenRecord>();

  async insert(record: AdminTokenRecord): Promise<void> {
    if (this.tokens.has(record.token_hash))
      throw new Error(`an admin token with hash ${record.token_hash} is already kept`);
    this.tokens.set(record.token_hash, { ...record });
  }

  async findByHash(hash: string): Promise<AdminTokenRecord | undefined> {
    const found = this.tokens.get(hash);
    return found && { ...found };
  }

  /** The sort is stable: tokens created at the same time stay in insertion order. */
  async list(): Promise<AdminTokenRecord[]> {
    return [...this.tokens.values()]
      .map((r) => ({ ...r }))
      .sort((a, b) => (a.created_at < b.created_at ? -1 : a.created_at > b.created_at ? 1 : 0));
  }

  async revoke(match: { hash?: string; prefix?: string }, at: string): Promise<number> {
    const candidates = match.hash
      ? [this.tokens.get(match.hash)]
      : [...this.tokens.values()].filter((r) => r.token_prefix === match.prefix);
    let revoked = 0;
    for (const r of candidates) {
      if (r === undefined || r.revoked_at !== null) continue;
      r.revoked_at = at;
      revoked++;
    }
    return revoked;
  }
}
