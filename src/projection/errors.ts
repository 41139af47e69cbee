import { UPGRADE_URL } from '../access/access-control.ts';
import type { Account } from '../access/authenticator.ts';
import { STATS_SAMPLE_PATH, type StatsRefusal } from '../access/stats-policy.ts';
import { redact } from './redact.ts';

/**
 * The error catalogue: every error a route raises, with its status and the spec's body shape.
 * Parameter-validation errors carry `error` (as the spec's error section says) and the same text
 * in `message`, so a client that reads either field finds it.
 */
export class ApiError extends Error {
  constructor(
    readonly statusCode: number,
    readonly body: Record<string, unknown>,
    readonly headers: Record<string, string> = {},
  ) {
    // An answer, not a fault: nothing reads where it was made, and walking the stack cost 10-23% of
    // a refusal's CPU under a storm of 429s (docs/benchmarks.md, "Refusals without a stack").
    const message = typeof body.message === 'string' ? body.message : String(body.error);
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    super(message);
    Error.stackTraceLimit = limit;
  }
}

/**
 * The client closed its connection while its answer was still being made: nothing can reach it, so
 * the work stops (a page read from the store stops at its next chunk). Logged as 499, the status
 * proxies give a request its client abandoned.
 */
export class ClientGone extends Error {
  readonly statusCode = 499;
  constructor() {
    super('the client closed the connection before its answer was ready');
  }
}

export const badRequest = (text: string): ApiError => new ApiError(400, { error: text, message: text });

export const unauthorized = (): ApiError => new ApiError(401, { message: 'unauthorized' });

/**
 * A session cookie sent by a page of another origin (src/access/session-cookie.ts): the cookie is
 * the browser's, not that page's. `error` too, as V1 clients read it.
 */
export const foreignOriginSession = (text: string): ApiError => new ApiError(403, { error: text, message: text });

/** A plan that lacks a feature: re-authenticating does not help, upgrading does. */
export const forbidden = (text: string, extra: Record<string, unknown> = {}): ApiError =>
  new ApiError(403, { error: text, upgrade_url: UPGRADE_URL, ...extra });

/**
 * A key whose record cannot be served (`Account.unservable`): no limit, coverage or period can be
 * applied, so every keyed route refuses it before anything is read or counted. 503 without
 * Retry-After, as the spec's `stats_policy_unsupported`: retryable with backoff (the key store may
 * be fixed), not an entitlement denial. The plan's name is the operator's record, quoted.
 */
export function planUnsupported(account: Pick<Account, 'tier' | 'unservable'>): ApiError {
  const message =
    account.unservable === 'undated_weekly'
      ? 'The record of this key has no creation date, which its weekly billing period counts from; the key cannot be served until the record is fixed'
      : `The plan of this key (${quote(account.tier)}) is not one this server knows; the key cannot be served until its record names a known plan`;
  return new ApiError(503, { message, code: PLAN_UNSUPPORTED });
}

export const PLAN_UNSUPPORTED = 'plan_unsupported';

/** Spec code of the 503 given when the stats-access policy cannot be resolved for an account. */
export const STATS_POLICY_UNSUPPORTED = 'stats_policy_unsupported';

/**
 * A refusal of the stats-access policy: a 403 naming the feature, where to upgrade and the sample
 * box score a client may read instead; or a 503 `stats_policy_unsupported`, without Retry-After
 * (spec: retry with backoff, not an entitlement denial).
 */
export function statsRefused(refusal: StatsRefusal): ApiError {
  if (refusal.kind === 'unsupported') {
    return new ApiError(503, { message: refusal.message, code: STATS_POLICY_UNSUPPORTED });
  }
  return forbidden(refusal.message, { feature: refusal.feature, sample_url: STATS_SAMPLE_PATH });
}

/** Most characters of client input an error text repeats. */
const QUOTE_MAX = 40;

/**
 * Client input as every error text shows it: anything key-shaped redacted, then cut to 40
 * characters, so an answer never carries a key and never grows with the request.
 */
export function quote(value: string): string {
  const v = redact(value);
  return v.length > QUOTE_MAX ? `${v.slice(0, QUOTE_MAX)}…` : v;
}

/** `what` names the kind of thing (`event`, `sport`); `id` is what the client asked for. */
export const notFound = (what: string, id: string | number): ApiError =>
  new ApiError(404, { message: `${what} ${quote(String(id))} not found` });

/** An address past its ceiling of failed key checks presented a key not seen to pass before. */
export const tooManyFailedKeyChecks = (retryAfterSeconds: number, limit: number, windowMs: number): ApiError =>
  new ApiError(
    429,
    {
      error: 'Too many failed key checks',
      message:
        `${limit} invalid keys came from this address within ${windowMs / 1000} s; ` +
        'until Retry-After only keys already in use are checked',
      limit,
    },
    { 'retry-after': String(retryAfterSeconds) },
  );

export const internalError = (): ApiError => new ApiError(500, { message: 'internal server error' });
