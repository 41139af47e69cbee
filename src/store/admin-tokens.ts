/**
 * An admin token as stored: its hash and a short prefix to recognise it by, never the token.
 * Admin tokens open the feed's admin routes (POST /admin/v1/ingest) and nothing else; they are
 * kept apart from API keys, so neither is ever taken for the other.
 */
export interface AdminTokenRecord {
  token_hash: string;
  token_prefix: string;
  label: string;
  created_at: string;
  revoked_at: string | null;
}

/** Where admin tokens are kept. Contract: test/contract/admin-tokens.contract.ts, run against every implementation. */
export interface AdminTokenStore {
  /** Refuses a record whose hash is already kept. */
  insert(record: AdminTokenRecord): Promise<void>;
  findByHash(hash: string): Promise<AdminTokenRecord | undefined>;
  /** Oldest first. */
  list(): Promise<AdminTokenRecord[]>;
  /**
   * Revokes the active tokens whose hash, or else whose stored prefix, equals the one given; returns
   * how many were revoked. A token already revoked keeps its first revocation time.
   */
  revoke(hashOrPrefix: { hash?: string; prefix?: string }, at: string): Promise<number>;
  /** The active tokens whose stored prefix equals the one given, oldest first. */
  activeByPrefix(prefix: string): Promise<AdminTokenRecord[]>;
}
