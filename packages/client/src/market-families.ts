/**
 * The spec's prematch to in-play market pairs (Market IDs: in-play variants). Live rows keep their
 * in-play id; a client treats each pair as one logical market, named by its prematch id.
 * test/unit/client-rules.test.ts ties this table to the server's catalogue.
 */
export const LIVE_VARIANTS: ReadonlyMap<number, number> = new Map([
  [1, 41],
  [2, 42],
  [3, 43],
  [29, 90],
  [39, 91],
  [38, 92],
  [94, 96],
  [563, 1105],
  [35, 982],
  [98, 983],
  [33, 984],
  [87, 985],
  [88, 986],
  [93, 987],
  [297, 988],
  [99, 989],
  [298, 990],
  [1150, 1154],
  [1151, 1155],
  [1152, 1156],
  [1153, 1157],
]);

const PREMATCH_OF: ReadonlyMap<number, number> = new Map([...LIVE_VARIANTS].map(([pre, live]) => [live, pre]));

/** The logical market of a row: the prematch id of an in-play id, else the id itself. */
export function logicalMarketId(marketId: number): number {
  return PREMATCH_OF.get(marketId) ?? marketId;
}

export function isInPlay(marketId: number): boolean {
  return PREMATCH_OF.has(marketId);
}

/** The ids with every in-play variant added: the markets delta filters market_ids literally. */
export function withInPlayVariants(marketIds: readonly number[]): number[] {
  const out = new Set(marketIds);
  for (const id of marketIds) {
    const live = LIVE_VARIANTS.get(id);
    if (live !== undefined) out.add(live);
  }
  return [...out];
}
