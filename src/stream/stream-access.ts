import type { AccessControl } from '../access/access-control.ts';
import type { Account, Authenticator } from '../access/authenticator.ts';
import type { Sessions } from '../access/sessions.ts';
import type { StreamDenial } from './stream-hub.ts';

/**
 * Whether a key that opened streams may still stream, as its record and counters read now (the
 * StreamHub asks every `streamAccessCheckMs`): revoked or expired, a plan without streams, or a cap
 * or budget reached each give the denial its connections are closed with.
 */
export async function streamDenial(
  auth: Authenticator,
  access: AccessControl,
  account: Account,
): Promise<StreamDenial | undefined> {
  const now = await auth.current(account.keyHash);
  if (!now) {
    return {
      code: 'key_revoked',
      message: 'the key was revoked or has expired',
      reason: 'policy_violation:key_revoked',
    };
  }
  if (!now.entitlements.websocket || now.unservable) {
    return {
      code: 'forbidden',
      message: 'the key’s plan no longer includes WebSocket streams',
      reason: 'policy_violation:forbidden',
    };
  }
  const cap = access.capReached(now);
  if (cap) return { code: 'limit_reached', message: String(cap.body.error), reason: 'policy_violation:limit_reached' };
  return undefined;
}

/** Whether a page session that opened streams still holds: signed out or expired ends them. */
export async function sessionDenial(sessions: Sessions, session: string): Promise<StreamDenial | undefined> {
  if (await sessions.resolve(session)) return undefined;
  return {
    code: 'session_ended',
    message: 'the session was signed out or has expired',
    reason: 'policy_violation:session_ended',
  };
}
