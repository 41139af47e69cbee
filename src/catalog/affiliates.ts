import type { Affiliate } from '../domain/types.ts';

/**
 * The sportsbooks the built-in simulator prices for. Names are fictional; ids follow the spec's
 * known ids (19 and 23 sportsbooks, 25 an event-contract exchange, 26 a prediction market, 28 beta).
 * `margin` is the book's overround on a two-way market and `noise` the spread of its opinion
 * around the model's fair price, in probability points.
 */
export interface AffiliateProfile extends Affiliate {
  kind: 'sportsbook' | 'exchange' | 'prediction_market';
  margin: number;
  noise: number;
  /** Share of alternate lines the book offers (0..1). */
  alternates: number;
  /** Whether the book offers player props. */
  props: boolean;
}

const a = (
  affiliate_id: number,
  affiliate_name: string,
  kind: AffiliateProfile['kind'],
  status: Affiliate['status'],
  margin: number,
  noise: number,
  alternates: number,
  props: boolean,
  regions: string[],
): AffiliateProfile => ({
  affiliate_id,
  affiliate_name,
  affiliate_url: `https://${affiliate_name.toLowerCase().replace(/[^a-z0-9]/g, '')}.example`,
  kind,
  status,
  margin,
  noise,
  alternates,
  props,
  regions,
});

export const AFFILIATES: readonly AffiliateProfile[] = [
  a(3, 'Sharpline', 'sportsbook', 'healthy', 0.025, 0.004, 1, false, ['eu', 'row']),
  a(4, 'Bayside Sports', 'sportsbook', 'healthy', 0.045, 0.01, 0.5, false, ['row']),
  a(6, 'Linehouse', 'sportsbook', 'healthy', 0.042, 0.009, 0.6, true, ['row']),
  a(11, 'Lowmargin', 'sportsbook', 'healthy', 0.032, 0.007, 0.4, false, ['row']),
  a(12, 'Northstake', 'sportsbook', 'unhealthy', 0.05, 0.012, 0.3, false, ['ca']),
  a(14, 'Harborbet', 'sportsbook', 'healthy', 0.048, 0.011, 0.5, true, ['eu']),
  a(16, 'Matchpool', 'exchange', 'healthy', 0.02, 0.006, 0.3, false, ['eu']),
  a(19, 'Kingsbook', 'sportsbook', 'healthy', 0.045, 0.008, 1, true, ['us']),
  a(22, 'Lionsgate Sports', 'sportsbook', 'healthy', 0.046, 0.009, 0.8, true, ['us']),
  a(23, 'Duelbet', 'sportsbook', 'healthy', 0.044, 0.008, 1, true, ['us']),
  a(24, 'Riverstake', 'sportsbook', 'healthy', 0.047, 0.01, 0.7, true, ['us']),
  a(25, 'Contract Exchange', 'exchange', 'healthy', 0.03, 0.007, 0.4, false, ['us']),
  a(26, 'Forecast Market', 'prediction_market', 'healthy', 0.02, 0.012, 0.2, false, ['row']),
  a(28, 'Newbook Beta', 'sportsbook', 'beta', 0.05, 0.014, 0.5, true, ['us']),
];
