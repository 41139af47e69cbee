import { type CustomLimits, type Entitlements, entitlementsFor } from './entitlements.ts';
import { hashKey } from './keys.ts';
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
 * or compares a key in clear; a short cache keeps the hot path off the store while a key created
 * or revoked by `oddsbase keys` (another process) takes effect within `ttlMs`. While the store does
 * not answer, a key already known keeps its last-read account.
 *
 * A key in use is read again in the last quarter of its entry's time, in the background, and
 * requests that find no entry while its read runs share that read: a busy key's entry never lapses,
 * so its requests never wait on the store (nor leave the fast lane) every `ttlMs`. On PostgreSQL,
 * where a read takes a round trip, every request that arrived meanwhile (50 at a time in
 * bench/cluster.ts's events part) went through the router and made a read of its own.
 */
export class Authenticator {
  private readonly cache = new Map<string, { account: Account; until: number }>();
  /** Reads of the store under way, by presented key. */
  private readonly reading = new Map<string, Promise<Account | undefined>>();
  private readonly renewMs: number;

  constructor(
    private readonly keys: KeyStore,
    private readonly ttlMs = 2000,
    private readonly now: () => number = Date.now,
  ) {
    this.renewMs = ttlMs / 4;
  }

  /** The account of a key trusted within the cache's time, without a store lookup; else undefined. */
  cached(key: string | undefined): Account | undefined {
    if (!key) return undefined;
    // The cache is keyed by the presented key, so a hit costs no hashing.
    const hit = this.cache.get(key);
    if (!hit) return undefined;
    const left = hit.until - this.now();
    if (left <= 0) return undefined;
    if (left < this.renewMs && !this.reading.has(key)) void this.read(key).catch(() => undefined);
    return hit.account;
  }

  /**
   * The account of a key hash as its record reads now, bypassing the cache; undefined when the key
   * is revoked, expired or gone. Open streams ask this periodically, since they authenticated once.
   */
  async current(keyHash: string): Promise<Account | undefined> {
    const record = await this.keys.findByHash(keyHash);
    return record && isActive(record, this.now()) ? accountOf(record) : undefined;
  }

  async authenticate(key: string | undefined): Promise<Account | undefined> {
    if (!key || key.length > 200) return undefined;
    return this.cached(key) ?? this.reading.get(key) ?? this.read(key);
  }

  /** Reads the key's record, caches its account (or drops the key), and is shared while it runs. */
  private read(key: string): Promise<Account | undefined> {
    const read = this.lookUp(key).finally(() => this.reading.delete(key));
    this.reading.set(key, read);
    return read;
  }

  private async lookUp(key: string): Promise<Account | undefined> {
    let record: KeyRecord | undefined;
    try {
      record = await this.keys.findByHash(hashKey(key));
    } catch (err) {
      // The key store does not answer (PostgreSQL restarting): a key known before goes on working
      // as it was last read, so that a node serves what it holds; a revocation waits for the store.
      const stale = this.cache.get(key);
      if (stale) return stale.account;
      throw err;
    }
    const t = this.now();
    if (!record || !isActive(record, t)) {
      this.cache.delete(key);
      return undefined;
    }
    // Only known keys are cached: unknown ones are looked up each time, so a key created a moment
    // ago works at once, and a flood of random keys cannot grow the cache.
    const account = accountOf(record);
    if (this.cache.size > 10_000) this.cache.clear();
    this.cache.set(key, { account, until: t + this.ttlMs });
    return account;
  }
}

function isActive(r: KeyRecord, now: number): boolean {
  return r.revoked_at === null && (r.expires_at === null || Date.parse(r.expires_at) > now);
}
