import type { Account } from './authenticator.ts';
import { type BurstCounter, LocalBursts } from './bursts.ts';
import { countText } from './count-text.ts';
import { objectCache } from '../perf/fresh-cache.ts';
import type { Counters } from './counters/counters.ts';
import { lowestTierWith, upgradeMessage } from './entitlements.ts';
import { type StatsDecision, type StatsRequest, statsAccess } from './stats-policy.ts';
import { tierLabel } from '../catalog/tiers.ts';
import { creditsAvailable, splitPoints, type UsagePlan, usagePlan } from './usage.ts';

export const UPGRADE_URL = 'https://oddsbase.example/pricing';

/** A refusal in the spec's shape; the HTTP layer turns it into a response. */
export interface Denial {
  status: 403 | 429;
  /** Set on the refusals of a limit or cap (not on a plan's entitlements): what the metrics count. */
  reason?: RefusalReason;
  body: Record<string, unknown>;
  headers: Record<string, string>;
}

/**
 * Why a request was refused by a limit: the per-second ceiling, a cap, or failed key checks from its
 * address (held back past the first few, refused past the ceiling).
 */
export type RefusalReason =
  'burst' | 'daily_cap' | 'monthly_cap' | 'budget_cap' | 'failed_key_throttle' | 'failed_key_ceiling';

/** Where the usage and entitlement headers go: a reply (fastify's `header(name, value)`). */
export interface HeaderSink {
  header(name: string, value: string): unknown;
}

const FAR_FUTURE = Date.UTC(9999, 0, 1);
const DAY = 86_400_000;
/** The counters of an account's usage, as the CLI reads them back from the CounterStore too. */
export const usedKey = (a: Pick<Account, 'keyHash'>, periodId: string) => `use:${a.keyHash}:${periodId}`;
export const overageKey = (a: Pick<Account, 'keyHash'>, periodId: string) => `over:${a.keyHash}:${periodId}`;
export const creditKey = (a: Pick<Account, 'keyHash'>) => `credit:${a.keyHash}`;

const seconds = (ms: number) => String(Math.max(1, Math.ceil(ms / 1000)));

/** A plan's period windows with their header texts, valid until the first window ends. */
interface CachedPlan {
  plan: UsagePlan;
  until: number;
  usedKey: string;
  monthlyKey?: string;
  overageKey: string;
  /** The overage points at which the budget cap refuses, when the account has one. */
  overageCeiling?: number;
  /**
   * The headers that stay the same for the whole period, as name, value, name, value…: set from
   * one array because building a fresh header object per request cost more than the rest of the
   * access layer together (bench/access.ts).
   */
  fixedHeaders: string[];
  creditExpiry?: string;
}

/**
 * The business rules of the spec's Limits section: the per-second burst ceiling, the Free daily
 * and monthly caps, overage and the hard budget cap, and data-point metering with its headers.
 * A refused request consumes no data points.
 */
export class AccessControl {
  // On the per-request path: windows and header texts change at most once a day (a month, a week),
  // so they are worked out once per account and period, not per request. Kept beside the Account
  // object (a changed tier or credit grant is a new one), not per key: every read of a key makes a
  // new object, so the streams of one key opened at different times hold different ones, and kept
  // per key the plan was made anew each time the metered object changed (docs/benchmarks.md).
  private readonly plans = objectCache<Account, number, CachedPlan>({
    current: (_made, t, cached) => t < cached.until && t >= cached.plan.primary.startMs,
  });
  /** The entitlement headers of an account's plan; a changed plan is a new Account object. */
  private readonly entitlementTexts = new WeakMap<Account, readonly string[]>();

  constructor(
    private readonly counters: Counters,
    private readonly now: () => number = Date.now,
    /** Told of every refusal by a limit (metrics). */
    private readonly onRefusal: (reason: RefusalReason) => void = () => {},
    /** Requests per key and second: this process's alone, or every node's (`SharedBursts`). */
    private readonly bursts: BurstCounter = new LocalBursts(),
  ) {}

  private planFor(a: Account, t: number): CachedPlan {
    const hit = this.plans.get(a, t);
    if (hit) return hit;
    const plan = usagePlan(a, t);
    const fixedHeaders = [
      ...this.entitlementsOf(a),
      'x-datapoints-limit',
      String(plan.included),
      'x-datapoints-period',
      plan.primary.name,
      'x-datapoints-reset',
      new Date(plan.primary.endMs).toISOString(),
    ];
    if (plan.monthly) {
      fixedHeaders.push('x-datapoints-monthly-reset', new Date(plan.monthly.window.endMs).toISOString());
    }
    const cached: CachedPlan = {
      plan,
      until: Math.min(plan.primary.endMs, plan.monthly?.window.endMs ?? Number.POSITIVE_INFINITY),
      usedKey: usedKey(a, plan.primary.id),
      monthlyKey: plan.monthly ? usedKey(a, plan.monthly.window.id) : undefined,
      overageKey: overageKey(a, plan.primary.id),
      overageCeiling:
        a.budgetCapUsd !== null && a.entitlements.overagePerPoint !== undefined
          ? a.budgetCapUsd / a.entitlements.overagePerPoint
          : undefined,
      fixedHeaders,
      creditExpiry: a.creditsExpiryMs === null ? undefined : new Date(a.creditsExpiryMs).toISOString(),
    };
    this.plans.set(a, t, cached);
    return cached;
  }

  private entitlementsOf(a: Account): readonly string[] {
    let texts = this.entitlementTexts.get(a);
    if (!texts) {
      texts = entitlementHeaders(a);
      this.entitlementTexts.set(a, texts);
    }
    return texts;
  }

  /**
   * Sets the plan's entitlement headers (X-Tier and the rest) on `out` without metering: for the
   * refusals that follow a key check (403, 429), so that a client can report the plan that refused
   * it. Served answers get them from `meter`.
   */
  entitle(a: Account, out: HeaderSink): void {
    const texts = this.entitlementsOf(a);
    for (let i = 0; i < texts.length; i += 2) out.header(texts[i]!, texts[i + 1]!);
  }

  /**
   * Lets a request through or refuses it: the per-second ceiling on every route, then the caps on
   * metered ones. A refused request consumes no data points.
   */
  admit(a: Account, metered: boolean): Denial | undefined {
    const t = this.now();
    const denial = this.checkBurst(a, t) ?? (metered ? this.checkCaps(a, t) : undefined);
    if (denial?.reason) this.onRefusal(denial.reason);
    return denial;
  }

  /**
   * The cap or budget refusal a metered request of this account would get now, without counting a
   * request: open streams ask it to stop once a cap is reached.
   */
  capReached(a: Account): Denial | undefined {
    return this.checkCaps(a, this.now());
  }

  /** Reports a refusal the HTTP layer decides before an account is known (failed key checks). */
  refused(reason: RefusalReason): void {
    this.onRefusal(reason);
  }

  /** Counts the request against the per-second ceiling. */
  private checkBurst(a: Account, t: number): Denial | undefined {
    const second = Math.floor(t / 1000);
    const limit = a.entitlements.burstPerSecond;
    const n = this.bursts.hit(a.keyHash, second, limit);
    if (n <= limit) return undefined;
    const next = lowestTierWith((e) => e.burstPerSecond > limit);
    return {
      status: 429,
      reason: 'burst',
      body: {
        error: 'Rate limit exceeded',
        limit,
        upgrade_url: UPGRADE_URL,
        upgrade_message: next
          ? `The ${tierLabel(a.tier)} tier allows ${limit} requests per second; ${tierLabel(next)} allows more`
          : `The ${tierLabel(a.tier)} tier allows ${limit} requests per second`,
      },
      headers: { 'Retry-After': seconds((second + 1) * 1000 - t) },
    };
  }

  /** Refuses a metered request once a cap is reached: Free daily and monthly, or the budget cap. */
  private checkCaps(a: Account, t: number): Denial | undefined {
    const cached = this.planFor(a, t);
    const plan = cached.plan;
    if (a.tier === 'free') {
      const used = this.counters.get(cached.usedKey);
      if (used >= plan.included) {
        return {
          status: 429,
          reason: 'daily_cap',
          body: {
            error: 'Daily data point limit reached',
            limit: plan.included,
            used,
            upgrade_url: UPGRADE_URL,
            upgrade_message: upgradeMessage('More data points per day', 'starter'),
          },
          headers: { 'Retry-After': seconds(plan.primary.endMs - t) },
        };
      }
      const monthly = plan.monthly!;
      const monthUsed = this.counters.get(cached.monthlyKey!);
      if (monthUsed >= monthly.cap) {
        return {
          status: 429,
          reason: 'monthly_cap',
          body: {
            error: 'Monthly data point limit reached',
            limit: monthly.cap,
            used: monthUsed,
            period: monthly.window.id,
            upgrade_url: UPGRADE_URL,
            upgrade_message: upgradeMessage('More data points per month', 'starter'),
          },
          headers: { 'Retry-After': seconds(monthly.window.endMs - t) },
        };
      }
      return undefined;
    }
    if (a.budgetCapUsd !== null && a.entitlements.overagePerPoint !== undefined) {
      const overage = this.counters.get(cached.overageKey);
      const spent = overage * a.entitlements.overagePerPoint;
      if (spent >= a.budgetCapUsd) {
        return {
          status: 403,
          reason: 'budget_cap',
          body: {
            error: 'Budget limit reached',
            budget_cap_usd: a.budgetCapUsd,
            overage_usd: Number(spent.toFixed(4)),
            period: plan.primary.id,
            upgrade_url: UPGRADE_URL,
          },
          headers: {},
        };
      }
    }
    return undefined;
  }

  /** This server's clock (epoch ms), which every access rule reads. */
  time(): number {
    return this.now();
  }

  /** The stats-access policy (src/access/stats-policy.ts) at this server's clock. */
  statsAccess(a: Account, request: StatsRequest): StatsDecision {
    return statsAccess(a, request, this.now());
  }

  /**
   * Date-scoped requests reach back `historyDays` from today; the cutoff is midnight UTC and the
   * request's offset does not move it (spec: history window).
   */
  checkHistoryWindow(a: Account, dateMs: number): Denial | undefined {
    const days = a.entitlements.historyDays;
    const earliestMs = this.historyFloorMs(a);
    if (dateMs >= earliestMs) return undefined;
    const earliest = new Date(earliestMs).toISOString().slice(0, 10);
    const deeper = lowestTierWith((e) => e.historyDays > days);
    return {
      status: 403,
      body: {
        error: `Date outside your plan's history window: the ${tierLabel(a.tier)} tier reaches back ${days} days, to ${earliest}`,
        earliest_available_date: earliest,
        history_days_limit: days,
        upgrade_url: UPGRADE_URL,
        upgrade_message: upgradeMessage('A deeper history window', deeper),
      },
      headers: {},
    };
  }

  /** The oldest instant a plan's history reaches: midnight UTC today minus its window. */
  historyFloorMs(a: Account): number {
    return Math.floor(this.now() / DAY) * DAY - a.entitlements.historyDays * DAY;
  }

  /**
   * Records the points of a served response and sets its usage and entitlement headers (spec:
   * X-Datapoints-*, X-Tier and the rest) on `out`.
   */
  meter(a: Account, points: number, out: HeaderSink): void {
    const t = this.now();
    const cached = this.planFor(a, t);
    const plan = cached.plan;
    const granted = creditsAvailable(a, t);
    let creditsLeft = granted > 0 ? Math.max(0, granted - this.counters.get(creditKey(a))) : 0;
    let used: number;
    let monthlyUsed = 0;
    if (points > 0) {
      // Each counter with the value at which it refuses or bills otherwise: the nodes of a
      // cluster tell one another of a count near it sooner (src/perf/send-gap.ts).
      used = this.counters.incr(cached.usedKey, points, plan.primary.endMs, plan.included);
      // Past the included points only: most requests stop at this test.
      if (used > plan.included) {
        const split = splitPoints(used - points, points, plan.included, creditsLeft);
        if (split.credits > 0) {
          this.counters.incr(creditKey(a), split.credits, a.creditsExpiryMs ?? FAR_FUTURE, granted);
          creditsLeft -= split.credits;
        }
        if (split.overage > 0 && a.tier !== 'free') {
          this.counters.incr(cached.overageKey, split.overage, plan.primary.endMs, cached.overageCeiling);
        }
      }
      if (cached.monthlyKey) {
        monthlyUsed = this.counters.incr(cached.monthlyKey, points, plan.monthly!.window.endMs, plan.monthly!.cap);
      }
    } else {
      used = this.counters.get(cached.usedKey);
      if (cached.monthlyKey) monthlyUsed = this.counters.get(cached.monthlyKey);
    }
    const fixed = cached.fixedHeaders;
    for (let i = 0; i < fixed.length; i += 2) out.header(fixed[i]!, fixed[i + 1]!);
    out.header('x-datapoints', String(points));
    // The counts change every request: see countText for why not String.
    out.header('x-datapoints-used', countText(used));
    out.header('x-datapoints-remaining', countText(Math.max(0, plan.included - used)));
    if (creditsLeft > 0) {
      out.header('x-datapoints-credit-balance', countText(creditsLeft));
      if (cached.creditExpiry) out.header('x-datapoints-credit-expiry', cached.creditExpiry);
    }
    if (plan.monthly) {
      out.header('x-datapoints-monthly-used', countText(monthlyUsed));
      out.header('x-datapoints-monthly-remaining', countText(Math.max(0, plan.monthly.cap - monthlyUsed)));
    }
  }
}

/** What the plan allows, on every metered response, as name, value pairs. */
function entitlementHeaders(a: Account): string[] {
  const e = a.entitlements;
  const list = (v: readonly number[] | 'all') => (v === 'all' ? 'all' : v.join(','));
  return [
    'x-tier',
    tierLabel(a.tier),
    'x-rate-limit',
    String(e.burstPerSecond),
    'x-data-delay-seconds',
    String(e.delaySeconds),
    'x-bookmakers',
    list(e.bookmakers),
    'x-periods',
    list(e.periods),
    'x-history-access',
    String(e.historyDays),
    'x-live-odds-access',
    String(e.liveOdds),
    'x-websocket-access',
    String(e.websocket),
  ];
}
