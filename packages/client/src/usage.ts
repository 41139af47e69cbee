/**
 * The usage and entitlement headers of a response (spec: Limits, Metering and Authentication),
 * parsed once. A header the server did not send is undefined: billing can omit `X-Datapoints`,
 * catalog routes carry no usage headers, and a 401 carries neither kind.
 */
export interface Usage {
  /** X-Datapoints: the points this response cost. */
  datapoints?: number;
  used?: number;
  remaining?: number;
  limit?: number;
  /** X-Datapoints-Period: daily, weekly or monthly. */
  period?: string;
  /** X-Datapoints-Reset, ISO 8601. */
  reset?: string;
  creditBalance?: number;
  creditExpiry?: string;
  /** Free keys: the calendar-month cap beside the daily one. */
  monthlyUsed?: number;
  monthlyRemaining?: number;
  monthlyReset?: string;
}

export interface Plan {
  tier?: string;
  /** X-Rate-Limit: requests per second. */
  rateLimit?: number;
  dataDelaySeconds?: number;
  /** X-Bookmakers: affiliate ids, or 'all'. */
  bookmakers?: number[] | 'all';
  /** X-Periods: period ids, or 'all'. */
  periods?: number[] | 'all';
  /** X-History-Access as sent (oddsbase sends the window in days). */
  historyAccess?: string;
  liveOddsAccess?: boolean;
  websocketAccess?: boolean;
}

/** The read-only part of fetch's Headers that parsing needs. */
export interface HeaderSource {
  get(name: string): string | null;
}

function num(h: HeaderSource, name: string): number | undefined {
  const v = h.get(name);
  if (v === null || v.trim() === '') return undefined;
  const n = Number(v);
  return Number.isFinite(n) ? n : undefined;
}

function str(h: HeaderSource, name: string): string | undefined {
  const v = h.get(name);
  return v === null ? undefined : v;
}

function bool(h: HeaderSource, name: string): boolean | undefined {
  const v = h.get(name)?.trim().toLowerCase();
  if (v === 'true') return true;
  if (v === 'false') return false;
  return undefined;
}

function idList(h: HeaderSource, name: string): number[] | 'all' | undefined {
  const v = h.get(name)?.trim();
  if (v === undefined) return undefined;
  if (v.toLowerCase() === 'all') return 'all';
  if (v === '') return [];
  const ids = v.split(',').map((s) => Number(s.trim()));
  return ids.every(Number.isInteger) ? ids : undefined;
}

/** Drops the keys whose value is undefined, so a parsed object lists only what was sent. */
function defined<T extends object>(o: T): T {
  for (const k of Object.keys(o) as (keyof T)[]) if (o[k] === undefined) delete o[k];
  return o;
}

export function parseUsage(h: HeaderSource): Usage {
  return defined({
    datapoints: num(h, 'x-datapoints'),
    used: num(h, 'x-datapoints-used'),
    remaining: num(h, 'x-datapoints-remaining'),
    limit: num(h, 'x-datapoints-limit'),
    period: str(h, 'x-datapoints-period'),
    reset: str(h, 'x-datapoints-reset'),
    creditBalance: num(h, 'x-datapoints-credit-balance'),
    creditExpiry: str(h, 'x-datapoints-credit-expiry'),
    monthlyUsed: num(h, 'x-datapoints-monthly-used'),
    monthlyRemaining: num(h, 'x-datapoints-monthly-remaining'),
    monthlyReset: str(h, 'x-datapoints-monthly-reset'),
  });
}

export function parsePlan(h: HeaderSource): Plan {
  return defined({
    tier: str(h, 'x-tier'),
    rateLimit: num(h, 'x-rate-limit'),
    dataDelaySeconds: num(h, 'x-data-delay-seconds'),
    bookmakers: idList(h, 'x-bookmakers'),
    periods: idList(h, 'x-periods'),
    historyAccess: str(h, 'x-history-access'),
    liveOddsAccess: bool(h, 'x-live-odds-access'),
    websocketAccess: bool(h, 'x-websocket-access'),
  });
}

/**
 * Retry-After in milliseconds: delay-seconds or an HTTP date (RFC 9110); undefined when absent or
 * unreadable. `now` is the caller's clock, for the date form.
 */
export function retryAfterMs(h: HeaderSource, now: number): number | undefined {
  const v = h.get('retry-after')?.trim();
  if (!v) return undefined;
  if (/^\d+$/.test(v)) return Number(v) * 1000;
  const at = Date.parse(v);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}
