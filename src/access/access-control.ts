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
export class AccessControl {
  constructor(
    private readonly counters: Counters,
    private readonly now: () => number = Date.now,
  ) {}

  /** Counts the request against the per-second ceiling. */
  async checkBurst(a: Account): Promise<Denial | undefined> {
    const t = this.now();
    const second = Math.floor(t / 1000);
    const n = await this.counters.incr(`burst:${a.keyHash}:${second}`, 1, (second + 2) * 1000);
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
  async checkCaps(a: Account): Promise<Denial | undefined> {
    const t = this.now();
    const plan = usagePlan(a, t);
    if (a.tier === 'free') {
      const used = await this.counters.get(usedKey(a, plan.primary.id));
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
      const monthUsed = await this.counters.get(usedKey(a, monthly.window.id));
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
      const overage = await this.counters.get(overageKey(a, plan.primary.id));
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
  async consume(a: Account, points: number): Promise<UsageAfter> {
    const t = this.now();
    const plan = usagePlan(a, t);
    const key = usedKey(a, plan.primary.id);
    const granted = creditsAvailable(a, t);
    const creditsUsed = granted > 0 ? await this.counters.get(creditKey(a)) : 0;
    let used: number;
    let creditsLeft = Math.max(0, granted - creditsUsed);
    if (points > 0) {
      const before = await this.counters.get(key);
      used = await this.counters.incr(key, points, plan.primary.endMs);
      const split = splitPoints(before, points, plan.included, creditsLeft);
      if (split.credits > 0) {
        await this.counters.incr(creditKey(a), split.credits, a.creditsExpiryMs ?? FAR_FUTURE);
        creditsLeft -= split.credits;
      }
      if (split.overage > 0 && a.tier !== 'free') {
        await this.counters.incr(overageKey(a, plan.primary.id), split.overage, plan.primary.endMs);
      }
    } else {
      used = await this.counters.get(key);
    }
    let monthlyUsed: number | undefined;
    if (plan.monthly) {
      const mk = usedKey(a, plan.monthly.window.id);
      monthlyUsed =
        points > 0
          ? await this.counters.incr(mk, points, plan.monthly.window.endMs)
          : await this.counters.get(mk);
    }
    return { points, plan, used, monthlyUsed, creditsLeft };
  }

  /** The usage headers of a metered response. */
  usageHeaders(a: Account, u: UsageAfter): Record<string, string> {
    const h: Record<string, string> = {
      'X-Datapoints': String(u.points),
      'X-Datapoints-Used': String(u.used),
      'X-Datapoints-Remaining': String(Math.max(0, u.plan.included - u.used)),
      'X-Datapoints-Limit': String(u.plan.included),
      'X-Datapoints-Period': u.plan.primary.name,
      'X-Datapoints-Reset': new Date(u.plan.primary.endMs).toISOString(),
    };
    if (u.creditsLeft > 0) {
      h['X-Datapoints-Credit-Balance'] = String(u.creditsLeft);
      if (a.creditsExpiryMs !== null)
        h['X-Datapoints-Credit-Expiry'] = new Date(a.creditsExpiryMs).toISOString();
    }
    if (u.plan.monthly && u.monthlyUsed !== undefined) {
      h['X-Datapoints-Monthly-Used'] = String(u.monthlyUsed);
      h['X-Datapoints-Monthly-Remaining'] = String(Math.max(0, u.plan.monthly.cap - u.monthlyUsed));
      h['X-Datapoints-Monthly-Reset'] = new Date(u.plan.monthly.window.endMs).toISOString();
    }
    return h;
  }

  /** What the plan allows, on every metered response. */
  entitlementHeaders(a: Account): Record<string, string> {
    const e = a.entitlements;
    const list = (v: readonly number[] | 'all') => (v === 'all' ? 'all' : v.join(','));
    return {
      'X-Tier': tierLabel(a.tier),
      'X-Rate-Limit': String(e.burstPerSecond),
      'X-Data-Delay-Seconds': String(e.delaySeconds),
      'X-Bookmakers': list(e.bookmakers),
      'X-Periods': list(e.periods),
      'X-History-Access': String(e.historyDays),
      'X-Live-Odds-Access': String(e.liveOdds),
      'X-Websocket-Access': String(e.websocket),
    };
  }
}
