import { Type } from '@sinclair/typebox';

/**
 * The best-line answer (/api/v2/events/{eventID}/best-line, and per event on V1's best line), apart
 * from its route so that the typed client (packages/client) takes its type from it.
 */

export const BestAffiliateSchema = Type.Object({
  affiliate_id: Type.Integer(),
  affiliate_name: Type.String(),
  market_id: Type.Integer({ description: 'the market of the price: prematch or in-play id' }),
  price_id: Type.String({ description: 'Price.id of the event snapshot' }),
  updated_at: Type.String(),
});

const Price = (description: string) => Type.Number({ description: `${description}; 0.0001 when no book offers it` });
const Side = Type.Optional(BestAffiliateSchema);

export const BestLineSchema = Type.Object({
  event_id: Type.String(),
  period_id: Type.Integer(),
  moneyline: Type.Object({
    moneyline_away: Price('best away price'),
    moneyline_home: Price('best home price'),
    moneyline_draw: Type.Optional(Price('best draw price, where the moneyline has a draw')),
    best_affiliate_away: Side,
    best_affiliate_home: Side,
    best_affiliate_draw: Side,
  }),
  spread: Type.Object({
    point_spread_away: Price('points of the best away spread'),
    point_spread_home: Price('points of the best home spread'),
    point_spread_away_money: Price('its price'),
    point_spread_home_money: Price('its price'),
    best_affiliate_away: Side,
    best_affiliate_home: Side,
  }),
  total: Type.Object({
    total_over: Price('points of the best Over'),
    total_under: Price('points of the best Under'),
    total_over_money: Price('its price'),
    total_under_money: Price('its price'),
    best_affiliate_over: Side,
    best_affiliate_under: Side,
  }),
});
