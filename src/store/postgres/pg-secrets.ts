import type { AdminTokenRecord, AdminTokenStore } from '../admin-tokens.ts';
import type { KeyRecord, KeyStore } from '../keys.ts';
import { ADMIN_TOKENS, API_KEYS, type SecretRecord, type SecretTable } from '../secret-tables.ts';
import type { PgPool } from './database.ts';

/**
 * Hashed secrets in PostgreSQL, listed by `order` (an ORDER BY list): every node reads the same
 * table, the CLI writes it.
 */
export class PgSecretStore<R extends SecretRecord> {
  private readonly columns: string;

  constructor(
    private readonly pool: PgPool,
    private readonly table: SecretTable<R>,
    private readonly order: string,
  ) {
    this.columns = table.columns.join(', ');
  }

  async insert(r: R): Promise<void> {
    const values = this.table.columns.map((_, i) => `$${i + 1}`).join(', ');
    await this.pool.query(
      `INSERT INTO ${this.table.name} (${this.columns}) VALUES (${values})`,
      this.table.columns.map((c) => r[c]),
    );
  }

  async findByHash(hash: string): Promise<R | undefined> {
    const sql = `SELECT ${this.columns} FROM ${this.table.name} WHERE ${this.table.hash} = $1`;
    return (await this.pool.query<R>(sql, [hash])).rows[0];
  }

  async list(): Promise<R[]> {
    return (await this.pool.query<R>(`SELECT ${this.columns} FROM ${this.table.name} ORDER BY ${this.order}`)).rows;
  }

  async revoke(match: { hash?: string; prefix?: string }, at: string): Promise<number> {
    const column = match.hash ? this.table.hash : this.table.prefix;
    const done = await this.pool.query(
      `UPDATE ${this.table.name} SET revoked_at = $1 WHERE ${column} = $2 AND revoked_at IS NULL`,
      [at, match.hash ?? match.prefix],
    );
    return done.rowCount ?? 0;
  }

  async count(): Promise<number> {
    return (await this.pool.query<{ n: number }>(`SELECT count(*) AS n FROM ${this.table.name}`)).rows[0]!.n;
  }
}

export class PgKeyStore extends PgSecretStore<KeyRecord> implements KeyStore {
  constructor(pool: PgPool) {
    super(pool, API_KEYS, 'created_at');
  }
}

export class PgAdminTokenStore extends PgSecretStore<AdminTokenRecord> implements AdminTokenStore {
  constructor(pool: PgPool) {
    super(pool, ADMIN_TOKENS, 'created_at, seq');
  }
}
