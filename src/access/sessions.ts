import { randomBytes } from 'node:crypto';
import type { Account, Authenticator } from './authenticator.ts';

/** Most sessions held; past it the expired go first, then the oldest. */
const MAX_SESSIONS = 100_000;

/** A signed-in page: the key's account, held by the server under an opaque random token. */
export interface Session {
  readonly token: string;
  /** As the key reads at the last check: its entitlements, limits and metering are the session's. */
  account: Account;
  /** Opened with the demo key by POST /session/demo. */
  readonly demo: boolean;
  readonly expiresAt: number;
  /** Until when `account` is trusted without reading the key's record again. */
  checkedUntil: number;
}

/**
 * Sessions of the odds screen: a key presented once (POST /session) is exchanged for a token the
 * browser keeps as an HttpOnly cookie, so the page never holds the key. A session acts as its key
 * in every respect and lasts `ttlMs` at most; it ends sooner when deleted, and the key's record is
 * read again every `recheckMs` (the key cache's time), so that revoking or expiring the key ends
 * every session of it within that time. Held in this process's memory: a session is known to the
 * node that opened it only (docs/spec-gaps.md).
 */
export class Sessions {
  private readonly byToken = new Map<string, Session>();

  constructor(
    private readonly auth: Pick<Authenticator, 'current'>,
    private readonly ttlMs: number,
    private readonly recheckMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  get size(): number {
    return this.byToken.size;
  }

  open(account: Account, demo: boolean): Session {
    const t = this.now();
    if (this.byToken.size >= MAX_SESSIONS) this.prune(t);
    const session: Session = {
      token: randomBytes(32).toString('base64url'),
      account,
      demo,
      expiresAt: t + this.ttlMs,
      checkedUntil: t + this.recheckMs,
    };
    this.byToken.set(session.token, session);
    return session;
  }

  end(token: string): void {
    this.byToken.delete(token);
  }

  /** The session of a token if it is current and its key was checked within `recheckMs`; no store read. */
  cached(token: string): Session | undefined {
    const s = this.byToken.get(token);
    const t = this.now();
    return s && s.expiresAt > t && s.checkedUntil > t ? s : undefined;
  }

  /**
   * The session of a token, its key's account read again when the last check is older than
   * `recheckMs`; undefined when unknown, expired or ended, or when its key is revoked or expired
   * (which ends every session of that key).
   */
  async resolve(token: string): Promise<Session | undefined> {
    const s = this.byToken.get(token);
    if (!s) return undefined;
    if (s.expiresAt <= this.now()) {
      this.byToken.delete(token);
      return undefined;
    }
    if (s.checkedUntil > this.now()) return s;
    const account = await this.auth.current(s.account.keyHash);
    if (!account) {
      this.endAllOf(s.account.keyHash);
      return undefined;
    }
    s.account = account;
    s.checkedUntil = this.now() + this.recheckMs;
    // Ended while the key was read (DELETE /session): it stays ended.
    return this.byToken.get(token) === s ? s : undefined;
  }

  private endAllOf(keyHash: string): void {
    for (const [token, s] of this.byToken) if (s.account.keyHash === keyHash) this.byToken.delete(token);
  }

  private prune(t: number): void {
    for (const [token, s] of this.byToken) if (s.expiresAt <= t) this.byToken.delete(token);
    // Still full: the oldest go (insertion order).
    for (const token of this.byToken.keys()) {
      if (this.byToken.size < MAX_SESSIONS) break;
      this.byToken.delete(token);
    }
  }
}
