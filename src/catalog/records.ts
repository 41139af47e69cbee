import type { Affiliate, MarketDefinition } from '../domain/types.ts';
import type { Discipline, SeasonTypeName } from './sports.ts';
import type { StatScope } from './stats.ts';
import type { TeamRecord } from './teams/types.ts';

/**
 * The catalog as change-log rows (kind `catalog`, docs/feeds.md): each record replaces the one of
 * its key (`catalogKey`), so the catalog is the newest record of every key. A feed sends them as
 * they are (`{kind: 'catalog', record}`); the simulator sends the tables it plays with.
 */

/** A sport: its id and name, and the discipline that decides its rules (periods, scores, stats). */
export interface SportEntry {
  type: 'sport';
  sport_id: number;
  sport_name: string;
  discipline: Discipline;
  season_type: SeasonTypeName;
  /** Moneyline, spread, total and the 3-way regulation result by default (soccer, hockey). */
  three_way: boolean;
  /** Outright boards only, no games (golf, motor racing). */
  futures_only: boolean;
}

/** A sportsbook (affiliate) as /affiliates lists it. */
export interface BookEntry extends Affiliate {
  type: 'book';
}

/** A market definition as /markets lists it. */
export interface MarketEntry extends MarketDefinition {
  type: 'market';
}

/**
 * The teams that one or more sport ids list, in listing order (an NBA's teams for its regular
 * season, preseason and playoff ids). A team listed by several leagues (a club in a European cup)
 * is at home in the first league record that lists it.
 */
export interface LeagueEntry {
  type: 'league';
  league_key: string;
  league_name: string;
  sport_ids: number[];
  team_ids: number[];
}

/** A team or an individual competitor. */
export interface TeamEntry extends TeamRecord {
  type: 'team';
}

/** One player of a roster. */
export interface RosterEntryPlayer {
  player_id: number;
  name: string;
  first_name: string;
  last_name: string;
  position: string;
  /** A string, as rosters serve it ("00" is not 0). */
  jersey_number: string;
}

/** A team's players in roster order (empty for a competitor without players). */
export interface RosterEntry {
  type: 'roster';
  team_id: number;
  players: RosterEntryPlayer[];
}

/** One game-stat definition of a sport, as /stats lists it (without the sport), and where it is kept. */
export interface StatEntryStat {
  /** Unique within the sport; a feed's own ids are kept as given. */
  id: number;
  name: string;
  display_name: string;
  abbreviation: string;
  category: string;
  description: string;
  /** `team`: the team's box only; `player`: players' lines only; `both`: a player's and the team's. */
  scope: StatScope;
}

/** A sport's game-stat definitions, in listing order: the stats its box scores and season stats keep. */
export interface StatsEntry {
  type: 'stats';
  sport_id: number;
  stats: StatEntryStat[];
}

/**
 * Takes a record out of the catalog: `key` is the removed record's key as `catalogKey` writes it
 * (`book:77`, `league:ppl`). It is that key's newest record from then on, so the catalog lists
 * nothing under it until a record of that key comes again; rows of any age that name the id stay
 * as they are (docs/spec-gaps.md: Catalog removals).
 */
export interface RemovalEntry {
  type: 'removal';
  key: string;
}

export type CatalogRecord =
  SportEntry | BookEntry | MarketEntry | LeagueEntry | TeamEntry | RosterEntry | StatsEntry | RemovalEntry;
export type CatalogType = CatalogRecord['type'];

/** A removal's key: a record type and its id (a league's key is its `league_key`). */
export const REMOVAL_KEY = '^(sport|book|market|team|roster|stats):[1-9][0-9]{0,9}$|^league:[A-Za-z0-9_.:-]{1,64}$';

/** What a record replaces: the record of the same type and id. */
export function catalogKey(r: CatalogRecord): string {
  switch (r.type) {
    case 'sport':
      return `sport:${r.sport_id}`;
    case 'book':
      return `book:${r.affiliate_id}`;
    case 'market':
      return `market:${r.id}`;
    case 'league':
      return `league:${r.league_key}`;
    case 'team':
      return `team:${r.team_id}`;
    case 'roster':
      return `roster:${r.team_id}`;
    case 'stats':
      return `stats:${r.sport_id}`;
    case 'removal':
      return r.key;
  }
}

/** The JSON of records made once and frozen (`keepCatalogText`); any other record is serialised. */
const keptTexts = new WeakMap<CatalogRecord, string>();

/** A record's JSON, as its row's payload holds it. */
export function catalogText(r: CatalogRecord): string {
  return keptTexts.get(r) ?? JSON.stringify(r);
}

/**
 * A copy of a record made from its JSON, frozen all the way down, with the JSON kept beside it: a
 * record sent again (the simulator's catalog, at every start) is compared or written without being
 * serialised again. The copy shares nothing with the tables it came from, which stay unfrozen.
 */
export function keepCatalogText<T extends CatalogRecord>(r: T): T {
  const text = JSON.stringify(r);
  const own = deepFreeze(JSON.parse(text) as T);
  keptTexts.set(own, text);
  return own;
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    for (const v of Object.values(value)) deepFreeze(v);
    Object.freeze(value);
  }
  return value;
}
