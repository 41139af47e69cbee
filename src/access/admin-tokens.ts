import { randomBytes } from 'node:crypto';
import type { AdminTokenRecord, AdminTokenStore } from '../store/admin-tokens.ts';
import { hashKey } from './keys.ts';
import { TrustedReads } from './trusted-reads.ts';

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

/**
 * Checks the bearer token of an admin request. A token the store holds active is trusted for
 * `ttlMs` as API keys are (trusted-reads.ts): an ingest batch then costs no read of the database
 * beside its commit, and a token revoked with `oddsbase admin-tokens revoke` (another process) is
 * refused within `ttlMs` on every node.
 */
export class AdminTokens {
  private readonly trusted: TrustedReads<true>;

  constructor(store: AdminTokenStore, ttlMs = 2000, now: () => number = Date.now) {
    this.trusted = new TrustedReads({
      read: async (token) => {
        const record = await store.findByHash(hashKey(token));
        return record !== undefined && record.revoked_at === null ? true : undefined;
      },
      ttlMs,
      now,
      // A server has a handful.
      maxEntries: 1000,
      keepOnError: false,
    });
  }

  /** Whether `authorization` (the header's value) carries an active admin token. */
  async admits(authorization: string | undefined): Promise<boolean> {
    const match = authorization === undefined ? null : /^Bearer\s+(\S+)\s*$/i.exec(authorization);
    if (!match) return false;
    return (await this.trusted.get(match[1]!)) === true;
  }
}
