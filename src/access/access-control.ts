import type { Account } from './authenticator.ts';
import type { Counters } from './counters/counters.ts';
import { lowestTierWith, upgradeMessage } from './entitlements.ts';
import { tierLabel } from './tiers.ts';
import { creditsAvailable, splitPoints, type UsagePlan, usagePlan } from './usage.ts';

export const UPGRADE_URL = 'https://oddsbase.example/pricing';

/** A refusal in the spec's shape; the HTTP layer turns it into a response. */
export interface Denial {
  status: 403 | 429;
  body: Record<string, unknown>;
  headers: Record<string, string>;
}

export interface UsageAfter {
  points: number;
  plan: UsagePlan;
  used: number;
  monthlyUsed?: number;
  creditsLeft: number;
  /** ISO times the period (and Free's month) reset. */
  reset: string;
  monthlyReset?: string;
}

const FAR_FUTURE = Date.UTC(9999, 0, 1);
const DAY = 86_400_000;
const usedKey = (a: Account, periodId: string) => `use:${a.keyHash}:${periodId}`;
const overageKey = (a: Account, periodId: string) => `over:${a.keyHash}:${periodId}`;
const creditKey = (a: Account) => `credit:${a.keyHash}`;

const seconds = (ms: number) => String(Math.max(1, Math.ceil(ms / 1000)));

/**
 * The business rules of the spec's Limits section: the per-second burst ceiling, the Free daily
 * and monthly caps, overage and the hard budget cap, and data-point metering with its headers.
 * A refused request consumes no data points.
 */
/** A plan's period windows with their header texts, valid until the first window ends. */
interface CachedPlan {
  plan: UsagePlan;
  until: number;
  reset: string;
  monthlyReset?: string;
  usedKey: string;
  monthlyKey?: string;
  overageKey: string;
}

export class AccessControl {
  // Both caches sit on the per-request path: windows and header texts change at most once a day
  // (a month, a week), so they are worked out once per account and period, not per request.
  private readonly plans = new Map<string, CachedPlan>();
  private readonly entitlementTexts = new WeakMap<Account, Record<string, string>>();
  /** Requests in the current second, per key: a per-node ceiling, kept out of the shared counters. */
  private readonly bursts = new Map<string, { second: number; count: number }>();

  constructor(
    private readonly counters: Counters,
    private readonly now: () => number = Date.now,
  ) {}

  private planFor(a: Account, t: number): CachedPlan {
    const hit = this.plans.get(a.keyHash);
    if (hit && t < hit.until && t >= hit.plan.primary.startMs) return hit;
    const plan = usagePlan(a, t);
    const cached: CachedPlan = {
      plan,
      until: Math.min(plan.primary.endMs, plan.monthly?.window.endMs ?? Number.POSITIVE_INFINITY),
      reset: new Date(plan.primary.endMs).toISOString(),
      monthlyReset: plan.monthly ? new Date(plan.monthly.window.endMs).toISOString() : undefined,
      usedKey: usedKey(a, plan.primary.id),
      monthlyKey: plan.monthly ? usedKey(a, plan.monthly.window.id) : undefined,
      overageKey: overageKey(a, plan.primary.id),
    };
    if (this.plans.size >= 100_000) this.plans.clear();
    this.plans.set(a.keyHash, cached);
    return cached;
  }

  /** Counts the request against the per-second ceiling. */
  checkBurst(a: Account): Denial | undefined {
    const t = this.now();
    const second = Math.floor(t / 1000);
    let b = this.bursts.get(a.keyHash);
    if (!b) {
      if (this.bursts.size >= 100_000) this.bursts.clear();
      b = { second, count: 0 };
      this.bursts.set(a.keyHash, b);
    }
    if (b.second !== second) {
      b.second = second;
      b.count = 0;
    }
    const n = ++b.count;
    const limit = a.entitlements.burstPerSecond;
    if (n <= limit) return undefined;
    const next = lowestTierWith((e) => e.burstPerSecond > limit);
    return {
      status: 429,
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
  checkCaps(a: Account): Denial | undefined {
    const t = this.now();
    const cached = this.planFor(a, t);
    const plan = cached.plan;
    if (a.tier === 'free') {
      const used = this.counters.get(cached.usedKey);
      if (used >= plan.included) {
        return {
          status: 429,
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

  /** Records the points of a served response and returns the usage to report. */
  consume(a: Account, points: number): UsageAfter {
    const t = this.now();
    const cached = this.planFor(a, t);
    const plan = cached.plan;
    const granted = creditsAvailable(a, t);
    let creditsLeft = granted > 0 ? Math.max(0, granted - this.counters.get(creditKey(a))) : 0;
    let used: number;
    let monthlyUsed: number | undefined;
    if (points > 0) {
      used = this.counters.incr(cached.usedKey, points, plan.primary.endMs);
      const split = splitPoints(used - points, points, plan.included, creditsLeft);
      if (split.credits > 0) {
        this.counters.incr(creditKey(a), split.credits, a.creditsExpiryMs ?? FAR_FUTURE);
        creditsLeft -= split.credits;
      }
      if (split.overage > 0 && a.tier !== 'free') {
        this.counters.incr(cached.overageKey, split.overage, plan.primary.endMs);
      }
      if (cached.monthlyKey)
        monthlyUsed = this.counters.incr(cached.monthlyKey, points, plan.monthly!.window.endMs);
    } else {
      used = this.counters.get(cached.usedKey);
      if (cached.monthlyKey) monthlyUsed = this.counters.get(cached.monthlyKey);
    }
    return {
      points,
      plan,
      used,
      monthlyUsed,
      creditsLeft,
      reset: cached.reset,
      monthlyReset: cached.monthlyReset,
    };
  }

  /** The usage and entitlement headers of a metered response. */
  usageHeaders(a: Account, u: UsageAfter): Record<string, string> {
    const h: Record<string, string> = {
      ...this.entitlementHeaders(a),
      'X-Datapoints': String(u.points),
      'X-Datapoints-Used': String(u.used),
      'X-Datapoints-Remaining': String(Math.max(0, u.plan.included - u.used)),
      'X-Datapoints-Limit': String(u.plan.included),
      'X-Datapoints-Period': u.plan.primary.name,
      'X-Datapoints-Reset': u.reset,
    };
    if (u.creditsLeft > 0) {
      h['X-Datapoints-Credit-Balance'] = String(u.creditsLeft);
      if (a.creditsExpiryMs !== null)
        h['X-Datapoints-Credit-Expiry'] = new Date(a.creditsExpiryMs).toISOString();
    }
    if (u.plan.monthly && u.monthlyUsed !== undefined) {
      h['X-Datapoints-Monthly-Used'] = String(u.monthlyUsed);
      h['X-Datapoints-Monthly-Remaining'] = String(Math.max(0, u.plan.monthly.cap - u.monthlyUsed));
      h['X-Datapoints-Monthly-Reset'] = u.monthlyReset ?? '';
    }
    return h;
  }

  /** What the plan allows, on every metered response. */
  entitlementHeaders(a: Account): Record<string, string> {
    const hit = this.entitlementTexts.get(a);
    if (hit) return hit;
    const e = a.entitlements;
    const list = (v: readonly number[] | 'all') => (v === 'all' ? 'all' : v.join(','));
    const texts = {
      'X-Tier': tierLabel(a.tier),
      'X-Rate-Limit': String(e.burstPerSecond),
      'X-Data-Delay-Seconds': String(e.delaySeconds),
      'X-Bookmakers': list(e.bookmakers),
      'X-Periods': list(e.periods),
      'X-History-Access': String(e.historyDays),
      'X-Live-Odds-Access': String(e.liveOdds),
      'X-Websocket-Access': String(e.websocket),
    };
    this.entitlementTexts.set(a, texts);
    return texts;
  }
}
