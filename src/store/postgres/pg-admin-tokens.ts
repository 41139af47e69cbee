import type { AdminTokenRecord, AdminTokenStore } from '../admin-tokens.ts';
import type { PgPool } from './database.ts';

const COLUMNS = 'token_hash, token_prefix, label, created_at, revoked_at';

/** Admin tokens in PostgreSQL: every node reads the same table, the CLI writes it. */
export class PgAdminTokenStore implements AdminTokenStore {
  constructor(private readonly pool: PgPool) {}

  async insert(r: AdminTokenRecord): Promise<void> {
    await this.pool.query(`INSERT INTO admin_tokens (${COLUMNS}) VALUES ($1, $2, $3, $4, $5)`, [
      r.token_hash,
      r.token_prefix,
      r.label,
      r.created_at,
      r.revoked_at,
    ]);
  }

  async findByHash(hash: string): Promise<AdminTokenRecord | undefined> {
    return (
      await this.pool.query<AdminTokenRecord>(`SELECT ${COLUMNS} FROM admin_tokens WHERE token_hash = $1`, [hash])
    ).rows[0];
  }

  async list(): Promise<AdminTokenRecord[]> {
    return (await this.pool.query<AdminTokenRecord>(`SELECT ${COLUMNS} FROM admin_tokens ORDER BY created_at, seq`))
      .rows;
  }

  async revoke(match: { hash?: string; prefix?: string }, at: string): Promise<number> {
    const column = match.hash ? 'token_hash' : 'token_prefix';
    const done = await this.pool.query(
      `UPDATE admin_tokens SET revoked_at = $1 WHERE ${column} = $2 AND revoked_at IS NULL`,
      [at, match.hash ?? match.prefix],
    );
    return done.rowCount ?? 0;
  }
}
