import type { AdminTokenRecord, AdminTokenStore } from '../admin-tokens.ts';
import type { KeyRecord, KeyStore } from '../keys.ts';
import { ADMIN_TOKENS, API_KEYS, type SecretRecord, type SecretTable } from '../secret-tables.ts';
import { type SecretSql, secretSql, secretValues } from '../sql/secrets.ts';
import type { SqliteDatabase } from './database.ts';

/** Hashed secrets in the store's file, listed by `order` (an ORDER BY list). */
export class SqliteSecretStore<R extends SecretRecord> {
  private readonly byHash;
  private readonly sql: SecretSql;

  constructor(
    private readonly db: SqliteDatabase,
    private readonly table: SecretTable<R>,
    order: string,
  ) {
    this.sql = secretSql(table, order);
    this.byHash = db.prepare(this.sql.byHash.sqlite);
  }

  async insert(r: R): Promise<void> {
    this.db.prepare(this.sql.insert.sqlite).run(...secretValues(this.table, r));
  }

  async findByHash(hash: string): Promise<R | undefined> {
    return this.byHash.get(hash) as R | undefined;
  }

  async list(): Promise<R[]> {
    return this.db.prepare(this.sql.list.sqlite).all() as R[];
  }

  async revoke(match: { hash?: string; prefix?: string }, at: string): Promise<number> {
    const revoke = match.hash ? this.sql.revokeByHash : this.sql.revokeByPrefix;
    return this.db.prepare(revoke.sqlite).run(at, match.hash ?? match.prefix).changes;
  }

  async activeByPrefix(prefix: string): Promise<R[]> {
    return this.db.prepare(this.sql.activeByPrefix.sqlite).all(prefix) as R[];
  }

  async count(): Promise<number> {
    return (this.db.prepare(this.sql.count.sqlite).get() as { n: number }).n;
  }
}

export class SqliteKeyStore extends SqliteSecretStore<KeyRecord> implements KeyStore {
  constructor(db: SqliteDatabase) {
    super(db, API_KEYS, 'created_at');
  }
}

export class SqliteAdminTokenStore extends SqliteSecretStore<AdminTokenRecord> implements AdminTokenStore {
  constructor(db: SqliteDatabase) {
    super(db, ADMIN_TOKENS, 'created_at, rowid');
  }
}
