import type { KeyRecord, KeyStore } from '../keys.ts';
import type { PgPool } from './database.ts';

const COLUMNS =
  'key_hash, key_prefix, tier, label, created_at, revoked_at, expires_at, billing, budget_cap_usd, v1, v2, credits, credits_expiry, custom';

/** API keys in PostgreSQL: every node reads the same table, the CLI writes it. */
export class PgKeyStore implements KeyStore {
  constructor(private readonly pool: PgPool) {}

  async insert(r: KeyRecord): Promise<void> {
    await this.pool.query(
      `INSERT INTO api_keys (${COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)`,
      [
        r.key_hash,
        r.key_prefix,
        r.tier,
        r.label,
        r.created_at,
        r.revoked_at,
        r.expires_at,
        r.billing,
        r.budget_cap_usd,
        r.v1,
        r.v2,
        r.credits,
        r.credits_expiry,
        r.custom,
      ],
    );
  }

  async findByHash(hash: string): Promise<KeyRecord | undefined> {
    return (await this.pool.query<KeyRecord>(`SELECT ${COLUMNS} FROM api_keys WHERE key_hash = $1`, [hash])).rows[0];
  }

  async list(): Promise<KeyRecord[]> {
    return (await this.pool.query<KeyRecord>(`SELECT ${COLUMNS} FROM api_keys ORDER BY created_at`)).rows;
  }

  async revoke(match: { hash?: string; prefix?: string }, at: string): Promise<number> {
    const column = match.hash ? 'key_hash' : 'key_prefix';
    const done = await this.pool.query(
      `UPDATE api_keys SET revoked_at = $1 WHERE ${column} = $2 AND revoked_at IS NULL`,
      [at, match.hash ?? match.prefix],
    );
    return done.rowCount ?? 0;
  }

  async count(): Promise<number> {
    return (await this.pool.query<{ n: number }>('SELECT count(*) AS n FROM api_keys')).rows[0]!.n;
  }
}
