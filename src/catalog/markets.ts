import type { MarketDefinition } from '../domain/types.ts';

const UPDATED_AT = '2026-09-01T00:00:00Z';

interface Def {
  id: number;
  name: string;
  short: string;
  period_id: number;
  live?: number;
  prop?: boolean;
  participantLine?: boolean;
  /** A period market's full-game market (4 -> 1): include=all_periods widens a request by it. */
  fullGame?: number;
}

const defs: Def[] = [
  { id: 1, name: 'Moneyline', short: 'ML', period_id: 0, live: 41, participantLine: true },
  { id: 2, name: 'Point Spread', short: 'Spread', period_id: 0, live: 42 },
  { id: 3, name: 'Total Over/Under', short: 'Total', period_id: 0, live: 43 },
  { id: 4, name: '1st Half Moneyline', short: '1H ML', period_id: 1, participantLine: true, fullGame: 1 },
  { id: 5, name: '1st Half Point Spread', short: '1H Spread', period_id: 1, fullGame: 2 },
  { id: 6, name: '1st Half Total', short: '1H Total', period_id: 1, fullGame: 3 },
  { id: 29, name: 'Player Points', short: 'PTS', period_id: 0, live: 90, prop: true },
  { id: 33, name: 'Player Turnovers', short: 'TO', period_id: 0, live: 984, prop: true },
  { id: 35, name: 'Player Rebounds', short: 'REB', period_id: 0, live: 982, prop: true },
  { id: 38, name: 'Player Three-Pointers Made', short: '3PM', period_id: 0, live: 92, prop: true },
  { id: 39, name: 'Player Assists', short: 'AST', period_id: 0, live: 91, prop: true },
  { id: 41, name: 'Moneyline (Live)', short: 'Live ML', period_id: 0, participantLine: true },
  { id: 42, name: 'Point Spread (Live)', short: 'Live Spread', period_id: 0 },
  { id: 43, name: 'Total Over/Under (Live)', short: 'Live Total', period_id: 0 },
  { id: 87, name: 'Double Double', short: 'DD', period_id: 0, live: 985, prop: true, participantLine: true },
  { id: 88, name: 'Triple Double', short: 'TD', period_id: 0, live: 986, prop: true, participantLine: true },
  { id: 90, name: 'Player Points (Live)', short: 'Live PTS', period_id: 0, prop: true },
  { id: 91, name: 'Player Assists (Live)', short: 'Live AST', period_id: 0, prop: true },
  { id: 92, name: 'Player Three-Pointers Made (Live)', short: 'Live 3PM', period_id: 0, prop: true },
  { id: 93, name: 'Player Points + Rebounds + Assists', short: 'PRA', period_id: 0, live: 987, prop: true },
  { id: 94, name: 'Team Totals', short: 'Team Total', period_id: 0, live: 96 },
  { id: 96, name: 'Team Totals (Live)', short: 'Live Team Total', period_id: 0 },
  { id: 98, name: 'Player Blocks', short: 'BLK', period_id: 0, live: 983, prop: true },
  { id: 99, name: 'Player Points + Assists', short: 'P+A', period_id: 0, live: 989, prop: true },
  { id: 297, name: 'Player Points + Rebounds', short: 'P+R', period_id: 0, live: 988, prop: true },
  { id: 298, name: 'Player Rebounds + Assists', short: 'R+A', period_id: 0, live: 990, prop: true },
  {
    id: 563,
    name: '3-Way Regulation Result',
    short: '3-Way Reg',
    period_id: 0,
    live: 1105,
    participantLine: true,
  },
  { id: 982, name: 'Player Rebounds (Live)', short: 'Live REB', period_id: 0, prop: true },
  { id: 983, name: 'Player Blocks (Live)', short: 'Live BLK', period_id: 0, prop: true },
  { id: 984, name: 'Player Turnovers (Live)', short: 'Live TO', period_id: 0, prop: true },
  {
    id: 985,
    name: 'Double Double (Live)',
    short: 'Live DD',
    period_id: 0,
    prop: true,
    participantLine: true,
  },
  {
    id: 986,
    name: 'Triple Double (Live)',
    short: 'Live TD',
    period_id: 0,
    prop: true,
    participantLine: true,
  },
  { id: 987, name: 'Player Points + Rebounds + Assists (Live)', short: 'Live PRA', period_id: 0, prop: true },
  { id: 988, name: 'Player Points + Rebounds (Live)', short: 'Live P+R', period_id: 0, prop: true },
  { id: 989, name: 'Player Points + Assists (Live)', short: 'Live P+A', period_id: 0, prop: true },
  { id: 990, name: 'Player Rebounds + Assists (Live)', short: 'Live R+A', period_id: 0, prop: true },
  { id: 1008, name: '2nd Half Moneyline', short: '2H ML', period_id: 2, participantLine: true, fullGame: 1 },
  { id: 1009, name: '2nd Half Point Spread', short: '2H Spread', period_id: 2, fullGame: 2 },
  { id: 1010, name: '2nd Half Total', short: '2H Total', period_id: 2, fullGame: 3 },
  {
    id: 1105,
    name: '3-Way Regulation Result (Live)',
    short: 'Live 3-Way Reg',
    period_id: 0,
    participantLine: true,
  },
  { id: 1150, name: 'Set 1 Moneyline', short: 'S1 ML', period_id: 3, live: 1154, participantLine: true, fullGame: 1 },
  { id: 1151, name: 'Set 1 Game Spread', short: 'S1 Spread', period_id: 3, live: 1155, fullGame: 2 },
  { id: 1152, name: 'Set 1 Total Games', short: 'S1 Total', period_id: 3, live: 1156, fullGame: 3 },
  { id: 1153, name: 'Set 2 Moneyline', short: 'S2 ML', period_id: 4, live: 1157, participantLine: true, fullGame: 1 },
  { id: 1154, name: 'Set 1 Moneyline (Live)', short: 'Live S1 ML', period_id: 15, participantLine: true },
  { id: 1155, name: 'Set 1 Game Spread (Live)', short: 'Live S1 Spread', period_id: 15 },
  { id: 1156, name: 'Set 1 Total Games (Live)', short: 'Live S1 Total', period_id: 15 },
  { id: 1157, name: 'Set 2 Moneyline (Live)', short: 'Live S2 ML', period_id: 16, participantLine: true },
  // Outrights of the futures boards (docs/spec-gaps.md): the spec names 1141, which every simulated
  // board uses; 1140 is still accepted from feeds.
  { id: 1140, name: 'Championship Winner', short: 'Champion', period_id: 0, participantLine: true },
  { id: 1141, name: 'Tournament Winner', short: 'Winner', period_id: 0, participantLine: true },
];

/** Every market definition, in id order. */
export const MARKET_DEFINITIONS: readonly MarketDefinition[] = [...defs]
  .sort((x, y) => x.id - y.id)
  .map((d) => ({
    id: d.id,
    name: d.name,
    description: d.name,
    short_description: d.short,
    line_value_is_participant: d.participantLine === true,
    proposition: d.prop === true,
    period_id: d.period_id,
    ...(d.live !== undefined ? { live_variant_id: d.live } : {}),
    updated_at: UPDATED_AT,
  }));

const byId = new Map(MARKET_DEFINITIONS.map((d) => [d.id, d]));

export function marketDefinition(marketId: number): MarketDefinition | undefined {
  return byId.get(marketId);
}

/** Display name of a market id; unknown ids (from an ingest feed) get a neutral label. */
export function marketName(marketId: number): string {
  return byId.get(marketId)?.name ?? `Market ${marketId}`;
}

export function isPropMarket(marketId: number): boolean {
  return byId.get(marketId)?.proposition === true;
}

/**
 * Live variants that REST event endpoints and stream subscriptions add on their own
 * (spec: 1 to 41, 2 to 42, 3 to 43, 94 to 96 and the tennis set markets).
 */
export const AUTO_LIVE_VARIANTS: ReadonlyMap<number, number> = new Map([
  [1, 41],
  [2, 42],
  [3, 43],
  [94, 96],
  [1150, 1154],
  [1151, 1155],
  [1152, 1156],
  [1153, 1157],
]);

/** The market ids a request names, with the automatic live variants added. */
export function withLiveVariants(marketIds: readonly number[]): number[] {
  const out = new Set(marketIds);
  for (const id of marketIds) {
    const live = AUTO_LIVE_VARIANTS.get(id);
    if (live !== undefined) out.add(live);
  }
  return [...out];
}

/** The full-game market of each period market, and the period markets of each full-game one. */
const fullGameOf = new Map(defs.filter((d) => d.fullGame !== undefined).map((d) => [d.id, d.fullGame as number]));
const periodMarketsOf = new Map<number, number[]>();
for (const [id, full] of fullGameOf) periodMarketsOf.set(full, [...(periodMarketsOf.get(full) ?? []), id]);

/**
 * include=all_periods: the market ids a request names, with every period's market of the same
 * families (a moneyline id brings the half and set moneylines; a live or period id its family's
 * full-game market too). Live variants are added afterwards by withLiveVariants.
 */
export function withPeriodMarkets(marketIds: readonly number[]): number[] {
  const out = new Set(marketIds);
  for (const id of marketIds) {
    const prematch = prematchMarketId(id);
    const full = fullGameOf.get(prematch) ?? prematch;
    const periods = periodMarketsOf.get(full);
    if (!periods) continue;
    out.add(full);
    for (const p of periods) out.add(p);
  }
  return [...out];
}

/** True for an in-play market id (41, 42, 43, live props, live set markets ...). */
export function isLiveVariant(marketId: number): boolean {
  return prematchOf.has(marketId);
}

/** Prematch market id of a live variant (41 -> 1), or the id itself. */
const prematchOf = new Map(defs.filter((d) => d.live !== undefined).map((d) => [d.live as number, d.id]));
export function prematchMarketId(marketId: number): number {
  return prematchOf.get(marketId) ?? marketId;
}

/** The outright markets of futures boards: a season's champion and a tournament's (or race's) winner. */
export const CHAMPIONSHIP_WINNER = 1140;
export const TOURNAMENT_WINNER = 1141;
export const FUTURES_MARKET_IDS: readonly number[] = [CHAMPIONSHIP_WINNER, TOURNAMENT_WINNER];

export function isFuturesMarket(marketId: number): boolean {
  return marketId === CHAMPIONSHIP_WINNER || marketId === TOURNAMENT_WINNER;
}

/** Market ids of each kind, prematch and in play, across full game, halves and tennis sets. */
export const MONEYLINE: ReadonlySet<number> = new Set([1, 41, 4, 1008, 1150, 1154, 1153, 1157]);
export const SPREAD: ReadonlySet<number> = new Set([2, 42, 5, 1009, 1151, 1155]);
export const TOTAL: ReadonlySet<number> = new Set([3, 43, 6, 1010, 1152, 1156]);
