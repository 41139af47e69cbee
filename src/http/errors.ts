import { UPGRADE_URL } from '../access/access-control.ts';
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
    super(typeof body.message === 'string' ? body.message : String(body.error));
  }
}

export const badRequest = (text: string): ApiError => new ApiError(400, { error: text, message: text });

export const unauthorized = (): ApiError => new ApiError(401, { message: 'unauthorized' });

/** A plan that lacks a feature: re-authenticating does not help, upgrading does. */
export const forbidden = (text: string, extra: Record<string, unknown> = {}): ApiError =>
  new ApiError(403, { error: text, upgrade_url: UPGRADE_URL, ...extra });

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
export const tooManyFailedKeyChecks = (
  retryAfterSeconds: number,
  limit: number,
  windowMs: number,
): ApiError =>
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
