import type { FuturesBoardView, FuturesMarketView, FuturesParticipantView, FuturesPrice } from '../domain/futures.ts';
import type { FuturesBoardState } from './futures.ts';

/** What a futures request asks of each board, already checked against the caller's plan. */
export interface FuturesFilter {
  /** null: every market of the board. */
  marketIds: ReadonlySet<number> | null;
  /** null: every book. */
  affiliateIds: ReadonlySet<number> | null;
}

/** Whether the board has a market the filter asks for. */
export function boardMatches(state: FuturesBoardState, f: FuturesFilter): boolean {
  if (!f.marketIds) return true;
  for (const id of state.markets.keys()) if (f.marketIds.has(id)) return true;
  return false;
}

/**
 * The board as the filter shows it, with the prices it returns counted (the odds points of
 * metering). Participants without a price of a requested book are still listed, with no prices:
 * the field of a competition is part of the board.
 */
export function viewFutures(state: FuturesBoardState, f: FuturesFilter): { board: FuturesBoardView; prices: number } {
  let prices = 0;
  const markets: FuturesMarketView[] = [];
  for (const m of state.markets.values()) {
    if (f.marketIds && !f.marketIds.has(m.market_id)) continue;
    const participants: FuturesParticipantView[] = [];
    for (const p of m.participants.values()) {
      const out: Record<string, FuturesPrice> = {};
      for (const price of p.prices.values()) {
        if (f.affiliateIds && !f.affiliateIds.has(price.affiliate_id)) continue;
        out[String(price.affiliate_id)] = {
          affiliate_id: price.affiliate_id,
          price: price.price,
          price_delta: price.price_delta,
          updated_at: price.updated_at,
          closed_at: price.closed_at,
        };
        prices++;
      }
      const view: FuturesParticipantView = { id: p.id, name: p.name, type: p.type, prices: out };
      if (p.team_id !== undefined) view.team_id = p.team_id;
      participants.push(view);
    }
    markets.push({ market_id: m.market_id, name: m.name, participants });
  }
  const { markets: _header, ...header } = state.header;
  return { board: { ...header, updated_at: state.updated_at, settlement: state.settlement, markets }, prices };
}
