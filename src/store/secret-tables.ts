import type { AdminTokenRecord } from './admin-tokens.ts';
import type { KeyRecord } from './keys.ts';
import { fieldsOf } from './sql/row-codec.ts';

/** What every store of hashed secrets reads of a record. */
export interface SecretRecord {
  created_at: string;
  revoked_at: string | null;
}

/**
 * A table of hashed secrets (API keys, admin tokens) as every backend keeps it: its name, its
 * columns (the record's fields, one each), and the columns a secret is found and revoked by.
 */
export interface SecretTable<R extends SecretRecord> {
  name: string;
  /** What one record is called in the error that refuses a hash already kept. */
  noun: string;
  columns: readonly (keyof R & string)[];
  hash: keyof R & string;
  prefix: keyof R & string;
}

export const API_KEYS: SecretTable<KeyRecord> = {
  name: 'api_keys',
  noun: 'a key',
  columns: fieldsOf<KeyRecord>({
    key_hash: true,
    key_prefix: true,
    tier: true,
    label: true,
    created_at: true,
    revoked_at: true,
    expires_at: true,
    billing: true,
    budget_cap_usd: true,
    v1: true,
    v2: true,
    credits: true,
    credits_expiry: true,
    custom: true,
  }),
  hash: 'key_hash',
  prefix: 'key_prefix',
};

export const ADMIN_TOKENS: SecretTable<AdminTokenRecord> = {
  name: 'admin_tokens',
  noun: 'an admin token',
  columns: fieldsOf<AdminTokenRecord>({
    token_hash: true,
    token_prefix: true,
    label: true,
    created_at: true,
    revoked_at: true,
  }),
  hash: 'token_hash',
  prefix: 'token_prefix',
};
