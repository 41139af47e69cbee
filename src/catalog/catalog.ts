import type { Affiliate, MarketDefinition } from '../domain/types.ts';
import { isLiveVariant, isPropMarket } from './markets.ts';
import {
  type BookEntry,
  type CatalogRecord,
  catalogKey,
  type LeagueEntry,
  type MarketEntry,
  type SportEntry,
  type TeamEntry,
} from './records.ts';
import type { RosterPlayer } from './rosters/index.ts';
import { simulatorCatalog } from './simulator-catalog.ts';
import { type StatLookup, StatTable } from './stat-table.ts';
import type { SportStat } from './stats.ts';

/** The teams one sport id lists, in listing order, with every sport id of their league. */
export interface SportTeams {
  sport_ids: readonly number[];
  teams: readonly TeamEntry[];
}

/** What the records imply beyond themselves; made again after a change, on the first read. */
interface Derived {
  sports: readonly SportEntry[];
  books: readonly Affiliate[];
  markets: readonly MarketDefinition[];
  marketIds: readonly number[];
  /** The markets a market record names as its in-play variant. */
  liveIds: ReadonlySet<number>;
  /** Every sport's stat definitions, by sport id then listing order. */
  stats: readonly SportStat[];
  /** Each stat id's definition: the first sport's (in id order) that lists it. */
  statsById: ReadonlyMap<number, SportStat>;
  /** The sports (in id order) that list each stat id. */
  statSports: ReadonlyMap<number, readonly number[]>;
  bySport: ReadonlyMap<number, SportTeams>;
  /** A team's home league: the first league record that lists it. */
  homeOf: ReadonlyMap<number, LeagueEntry>;
}

/**
 * The current catalog: the newest record of every key among the committed catalog rows, as the
 * board holds it (each node builds it from the rows it applies, at a load and as they come). Every
 * lookup is a map read; the lists and what the leagues imply are made once per change of the
 * catalog, on the first read after it, so a request pays nothing for them.
 */
export class Catalog implements StatLookup {
  private readonly texts = new Map<string, string>();
  private readonly sportsById = new Map<number, SportEntry>();
  private readonly booksById = new Map<number, BookEntry>();
  private readonly marketsById = new Map<number, MarketDefinition>();
  private readonly leagues = new Map<string, LeagueEntry>();
  private readonly teamsById = new Map<number, TeamEntry>();
  private readonly rosters = new Map<number, readonly RosterPlayer[]>();
  private readonly players = new Map<number, RosterPlayer>();
  private readonly statTables = new Map<number, StatTable>();
  /** A stats record (or a removal of one) was ever put: from then on the catalog's own stats hold. */
  private statRecords = false;
  /** Keys whose newest record is a removal. */
  private readonly removed = new Set<string>();
  private derived: Derived | undefined;
  /** Raised by every change: a reader caching what it made of the catalog compares it. */
  version = 0;

  get size(): number {
    return this.texts.size;
  }

  /** The JSON of the current record of a key, as its row's payload holds it. */
  textOf(key: string): string | undefined {
    return this.texts.get(key);
  }

  /** The JSON of every current record, as `put` took them (a board snapshot keeps them so). */
  allTexts(): IterableIterator<string> {
    return this.texts.values();
  }

  /** Applies a record: it replaces the record of its key (a removal takes that record out). */
  put(record: CatalogRecord, text = JSON.stringify(record)): void {
    const key = catalogKey(record);
    this.texts.set(key, text);
    if (record.type === 'removal') this.removed.add(key);
    else this.removed.delete(key);
    this.version++;
    this.derived = undefined;
    switch (record.type) {
      case 'sport':
        this.sportsById.set(record.sport_id, record);
        break;
      case 'book':
        this.booksById.set(record.affiliate_id, record);
        break;
      case 'market':
        this.marketsById.set(record.id, servedMarket(record));
        break;
      case 'league':
        this.leagues.set(record.league_key, record);
        break;
      case 'team':
        this.teamsById.set(record.team_id, record);
        break;
      case 'roster': {
        for (const p of this.rosters.get(record.team_id) ?? []) this.players.delete(p.player_id);
        const roster = record.players.map((p) =>
          Object.freeze({
            player_id: p.player_id,
            name: p.name,
            first_name: p.first_name,
            last_name: p.last_name,
            position: p.position,
            jersey_number: p.jersey_number,
            team_id: record.team_id,
          }),
        );
        this.rosters.set(record.team_id, Object.freeze(roster));
        for (const p of roster) this.players.set(p.player_id, p);
        break;
      }
      case 'stats':
        this.statTables.set(record.sport_id, new StatTable(record));
        this.statRecords = true;
        break;
      case 'removal':
        this.remove(record.key);
        break;
    }
  }

  /** Forgets the record of a key (`book:77`, `league:ppl`); its removal stays as the key's text. */
  private remove(key: string): void {
    const at = key.indexOf(':');
    const type = key.slice(0, at);
    const id = key.slice(at + 1);
    switch (type) {
      case 'sport':
        this.sportsById.delete(Number(id));
        break;
      case 'book':
        this.booksById.delete(Number(id));
        break;
      case 'market':
        this.marketsById.delete(Number(id));
        break;
      case 'league':
        this.leagues.delete(id);
        break;
      case 'team':
        this.teamsById.delete(Number(id));
        break;
      case 'roster':
        for (const p of this.rosters.get(Number(id)) ?? []) this.players.delete(p.player_id);
        this.rosters.delete(Number(id));
        break;
      case 'stats':
        this.statTables.delete(Number(id));
        this.statRecords = true;
        break;
    }
  }

  /** Whether the catalog holds a record under `key` (a removal is none). */
  holds(key: string): boolean {
    return this.texts.has(key) && !this.removed.has(key);
  }

  /** Forgets every record (a board reloaded from the store). */
  clear(): void {
    for (const m of [this.texts, this.sportsById, this.booksById, this.marketsById, this.leagues, this.teamsById])
      m.clear();
    this.rosters.clear();
    this.players.clear();
    this.statTables.clear();
    this.statRecords = false;
    this.removed.clear();
    this.derived = undefined;
    this.version++;
  }

  private get d(): Derived {
    if (this.derived) return this.derived;
    const byId = <T>(m: ReadonlyMap<number, T>) => [...m].sort(([a], [b]) => a - b).map(([, v]) => v);
    const bySport = new Map<number, SportTeams>();
    const homeOf = new Map<number, LeagueEntry>();
    for (const league of this.leagues.values()) {
      const teams = league.team_ids.flatMap((id) => {
        const t = this.teamsById.get(id);
        return t ? [t] : [];
      });
      for (const sportId of league.sport_ids) bySport.set(sportId, { sport_ids: league.sport_ids, teams });
      for (const t of teams) if (!homeOf.has(t.team_id)) homeOf.set(t.team_id, league);
    }
    const markets = byId(this.marketsById);
    const stats = byId(this.tables).flatMap((t) => t.list);
    const statsById = new Map<number, SportStat>();
    const statSports = new Map<number, number[]>();
    for (const stat of stats) {
      if (!statsById.has(stat.id)) statsById.set(stat.id, stat);
      const listing = statSports.get(stat.id);
      if (listing) listing.push(stat.sport_id);
      else statSports.set(stat.id, [stat.sport_id]);
    }
    this.derived = {
      sports: byId(this.sportsById),
      books: byId(this.booksById).map(({ affiliate_id, affiliate_name, affiliate_url, status, regions }) => ({
        affiliate_id,
        affiliate_name,
        affiliate_url,
        status,
        regions,
      })),
      markets,
      marketIds: markets.map((m) => m.id),
      liveIds: new Set(markets.flatMap((m) => (m.live_variant_id === undefined ? [] : [m.live_variant_id]))),
      stats,
      statsById,
      statSports,
      bySport,
      homeOf,
    };
    return this.derived;
  }

  sport(sportId: number): SportEntry | undefined {
    return this.sportsById.get(sportId);
  }

  /** Every sport, in id order. */
  sports(): readonly SportEntry[] {
    return this.d.sports;
  }

  book(affiliateId: number): BookEntry | undefined {
    return this.booksById.get(affiliateId);
  }

  /** Every book as /affiliates lists it, in id order. */
  books(): readonly Affiliate[] {
    return this.d.books;
  }

  market(marketId: number): MarketDefinition | undefined {
    return this.marketsById.get(marketId);
  }

  /** Every market definition as /markets lists it, in id order. */
  markets(): readonly MarketDefinition[] {
    return this.d.markets;
  }

  /** Every market id the catalog lists, in id order. */
  marketIds(): readonly number[] {
    return this.d.marketIds;
  }

  /**
   * Whether a market is a player prop, as its record says; for a market the catalog has no record
   * of (a store or recording made before markets were records), as the simulator's table says.
   */
  isProposition(marketId: number): boolean {
    return this.marketsById.get(marketId)?.proposition ?? isPropMarket(marketId);
  }

  /**
   * Whether a market is an in-play one: a market record names it as its `live_variant_id`; for a
   * market the catalog has no record of, as the simulator's table says.
   */
  isInPlay(marketId: number): boolean {
    return this.d.liveIds.has(marketId) || (!this.marketsById.has(marketId) && isLiveVariant(marketId));
  }

  /** Display name of a market id; one the catalog lacks gets a neutral label. */
  marketName(marketId: number): string {
    return this.marketsById.get(marketId)?.name ?? unlistedMarketName(marketId);
  }

  /** A sport's name; '' for one the catalog lacks. */
  sportName(sportId: number): string {
    return this.sportsById.get(sportId)?.sport_name ?? '';
  }

  /**
   * The market ids an event request of a sport gets without `market_ids` (spec: `1,2,3`, and
   * `1,2,3,563` for soccer and hockey): the 3-way regulation result where the sport's record says so.
   */
  defaultMarketIds(sportId: number | undefined): readonly number[] {
    return sportId !== undefined && this.sportsById.get(sportId)?.three_way ? THREE_WAY_DEFAULTS : TWO_WAY_DEFAULTS;
  }

  /** Every stat definition, by sport id then listing order (as /stats lists them). */
  stats(): readonly SportStat[] {
    return this.d.stats;
  }

  /**
   * A stat by its id alone, for what holds values of several sports (a season summed over a
   * league's regular season, preseason and playoff ids): the first sport's that lists it.
   */
  statById(statId: number): SportStat | undefined {
    return this.d.statsById.get(statId);
  }

  statOf(sportId: number, statId: number): SportStat | undefined {
    return this.tables.get(sportId)?.stat(statId);
  }

  sportsOfStat(statId: number): readonly number[] {
    return this.d.statSports.get(statId) ?? NO_SPORTS;
  }

  statNamed(sportId: number, name: string): SportStat | undefined {
    return this.tables.get(sportId)?.named(name);
  }

  /**
   * The sports' stat tables: the stats records', or, while the catalog has never had one (a store
   * or a recording made before stat definitions were records, whose boxes hold the simulator's
   * stat ids), the simulator's.
   */
  private get tables(): ReadonlyMap<number, StatTable> {
    return this.statRecords ? this.statTables : simulatorStatTables();
  }

  /** The teams a sport id lists, if any league lists it. */
  teamsOfSport(sportId: number): SportTeams | undefined {
    return this.d.bySport.get(sportId);
  }

  team(teamId: number): TeamEntry | undefined {
    return this.teamsById.get(teamId);
  }

  /** The sport ids of a team's home league (the first league that lists it). */
  homeSportIds(teamId: number): readonly number[] | undefined {
    return this.d.homeOf.get(teamId)?.sport_ids;
  }

  /** The sport id a team is listed under: its home league's first. */
  homeSportOf(teamId: number): number | undefined {
    return this.d.homeOf.get(teamId)?.sport_ids[0];
  }

  /** A team's players in roster order; empty when the catalog has no roster of it. */
  rosterOf(teamId: number): readonly RosterPlayer[] {
    return this.rosters.get(teamId) ?? [];
  }

  player(playerId: number): RosterPlayer | undefined {
    return this.players.get(playerId);
  }
}

/** The neutral label of a market id the catalog does not list. */
export function unlistedMarketName(marketId: number): string {
  return `Market ${marketId}`;
}

const NO_SPORTS: readonly number[] = Object.freeze([]);
const TWO_WAY_DEFAULTS: readonly number[] = Object.freeze([1, 2, 3]);
const THREE_WAY_DEFAULTS: readonly number[] = Object.freeze([1, 2, 3, 563]);

/** A market record as /markets serves it: the definition's fields in their order, no type. */
function servedMarket(r: MarketEntry): MarketDefinition {
  return {
    id: r.id,
    name: r.name,
    description: r.description,
    short_description: r.short_description,
    line_value_is_participant: r.line_value_is_participant,
    proposition: r.proposition,
    period_id: r.period_id,
    ...(r.live_variant_id !== undefined ? { live_variant_id: r.live_variant_id } : {}),
    updated_at: r.updated_at,
  };
}

let simulatorTables: ReadonlyMap<number, StatTable> | undefined;

/** The simulator's stat definitions as tables, made once. */
function simulatorStatTables(): ReadonlyMap<number, StatTable> {
  simulatorTables ??= new Map(
    simulatorCatalog().flatMap((r) => (r.type === 'stats' ? [[r.sport_id, new StatTable(r)] as const] : [])),
  );
  return simulatorTables;
}
