/** At most this many market ids a snapshot request (spec: market_ids at most 12). */
const MARKETS_PER_REQUEST = 12;

/** Market ids, once each, in groups a request takes. */
export function inGroups(ids: readonly number[]): number[][] {
  const sorted = [...new Set(ids)].sort((a, b) => a - b);
  const groups: number[][] = [];
  for (let i = 0; i < sorted.length; i += MARKETS_PER_REQUEST) groups.push(sorted.slice(i, i + MARKETS_PER_REQUEST));
  return groups;
}
