import { type Tier, tierLabel } from '../catalog/tiers.ts';

/** What a plan may do. Numbers from the spec's tier table; coverage and windows are ours (spec-gaps). */
export interface Entitlements {
  tier: Tier;
  /** Included data points per billing period (Free: per day). */
  includedPoints: number;
  /** Free only: the calendar-month cap on top of the daily one. */
  monthlyCap?: number;
  /** US dollars per point past the included ones; undefined: no overage (Free stops at its caps). */
  overagePerPoint?: number;
  burstPerSecond: number;
  delaySeconds: number;
  websocket: boolean;
  playerProps: boolean;
  /** live_game_state, plays and live game-stat streams. */
  liveGameState: boolean;
  futures: boolean;
  /** In-play (live variant) markets. */
  liveOdds: boolean;
  /** Affiliate ids the plan covers, or every book. */
  bookmakers: readonly number[] | 'all';
  /** Period ids the plan covers, or every period. */
  periods: readonly number[] | 'all';
  /** Days back from today (UTC) that date-scoped requests may reach. */
  historyDays: number;
  /** Concurrent WebSocket connections and subscriptions per connection. */
  wsConnections: number;
  wsSubscriptionsPerConnection: number;
}

const MAJOR_BOOKS = [19, 22, 23, 24] as const;
const US_BOOKS = [4, 6, 11, 14, 19, 22, 23, 24, 25, 26] as const;

const TABLE: Record<Tier, Omit<Entitlements, 'tier'>> = {
  free: {
    includedPoints: 20_000,
    monthlyCap: 200_000,
    burstPerSecond: 1,
    delaySeconds: 300,
    websocket: false,
    playerProps: false,
    liveGameState: false,
    futures: false,
    liveOdds: false,
    bookmakers: MAJOR_BOOKS,
    periods: [0],
    historyDays: 7,
    wsConnections: 0,
    wsSubscriptionsPerConnection: 0,
  },
  starter: {
    includedPoints: 5_000_000,
    overagePerPoint: 0.002,
    burstPerSecond: 2,
    delaySeconds: 60,
    websocket: false,
    playerProps: true,
    liveGameState: false,
    futures: false,
    liveOdds: true,
    bookmakers: US_BOOKS,
    periods: [0, 1, 2],
    historyDays: 30,
    wsConnections: 0,
    wsSubscriptionsPerConnection: 0,
  },
  pro: {
    includedPoints: 25_000_000,
    overagePerPoint: 0.001,
    burstPerSecond: 5,
    delaySeconds: 30,
    websocket: false,
    playerProps: true,
    liveGameState: false,
    futures: false,
    liveOdds: true,
    bookmakers: 'all',
    periods: 'all',
    historyDays: 365,
    wsConnections: 0,
    wsSubscriptionsPerConnection: 0,
  },
  ultra: {
    includedPoints: 100_000_000,
    overagePerPoint: 0.0005,
    burstPerSecond: 10,
    delaySeconds: 0,
    websocket: true,
    playerProps: true,
    liveGameState: true,
    futures: true,
    liveOdds: true,
    bookmakers: 'all',
    periods: 'all',
    historyDays: 3 * 365,
    wsConnections: 5,
    wsSubscriptionsPerConnection: 50,
  },
  super: {
    includedPoints: 250_000_000,
    overagePerPoint: 0.0004,
    burstPerSecond: 15,
    delaySeconds: 0,
    websocket: true,
    playerProps: true,
    liveGameState: true,
    futures: true,
    liveOdds: true,
    bookmakers: 'all',
    periods: 'all',
    historyDays: 5 * 365,
    wsConnections: 10,
    wsSubscriptionsPerConnection: 100,
  },
  mega: {
    includedPoints: 500_000_000,
    overagePerPoint: 0.0003,
    burstPerSecond: 20,
    delaySeconds: 0,
    websocket: true,
    playerProps: true,
    liveGameState: true,
    futures: true,
    liveOdds: true,
    bookmakers: 'all',
    periods: 'all',
    historyDays: 10 * 365,
    wsConnections: 20,
    wsSubscriptionsPerConnection: 200,
  },
  max: {
    includedPoints: 2_500_000_000,
    overagePerPoint: 0.0001,
    burstPerSecond: 50,
    delaySeconds: 0,
    websocket: true,
    playerProps: true,
    liveGameState: true,
    futures: true,
    liveOdds: true,
    bookmakers: 'all',
    periods: 'all',
    historyDays: 10 * 365,
    wsConnections: 50,
    wsSubscriptionsPerConnection: 500,
  },
  enterprise: {
    includedPoints: 10_000_000_000,
    overagePerPoint: 0.00005,
    burstPerSecond: 100,
    delaySeconds: 0,
    websocket: true,
    playerProps: true,
    liveGameState: true,
    futures: true,
    liveOdds: true,
    bookmakers: 'all',
    periods: 'all',
    historyDays: 20 * 365,
    wsConnections: 100,
    wsSubscriptionsPerConnection: 1000,
  },
};

/** Enterprise accounts may carry their own numbers; every other tier uses the table. */
export interface CustomLimits {
  includedPoints?: number;
  overagePerPoint?: number;
  burstPerSecond?: number;
}

export function entitlementsFor(tier: Tier, custom?: CustomLimits): Entitlements {
  const base: Entitlements = { tier, ...TABLE[tier] };
  if (tier !== 'enterprise' || !custom) return base;
  return {
    ...base,
    includedPoints: custom.includedPoints ?? base.includedPoints,
    overagePerPoint: custom.overagePerPoint ?? base.overagePerPoint,
    burstPerSecond: custom.burstPerSecond ?? base.burstPerSecond,
  };
}

/** The lowest tier that has a feature, for upgrade messages. */
export function lowestTierWith(feature: (e: Entitlements) => boolean): Tier | undefined {
  return (Object.keys(TABLE) as Tier[]).find((t) => feature(entitlementsFor(t)));
}

/**
 * The text of an entitlement refusal, in the wording existing clients recognise ("Futures markets
 * require Ultra plan or higher"); `plural` when the subject is ("markets", "streams").
 */
export function upgradeMessage(subject: string, minimum: Tier | undefined, plural = false): string {
  return minimum
    ? `${subject} ${plural ? 'require' : 'requires'} ${tierLabel(minimum)} plan or higher`
    : `${subject} ${plural ? 'are' : 'is'} not available`;
}
