import { createHash, randomBytes } from 'node:crypto';
import type { Tier } from './tiers.ts';

export type Billing = 'monthly' | 'weekly';

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

export interface NewKeyOptions {
  label?: string;
  createdAt?: Date;
  billing?: Billing;
  budgetCapUsd?: number | null;
  v1?: boolean;
  v2?: boolean;
  credits?: number;
  creditsExpiry?: string | null;
  expiresAt?: string | null;
  custom?: string | null;
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
  count(): Promise<number>;
}

const PREFIX_LENGTH = 10;

export function generateKey(): string {
  return `ob_${randomBytes(20).toString('hex')}`;
}

/** Keys carry 160 random bits, so a fast hash is enough: there is nothing to brute-force. */
export function hashKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

export function keyPrefix(key: string): string {
  return key.slice(0, PREFIX_LENGTH);
}

export function newKeyRecord(key: string, tier: Tier, opts: NewKeyOptions = {}): KeyRecord {
  return {
    key_hash: hashKey(key),
    key_prefix: keyPrefix(key),
    tier,
    label: opts.label ?? '',
    created_at: (opts.createdAt ?? new Date()).toISOString(),
    revoked_at: null,
    expires_at: opts.expiresAt ?? null,
    billing: opts.billing ?? 'monthly',
    budget_cap_usd: opts.budgetCapUsd ?? null,
    v1: opts.v1 ? 1 : 0,
    v2: opts.v2 === false ? 0 : 1,
    credits: opts.credits ?? 0,
    credits_expiry: opts.creditsExpiry ?? null,
    custom: opts.custom ?? null,
  };
}
