import { marketDefinition } from '../../catalog/markets.ts';
import type { SportProfile } from '../../catalog/sports.ts';
import type { Segment } from './game.ts';

/**
 * Which markets an event carries in each phase, what part of the game each one is about and how
 * it is shaped. Prematch ids close when play starts; their live variants take over.
 */

export type OfferKind = 'ml' | 'ml3' | 'spread' | 'total';

/** Books choose per group whether they price it, so that not every book prices every market. */
export type OfferGroup = 'core' | 'three_way' | 'half' | 'set';

export interface Offer {
  marketId: number;
  periodId: number;
  kind: OfferKind;
  segment: Segment;
  group: OfferGroup;
}

/** Spec: tennis full-match markets use period 0 prematch and 7 live. */
const TENNIS_LIVE_MATCH_PERIOD = 7;

function offer(marketId: number, kind: OfferKind, segment: Segment, group: OfferGroup, periodId?: number): Offer {
  return { marketId, periodId: periodId ?? marketDefinition(marketId)?.period_id ?? 0, kind, segment, group };
}

function core(sport: SportProfile, ids: [number, number, number], live: boolean): Offer[] {
  const d = sport.discipline;
  const period = live && d === 'tennis' ? TENNIS_LIVE_MATCH_PERIOD : undefined;
  const out = [offer(ids[0], d === 'soccer' ? 'ml3' : 'ml', 'game', 'core', period)];
  if (d === 'politics') return out;
  // Spec: UFC/MMA has no spread market.
  if (d !== 'mma') out.push(offer(ids[1], 'spread', 'game', 'core', period));
  out.push(offer(ids[2], 'total', 'game', 'core', period));
  return out;
}

function halves(sport: SportProfile, first: boolean): Offer[] {
  const d = sport.discipline;
  if (d !== 'football' && d !== 'basketball' && d !== 'soccer') return [];
  const [ml, spread, total] = first ? [4, 5, 6] : [1008, 1009, 1010];
  const segment: Segment = first ? 'first_half' : 'second_half';
  return [
    offer(ml, d === 'soccer' ? 'ml3' : 'ml', segment, 'half'),
    offer(spread, 'spread', segment, 'half'),
    offer(total, 'total', segment, 'half'),
  ];
}

/** Markets before the start. Far-future events carry the core markets only. */
export function prematchOffers(sport: SportProfile, far: boolean): Offer[] {
  const out = core(sport, [1, 2, 3], false);
  if (far) return out;
  if (sport.three_way) out.push(offer(563, 'ml3', 'regulation', 'three_way'));
  out.push(...halves(sport, true));
  if (sport.discipline === 'tennis') {
    out.push(
      offer(1150, 'ml', 'set1', 'set'),
      offer(1151, 'spread', 'set1', 'set'),
      offer(1152, 'total', 'set1', 'set'),
      offer(1153, 'ml', 'set2', 'set'),
    );
  }
  return out;
}

/**
 * Markets in play. First-half markets keep their ids until halftime; second-half markets open
 * at halftime; a market whose segment is decided closes (the engine has no outlook for it).
 */
export function liveOffers(sport: SportProfile): Offer[] {
  const out = core(sport, [41, 42, 43], true);
  if (sport.three_way) out.push(offer(1105, 'ml3', 'regulation', 'three_way'));
  out.push(...halves(sport, true), ...halves(sport, false));
  if (sport.discipline === 'tennis') {
    out.push(
      offer(1154, 'ml', 'set1', 'set'),
      offer(1155, 'spread', 'set1', 'set'),
      offer(1156, 'total', 'set1', 'set'),
      offer(1157, 'ml', 'set2', 'set'),
    );
  }
  return out;
}
