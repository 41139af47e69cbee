import { isOffBoard } from './odds.ts';

/** One book's open price on one side, as the best-line rule compares them. */
export interface Offer {
  line: string;
  price: number;
  affiliate_id: number;
}

export type BestRule = 'price' | 'most_points' | 'fewest_points';

/** Decimal payout of American odds: the larger, the better for the bettor. */
function payout(american: number): number {
  return american > 0 ? 1 + american / 100 : 1 + 100 / -american;
}

/**
 * Picks the offer best for the bettor. Moneylines compare price only; spreads prefer the most points
 * (+4.5 over +3.5, -3 over -3.5); an over prefers the lowest total and an under the highest. Ties go
 * to the better price, then to the lower affiliate id so the answer is stable. Off-board prices
 * (0.0001) are never best.
 */
export function bestOffer(offers: readonly Offer[], rule: BestRule): Offer | undefined {
  let best: Offer | undefined;
  for (const o of offers) {
    if (isOffBoard(o.price) || !Number.isFinite(o.price)) continue;
    if (!best || better(o, best, rule)) best = o;
  }
  return best;
}

function better(a: Offer, b: Offer, rule: BestRule): boolean {
  if (rule !== 'price') {
    const la = Number(a.line);
    const lb = Number(b.line);
    if (la !== lb) return rule === 'most_points' ? la > lb : la < lb;
  }
  const pa = payout(a.price);
  const pb = payout(b.price);
  if (pa !== pb) return pa > pb;
  return a.affiliate_id < b.affiliate_id;
}
