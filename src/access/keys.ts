import { createHash, randomBytes } from 'node:crypto';
import type { Tier } from '../catalog/tiers.ts';
import type { Billing, KeyRecord } from '../store/keys.ts';

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
