import { randomBytes } from 'node:crypto';
import type { AdminTokenRecord, AdminTokenStore } from '../store/admin-tokens.ts';
import { hashKey } from './keys.ts';

/**
 * Admin tokens begin `oba_` where API keys begin `ob_`: a person can tell them apart, and since
 * they are kept in different tables neither is ever accepted for the other.
 */
export function generateAdminToken(): string {
  return `oba_${randomBytes(20).toString('hex')}`;
}

const PREFIX_LENGTH = 12;

export function adminTokenPrefix(token: string): string {
  return token.slice(0, PREFIX_LENGTH);
}

export function newAdminTokenRecord(token: string, opts: { label?: string; createdAt?: Date } = {}): AdminTokenRecord {
  return {
    token_hash: hashKey(token),
    token_prefix: adminTokenPrefix(token),
    label: opts.label ?? '',
    created_at: (opts.createdAt ?? new Date()).toISOString(),
    revoked_at: null,
  };
}

/** Tokens trusted at once; past it the cache starts again (a server has a handful). */
const MAX_TRUSTED = 1000;

/**
 * Checks the bearer token of an admin request. A token the store holds active is trusted for
 * `ttlMs` from the read, as API keys are (authenticator.ts): an ingest batch then costs no read of
 * the database beside its commit, and a token revoked with `oddsbase admin-tokens revoke` (another
 * process) is refused within `ttlMs` on every node. A token in use is read again in the last
 * quarter of its time, in the background, so a steady sender never waits on the store; requests
 * that find no entry while a read of their token runs share it. Unknown and revoked tokens are not
 * kept: one created a moment ago works at once, and guesses cannot grow the cache.
 */
export class AdminTokens {
  /** Trusted tokens, as presented, and until when. */
  private readonly trusted = new Map<string, number>();
  private readonly reading = new Map<string, Promise<boolean>>();

  constructor(
    private readonly store: AdminTokenStore,
    private readonly ttlMs = 2000,
    private readonly now: () => number = Date.now,
  ) {}

  /** Whether `authorization` (the header's value) carries an active admin token. */
  async admits(authorization: string | undefined): Promise<boolean> {
    const match = authorization === undefined ? null : /^Bearer\s+(\S+)\s*$/i.exec(authorization);
    if (!match) return false;
    const token = match[1]!;
    const left = (this.trusted.get(token) ?? 0) - this.now();
    if (left > 0) {
      if (left < this.ttlMs / 4 && !this.reading.has(token)) void this.read(token).catch(() => undefined);
      return true;
    }
    return this.reading.get(token) ?? this.read(token);
  }

  private read(token: string): Promise<boolean> {
    const read = this.lookUp(token).finally(() => this.reading.delete(token));
    this.reading.set(token, read);
    return read;
  }

  private async lookUp(token: string): Promise<boolean> {
    // Trusted from the moment the store was asked: a revocation it did not see yet counts from there.
    const asked = this.now();
    const record = await this.store.findByHash(hashKey(token));
    if (record === undefined || record.revoked_at !== null) {
      this.trusted.delete(token);
      return false;
    }
    if (this.trusted.size >= MAX_TRUSTED) this.trusted.clear();
    this.trusted.set(token, asked + this.ttlMs);
    return true;
  }
}
