import type { AdminTokenRecord, AdminTokenStore } from '../admin-tokens.ts';
import type { KeyRecord, KeyStore } from '../keys.ts';
import { ADMIN_TOKENS, API_KEYS, type SecretRecord, type SecretTable } from '../secret-tables.ts';
import { type SecretSql, secretSql, secretValues } from '../sql/secrets.ts';
import type { PgPool } from './database.ts';

/**
 * Hashed secrets in PostgreSQL, listed by `order` (an ORDER BY list): every node reads the same
 * table, the CLI writes it.
 */
export class PgSecretStore<R extends SecretRecord> {
  private readonly sql: SecretSql;

  constructor(
    private readonly pool: PgPool,
    private readonly table: SecretTable<R>,
    order: string,
  ) {
    this.sql = secretSql(table, order);
  }

  async insert(r: R): Promise<void> {
    await this.pool.query(this.sql.insert.postgres, secretValues(this.table, r));
  }

  async findByHash(hash: string): Promise<R | undefined> {
    return (await this.pool.query<R>(this.sql.byHash.postgres, [hash])).rows[0];
  }

  async list(): Promise<R[]> {
    return (await this.pool.query<R>(this.sql.list.postgres)).rows;
  }

  async revoke(match: { hash?: string; prefix?: string }, at: string): Promise<number> {
    const revoke = match.hash ? this.sql.revokeByHash : this.sql.revokeByPrefix;
    return (await this.pool.query(revoke.postgres, [at, match.hash ?? match.prefix])).rowCount ?? 0;
  }

  async activeByPrefix(prefix: string): Promise<R[]> {
    return (await this.pool.query<R>(this.sql.activeByPrefix.postgres, [prefix])).rows;
  }

  async count(): Promise<number> {
    return (await this.pool.query<{ n: number }>(this.sql.count.postgres)).rows[0]!.n;
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
