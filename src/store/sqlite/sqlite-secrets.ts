import type { AdminTokenRecord, AdminTokenStore } from '../admin-tokens.ts';
import type { KeyRecord, KeyStore } from '../keys.ts';
import { ADMIN_TOKENS, API_KEYS, type SecretRecord, type SecretTable } from '../secret-tables.ts';
import type { SqliteDatabase } from './database.ts';

/** Hashed secrets in the store's file, listed by `order` (an ORDER BY list). */
export class SqliteSecretStore<R extends SecretRecord> {
  private readonly byHash;
  private readonly columns: string;

  constructor(
    private readonly db: SqliteDatabase,
    private readonly table: SecretTable<R>,
    private readonly order: string,
  ) {
    this.columns = table.columns.join(', ');
    this.byHash = db.prepare(`SELECT ${this.columns} FROM ${table.name} WHERE ${table.hash} = ?`);
  }

  async insert(r: R): Promise<void> {
    const values = this.table.columns.map((c) => `@${c}`).join(', ');
    this.db.prepare(`INSERT INTO ${this.table.name} (${this.columns}) VALUES (${values})`).run(r);
  }

  async findByHash(hash: string): Promise<R | undefined> {
    return this.byHash.get(hash) as R | undefined;
  }

  async list(): Promise<R[]> {
    return this.db.prepare(`SELECT ${this.columns} FROM ${this.table.name} ORDER BY ${this.order}`).all() as R[];
  }

  async revoke(match: { hash?: string; prefix?: string }, at: string): Promise<number> {
    const column = match.hash ? this.table.hash : this.table.prefix;
    return this.db
      .prepare(`UPDATE ${this.table.name} SET revoked_at = ? WHERE ${column} = ? AND revoked_at IS NULL`)
      .run(at, match.hash ?? match.prefix).changes;
  }

  async count(): Promise<number> {
    return (this.db.prepare(`SELECT count(*) AS n FROM ${this.table.name}`).get() as { n: number }).n;
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
