import type { SubscriptionParams } from '../../src/stream/subscription.ts';

/** A subscription's parameters with no filter (every sport, event, market and book), changed by `p`. */
export function openParams(p: Partial<SubscriptionParams> = {}): SubscriptionParams {
  return {
    sportIds: null,
    eventIds: null,
    requestedMarketIds: undefined,
    marketIds: null,
    affiliateIds: null,
    mainLine: false,
    snapshot: false,
    offset: 0,
    conflate: false,
    ...p,
  };
}
