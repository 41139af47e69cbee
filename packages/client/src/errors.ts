import type { Plan, Usage } from './usage.ts';

/** What the server said about a failed request: status, body, headers parsed. */
export interface ErrorDetail {
  status: number;
  /** The JSON body, or the raw text when it was not JSON. */
  body: unknown;
  usage: Usage;
  plan: Plan;
  /** Retry-After in ms, when sent. */
  retryAfterMs?: number;
  method: string;
  path: string;
}

/** The human-readable text of an error body: `message`, else `error` (spec: clients check both). */
export function messageOf(body: unknown, status: number): string {
  if (body && typeof body === 'object') {
    const b = body as Record<string, unknown>;
    if (typeof b.message === 'string' && b.message !== '') return b.message;
    if (typeof b.error === 'string' && b.error !== '') return b.error;
  }
  if (typeof body === 'string' && body.trim() !== '') return body.trim().slice(0, 200);
  return `HTTP ${status}`;
}

function field(body: unknown, name: string): unknown {
  return body && typeof body === 'object' ? (body as Record<string, unknown>)[name] : undefined;
}

/** Any answer other than 2xx. `retryable` says whether the spec allows trying the same request again. */
export class ApiError extends Error {
  readonly status: number;
  readonly body: unknown;
  readonly usage: Usage;
  readonly plan: Plan;
  readonly retryAfterMs: number | undefined;
  readonly method: string;
  readonly path: string;
  readonly retryable: boolean = false;

  constructor(d: ErrorDetail) {
    super(messageOf(d.body, d.status));
    this.name = new.target.name;
    this.status = d.status;
    this.body = d.body;
    this.usage = d.usage;
    this.plan = d.plan;
    this.retryAfterMs = d.retryAfterMs;
    this.method = d.method;
    this.path = d.path;
  }

  /** The body's `code`, where the server sends one (e.g. `stats_policy_unsupported`). */
  get code(): string | undefined {
    const c = field(this.body, 'code');
    return typeof c === 'string' ? c : undefined;
  }
}

/** 400: a parameter is wrong. Never retried. */
export class BadRequestError extends ApiError {}

/**
 * 400 from a delta feed naming its `last_id`: the cursor is too far behind (or ahead of) what the
 * server keeps. Recovery is a fresh events snapshot and its `meta.delta_last_id`.
 */
export class CursorRejectedError extends BadRequestError {}

/** 401: key missing, invalid, revoked or expired. Never retried. */
export class UnauthorizedError extends ApiError {}

/**
 * 403: the plan lacks a feature, the date is outside the history window, or a budget is spent.
 * Re-authenticating does not help; never retried.
 */
export class ForbiddenError extends ApiError {
  get feature(): string | undefined {
    const f = field(this.body, 'feature');
    return typeof f === 'string' ? f : undefined;
  }
  get upgradeUrl(): string | undefined {
    const u = field(this.body, 'upgrade_url');
    return typeof u === 'string' ? u : undefined;
  }
  /** History-window refusals: the first date the plan may read. */
  get earliestAvailableDate(): string | undefined {
    const d = field(this.body, 'earliest_available_date');
    return typeof d === 'string' ? d : undefined;
  }
}

/** 404: unknown event, sport or other id, or a wrong path. Never retried. */
export class NotFoundError extends ApiError {}

/**
 * Which limit a 429 reports, from its `error` text (spec: 429 bodies). Only `burst` is retried by
 * the client (after Retry-After); the caps end in this error, whose `retryAfterMs` says when the
 * period resets.
 */
export type RateLimitKind = 'burst' | 'daily_cap' | 'monthly_cap' | 'connection_limit' | 'unknown';

export function rateLimitKind(body: unknown): RateLimitKind {
  const e = field(body, 'error');
  if (e === 'Rate limit exceeded') return 'burst';
  if (e === 'Daily data point limit reached') return 'daily_cap';
  if (e === 'Monthly data point limit reached') return 'monthly_cap';
  if (e === 'WebSocket connection limit reached') return 'connection_limit';
  return 'unknown';
}

export class RateLimitError extends ApiError {
  readonly kind: RateLimitKind;
  constructor(d: ErrorDetail) {
    super(d);
    this.kind = rateLimitKind(d.body);
  }
  /** A cap (daily, monthly) is not lifted by a short wait. */
  get isCap(): boolean {
    return this.kind === 'daily_cap' || this.kind === 'monthly_cap';
  }
}

/** 500, 502, 503 (and any other 5xx): retried with backoff before this is thrown. */
export class ServerError extends ApiError {
  override readonly retryable: boolean = true;
}

/**
 * 503 `stats_policy_unsupported` (or stats metadata that cannot be resolved): not an entitlement
 * denial. Retried with bounded backoff; a consumer keeps its cached results when it is thrown.
 */
export class StatsUnavailableError extends ServerError {}

/** The request never got an HTTP answer (connection refused or reset, DNS): retried as a 503. */
export class NetworkError extends Error {
  readonly retryable = true;
  constructor(
    readonly method: string,
    readonly path: string,
    override readonly cause: unknown,
  ) {
    super(`${method} ${path}: ${cause instanceof Error ? cause.message : String(cause)}`);
    this.name = 'NetworkError';
  }
}

/** The snapshot a delta consumer would bootstrap from is delayed or carries no usable cursor. */
export class BootstrapError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BootstrapError';
  }
}

/** The body shape the server promised is not what came (e.g. a non-JSON 200). */
export class ProtocolError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ProtocolError';
  }
}

/** The error class for an answer's status and body. */
export function errorFor(d: ErrorDetail, cursorRoute: boolean): ApiError {
  switch (d.status) {
    case 400:
      return cursorRoute && /\blast_id\b/.test(messageOf(d.body, 400))
        ? new CursorRejectedError(d)
        : new BadRequestError(d);
    case 401:
      return new UnauthorizedError(d);
    case 403:
      return new ForbiddenError(d);
    case 404:
      return new NotFoundError(d);
    case 429:
      return new RateLimitError(d);
    default:
      if (d.status === 503 && isStatsUnavailable(d.body)) return new StatsUnavailableError(d);
      if (d.status >= 500) return new ServerError(d);
      return new ApiError(d);
  }
}

/** 503 of the stats-access policy: code `stats_policy_unsupported`, or a message about stats metadata. */
function isStatsUnavailable(body: unknown): boolean {
  if (field(body, 'code') === 'stats_policy_unsupported') return true;
  return /stats metadata/i.test(messageOf(body, 503));
}
