import { type CustomLimits, type Entitlements, entitlementsFor } from './entitlements.ts';
import { hashKey } from './keys.ts';
import { TrustedReads } from './trusted-reads.ts';
import type { Billing, KeyRecord, KeyStore } from '../store/keys.ts';
import { followsNewStatsPolicy } from './stats-policy.ts';
import { isTier, type Tier } from '../catalog/tiers.ts';

/** An authenticated caller: the account behind a key and what its plan allows. */
export interface Account {
  keyHash: string;
  keyPrefix: string;
  /** As the key record stores it: a known plan unless `unservable` says otherwise. */
  tier: Tier;
  /**
   * Why the key's record cannot be served, when it cannot: it names a plan this server does not
   * know (a record written by another version, or edited by hand), or a weekly billing period
   * without the creation date the weeks count from. Access refuses such a key on every keyed route
   * with a 503; its entitlements are Free's so that nothing reads a plan it does not have.
   */
  unservable: 'unknown_plan' | 'undated_weekly' | undefined;
  entitlements: Entitlements;
  billing: Billing;
  createdMs: number;
  newStatsPolicy: boolean;
  budgetCapUsd: number | null;
  v1: boolean;
  v2: boolean;
  credits: number;
  creditsExpiryMs: number | null;
}

export function accountOf(r: KeyRecord): Account {
  const createdMs = Date.parse(r.created_at);
  const planKnown = isTier(r.tier);
  return {
    keyHash: r.key_hash,
    keyPrefix: r.key_prefix,
    tier: r.tier,
    unservable: !planKnown
      ? 'unknown_plan'
      : r.billing === 'weekly' && !Number.isFinite(createdMs)
        ? 'undated_weekly'
        : undefined,
    entitlements: planKnown
      ? entitlementsFor(r.tier, r.custom ? (JSON.parse(r.custom) as CustomLimits) : undefined)
      : entitlementsFor('free'),
    billing: r.billing,
    createdMs,
    newStatsPolicy: followsNewStatsPolicy(createdMs),
    budgetCapUsd: r.budget_cap_usd,
    v1: r.v1 === 1,
    v2: r.v2 === 1,
    credits: r.credits,
    creditsExpiryMs: r.credits_expiry ? Date.parse(r.credits_expiry) : null,
  };
}

/**
 * Resolves a presented key to its account. Lookups go by the key's hash, so the store never sees
 * or compares a key in clear; the accounts are trusted for `ttlMs` (trusted-reads.ts: a busy key
 * read again before its entry lapses, concurrent requests sharing one read), so the hot path stays
 * off the store while a key created or revoked by `oddsbase keys` (another process) takes effect
 * within `ttlMs`. While the store does not answer, a key already known keeps its last-read account.
 * On PostgreSQL, where a read takes a round trip, every request that arrived during a read (50 at a
 * time in bench/cluster.ts's events part) used to go through the router and make a read of its own.
 */
export class Authenticator {
  private readonly accounts: TrustedReads<Account>;

  constructor(
    private readonly keys: KeyStore,
    ttlMs = 2000,
    private readonly now: () => number = Date.now,
  ) {
    this.accounts = new TrustedReads({
      read: (key) => this.current(hashKey(key)),
      ttlMs,
      now,
      maxEntries: 10_000,
      keepOnError: true,
    });
  }

  /** The account of a key trusted within the cache's time, without a store lookup; else undefined. */
  cached(key: string | undefined): Account | undefined {
    return key ? this.accounts.cached(key) : undefined;
  }

  /**
   * The account of a key hash as its record reads now, bypassing the cache; undefined when the key
   * is revoked, expired or gone. Open streams ask this periodically, since they authenticated once.
   */
  async current(keyHash: string): Promise<Account | undefined> {
    const record = await this.keys.findByHash(keyHash);
    return record && isActive(record, this.now()) ? accountOf(record) : undefined;
  }

  authenticate(key: string | undefined): Promise<Account | undefined> {
    if (!key || key.length > 200) return Promise.resolve(undefined);
    return this.accounts.get(key);
  }
}

function isActive(r: KeyRecord, now: number): boolean {
  return r.revoked_at === null && (r.expires_at === null || Date.parse(r.expires_at) > now);
}
