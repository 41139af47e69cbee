import type { KeyRecord, KeyStore } from '../keys.ts';
import type { SqliteDatabase } from './database.ts';

export class SqliteKeyStore implements KeyStore {
  private readonly byHash;

  constructor(private readonly db: SqliteDatabase) {
    this.byHash = db.prepare('SELECT * FROM api_keys WHERE key_hash = ?');
  }

  async insert(r: KeyRecord): Promise<void> {
    this.db
      .prepare(
        `INSERT INTO api_keys (key_hash, key_prefix, tier, label, created_at, revoked_at, expires_at, billing,
           budget_cap_usd, v1, v2, credits, credits_expiry, custom)
         VALUES (@key_hash, @key_prefix, @tier, @label, @created_at, @revoked_at, @expires_at, @billing,
           @budget_cap_usd, @v1, @v2, @credits, @credits_expiry, @custom)`,
      )
      .run(r);
  }

  async findByHash(hash: string): Promise<KeyRecord | undefined> {
    return this.byHash.get(hash) as KeyRecord | undefined;
  }

  async list(): Promise<KeyRecord[]> {
    return this.db.prepare('SELECT * FROM api_keys ORDER BY created_at').all() as KeyRecord[];
  }

  async revoke(match: { hash?: string; prefix?: string }, at: string): Promise<number> {
    const sql = match.hash
      ? 'UPDATE api_keys SET revoked_at = ? WHERE key_hash = ? AND revoked_at IS NULL'
      : 'UPDATE api_keys SET revoked_at = ? WHERE key_prefix = ? AND revoked_at IS NULL';
    return this.db.prepare(sql).run(at, match.hash ?? match.prefix).changes;
  }

  async count(): Promise<number> {
    return (
      this.db.prepare('SELECT count(*) AS n FROM api_keys').get() as {
        n: number;
      }
    ).n;
  }
}
