import type { AdminTokenRecord, AdminTokenStore } from '../admin-tokens.ts';
import type { SqliteDatabase } from './database.ts';

export class SqliteAdminTokenStore implements AdminTokenStore {
  constructor(private readonly db: SqliteDatabase) {}

  async insert(r: AdminTokenRecord): Promise<void> {
    this.db
      .prepare(
        `INSERT INTO admin_tokens (token_hash, token_prefix, label, created_at, revoked_at)
         VALUES (@token_hash, @token_prefix, @label, @created_at, @revoked_at)`,
      )
      .run(r);
  }

  async findByHash(hash: string): Promise<AdminTokenRecord | undefined> {
    return this.db.prepare('SELECT * FROM admin_tokens WHERE token_hash = ?').get(hash) as AdminTokenRecord | undefined;
  }

  async list(): Promise<AdminTokenRecord[]> {
    return this.db.prepare('SELECT * FROM admin_tokens ORDER BY created_at, rowid').all() as AdminTokenRecord[];
  }

  async revoke(match: { hash?: string; prefix?: string }, at: string): Promise<number> {
    const column = match.hash ? 'token_hash' : 'token_prefix';
    return this.db
      .prepare(`UPDATE admin_tokens SET revoked_at = ? WHERE ${column} = ? AND revoked_at IS NULL`)
      .run(at, match.hash ?? match.prefix).changes;
  }
}
