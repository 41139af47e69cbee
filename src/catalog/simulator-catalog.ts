import { AFFILIATES } from './affiliates.ts';
import { MARKET_DEFINITIONS } from './markets.ts';
import { type CatalogRecord, keepCatalogText } from './records.ts';
import { rosterOf } from './rosters/index.ts';
import { SPORTS } from './sports.ts';
import { STAT_DEFINITIONS } from './stats.ts';
import { leagues } from './teams/index.ts';

/**
 * The catalog the built-in simulator plays with, as catalog records: the code's tables of sports,
 * books, market definitions, stat definitions, leagues, teams and rosters. The simulator writes them as change-log
 * rows (only those that differ from the committed catalog), and a store made before the catalog
 * was rows takes them at open (docs/feeds.md). Made at the first call and kept, frozen, with each
 * record's JSON (`catalogText`): every start compares or writes all of them (a test process starts
 * dozens of servers), and the board holds the same objects and texts (about 0.6 MB of heap besides).
 */
export function simulatorCatalog(): readonly CatalogRecord[] {
  made ??= Object.freeze(build().map(keepCatalogText));
  return made;
}

let made: readonly CatalogRecord[] | undefined;

function build(): CatalogRecord[] {
  const out: CatalogRecord[] = [];
  for (const s of SPORTS) out.push({ type: 'sport', ...s });
  for (const { affiliate_id, affiliate_name, affiliate_url, status, regions } of AFFILIATES)
    out.push({ type: 'book', affiliate_id, affiliate_name, affiliate_url, status, regions });
  for (const m of MARKET_DEFINITIONS) out.push({ type: 'market', ...m });
  for (const sport of SPORTS) {
    const stats = STAT_DEFINITIONS.filter((d) => d.sport_id === sport.sport_id).map(
      ({ id, name, display_name, abbreviation, category, description, scope }) => ({
        id,
        name,
        display_name,
        abbreviation,
        category,
        description,
        scope,
      }),
    );
    // A sport without a box score (politics, golf, motor racing) has no record.
    if (stats.length > 0) out.push({ type: 'stats', sport_id: sport.sport_id, stats });
  }
  const teams = new Set<number>();
  for (const league of leagues) {
    for (const t of league.teams) {
      if (teams.has(t.team_id)) continue;
      teams.add(t.team_id);
      out.push({ type: 'team', ...t });
      const players = rosterOf(t.team_id)!.map(({ team_id: _team, ...p }) => p);
      out.push({ type: 'roster', team_id: t.team_id, players });
    }
    out.push({
      type: 'league',
      league_key: league.key,
      league_name: league.league_name,
      sport_ids: [...league.sport_ids],
      team_ids: league.teams.map((t) => t.team_id),
    });
  }
  return out;
}
