import { type Denial, UPGRADE_URL } from './access-control.ts';
import type { Account } from './authenticator.ts';

/**
 * The one place that decides whether a caller may read game stats (team and player box scores,
 * live and final). Every stats route asks it before reading anything, so the stats-access policy
 * (the account's creation date, its plan, the Free evaluation window) is decided here and nowhere
 * else. Today every V2 key may; a caller without an account is a server run without the access layer.
 */
export function gameStatsDenial(account: Account | undefined): Denial | undefined {
  if (account === undefined || account.v2) return undefined;
  return {
    status: 403,
    body: { error: 'Game stats need a V2 subscription', upgrade_url: UPGRADE_URL },
    headers: {},
  };
}
