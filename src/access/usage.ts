import type { Account } from './authenticator.ts';

/** Data-point accounting periods. Pure functions of the account and the time. */

export type PeriodName = 'daily' | 'weekly' | 'monthly';

export interface PeriodWindow {
  name: PeriodName;
  /** Stable id of this window, part of the counter keys: '2026-11-23', '2026-11', 'w2026-11-19'. */
  id: string;
  startMs: number;
  endMs: number;
}

const DAY = 86_400_000;
const WEEK = 7 * DAY;

export function dailyWindow(now: number): PeriodWindow {
  const startMs = Math.floor(now / DAY) * DAY;
  return { name: 'daily', id: new Date(startMs).toISOString().slice(0, 10), startMs, endMs: startMs + DAY };
}

/** Calendar month in UTC. */
export function monthlyWindow(now: number): PeriodWindow {
  const d = new Date(now);
  const startMs = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
  const endMs = Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1);
  return { name: 'monthly', id: new Date(startMs).toISOString().slice(0, 7), startMs, endMs };
}

/** Seven-day windows counted from the account's creation. */
export function weeklyWindow(createdMs: number, now: number): PeriodWindow {
  const n = Math.max(0, Math.floor((now - createdMs) / WEEK));
  const startMs = createdMs + n * WEEK;
  return {
    name: 'weekly',
    id: `w${new Date(startMs).toISOString().slice(0, 10)}`,
    startMs,
    endMs: startMs + WEEK,
  };
}

export interface UsagePlan {
  /** The period the X-Datapoints-* headers describe and its included points. */
  primary: PeriodWindow;
  included: number;
  /** Free only: the calendar month and its cap. */
  monthly?: { window: PeriodWindow; cap: number };
}

/** Free: daily points plus a monthly cap; paid: monthly, or weekly at monthly x 12 / 52. */
export function usagePlan(account: Account, now: number): UsagePlan {
  const e = account.entitlements;
  if (account.tier === 'free') {
    return {
      primary: dailyWindow(now),
      included: e.includedPoints,
      monthly: { window: monthlyWindow(now), cap: e.monthlyCap ?? e.includedPoints * 10 },
    };
  }
  if (account.billing === 'weekly') {
    return {
      primary: weeklyWindow(account.createdMs, now),
      included: Math.round((e.includedPoints * 12) / 52),
    };
  }
  return { primary: monthlyWindow(now), included: e.includedPoints };
}

/** Bonus credits still usable now. */
export function creditsAvailable(account: Account, now: number): number {
  if (account.credits <= 0) return 0;
  if (account.creditsExpiryMs !== null && account.creditsExpiryMs <= now) return 0;
  return account.credits;
}

/**
 * How `points` more in a period split: first what remains of the included points, then bonus
 * credits, then overage (paid tiers only).
 */
export function splitPoints(
  usedBefore: number,
  points: number,
  included: number,
  creditsLeft: number,
): { included: number; credits: number; overage: number } {
  const fromIncluded = Math.max(0, Math.min(points, included - usedBefore));
  const rest = points - fromIncluded;
  const fromCredits = Math.min(rest, Math.max(0, creditsLeft));
  return { included: fromIncluded, credits: fromCredits, overage: rest - fromCredits };
}
