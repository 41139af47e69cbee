import type { Tier } from '../catalog/tiers.ts';

export type Billing = 'monthly' | 'weekly';

/**
 * The store meta entry that holds the demo key in clear: `oddsbase keys demo` shows it again to
 * whoever can read the data directory, and a loopback-only server's POST /session/demo signs a
 * page in with it (never shown over the API). Every other key is kept only as a hash.
 */
export const DEMO_KEY_CLEAR_META = 'demo_key';

/**
 * A key and the account it opens, as stored: never the key itself, only its hash and a short
 * prefix to recognise it by. One key is one account.
 */
export interface KeyRecord {
  key_hash: string;
  key_prefix: string;
  tier: Tier;
  label: string;
  /** Account creation: on or after 2026-09-07T18:00:00Z the new stats policy applies. */
  created_at: string;
  revoked_at: string | null;
  expires_at: string | null;
  billing: Billing;
  /** Hard cap on overage spend in US dollars per period; null: none. */
  budget_cap_usd: number | null;
  /** Subscriptions: V1 and/or V2 (1 or 0). */
  v1: number;
  v2: number;
  /** Bonus credit points, used after the included points and before overage. */
  credits: number;
  credits_expiry: string | null;
  /** Enterprise: JSON of CustomLimits. */
  custom: string | null;
}

/** Where keys are kept. Contract: test/contract/keys.contract.ts, run against every implementation. */
export interface KeyStore {
  /** Refuses a record whose hash is already kept. */
  insert(record: KeyRecord): Promise<void>;
  findByHash(hash: string): Promise<KeyRecord | undefined>;
  list(): Promise<KeyRecord[]>;
  /**
   * Revokes the active keys whose full key hash, or else whose stored prefix, equals the one given;
   * returns how many were revoked. A key already revoked keeps its first revocation time.
   */
  revoke(hashOrPrefix: { hash?: string; prefix?: string }, at: string): Promise<number>;
  /** The active keys whose stored prefix equals the one given, oldest first. */
  activeByPrefix(prefix: string): Promise<KeyRecord[]>;
  count(): Promise<number>;
}
