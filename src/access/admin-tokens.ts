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

/**
 * Checks the bearer token of an admin request against the store, each time: admin requests are
 * few and heavy (a batch of a thousand records), so a lookup per request costs nothing that
 * matters, and a revocation takes effect on the next request.
 */
export class AdminTokens {
  constructor(private readonly store: AdminTokenStore) {}

  /** Whether `authorization` (the header's value) carries an active admin token. */
  async admits(authorization: string | undefined): Promise<boolean> {
    const match = authorization === undefined ? null : /^Bearer\s+(\S+)\s*$/i.exec(authorization);
    if (!match) return false;
    const record = await this.store.findByHash(hashKey(match[1]!));
    return record !== undefined && record.revoked_at === null;
  }
}
