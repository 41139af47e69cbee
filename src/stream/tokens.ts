import { randomBytes } from 'node:crypto';
import type { Account } from '../access/authenticator.ts';

/** Most tokens outstanding; past it the oldest go first. */
const MAX_TOKENS = 100_000;

export interface IssuedToken {
  token: string;
  expiresAt: number;
}

/**
 * Short-lived stream tokens: a browser cannot set the key header on a WebSocket, so a backend that
 * holds the key asks for a token (POST /api/v2/ws/token) and the page connects with `?token=`.
 * A token opens one connection, once, within its lifetime, as the account that asked for it; it
 * never reveals the key. Tokens live in this process's memory only (a token is redeemed on the node
 * that issued it; docs/spec-gaps.md).
 */
export class StreamTokens {
  private readonly tokens = new Map<string, { account: Account | null; session?: string; expiresAt: number }>();

  constructor(
    private readonly ttlMs: number,
    private readonly now: () => number,
  ) {}

  /** `session`: the page session that asked, if a session cookie did; its streams end with it. */
  issue(account: Account | null, session?: string): IssuedToken {
    const t = this.now();
    if (this.tokens.size >= MAX_TOKENS) this.prune(t);
    const token = `st_${randomBytes(24).toString('base64url')}`;
    const expiresAt = t + this.ttlMs;
    this.tokens.set(token, { account, session, expiresAt });
    return { token, expiresAt };
  }

  /**
   * The account a token was issued to, and the page session that asked for it if one did, once;
   * undefined when unknown, used or expired.
   */
  redeem(token: string): { account: Account | null; session?: string } | undefined {
    const hit = this.tokens.get(token);
    if (!hit) return undefined;
    this.tokens.delete(token);
    return hit.expiresAt > this.now() ? hit : undefined;
  }

  private prune(t: number): void {
    for (const [token, v] of this.tokens) if (v.expiresAt <= t) this.tokens.delete(token);
    // Still full: drop the oldest (insertion order).
    for (const token of this.tokens.keys()) {
      if (this.tokens.size < MAX_TOKENS) break;
      this.tokens.delete(token);
    }
  }
}
