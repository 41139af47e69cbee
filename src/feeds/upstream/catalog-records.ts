import {
  NotFoundError,
  type OddsbaseClient,
  type SportTeam,
  type StatDefinition,
} from '../../../packages/client/src/index.ts';
import type { Catalog } from '../../catalog/catalog.ts';
import {
  type BookEntry,
  catalogKey,
  type CatalogRecord,
  type LeagueEntry,
  type RemovalEntry,
  type RosterEntry,
  type RosterEntryPlayer,
  type SportEntry,
  type StatEntryStat,
  type StatsEntry,
  type TeamEntry,
} from '../../catalog/records.ts';
import { type Discipline, DISCIPLINES } from '../../catalog/sports.ts';

/**
 * The upstream's catalog as catalog records (docs/feeds.md, "The catalog"): its sports, books,
 * market definitions, and each sport's teams with their rosters, read from the routes the spec
 * lists. The interface does not show everything a record holds; what it leaves out comes from the
 * record the mirror holds for that key (a sport's discipline and defaults, a team's venue, a
 * player's first and last names), else as said at each field. A record is built over the one held,
 * keeping its field order, so an unchanged upstream writes no row (the ledger skips a record equal
 * to the current one).
 */
export async function upstreamCatalog(
  client: OddsbaseClient,
  held: Catalog,
  signal: AbortSignal,
): Promise<CatalogRecord[]> {
  const out: CatalogRecord[] = [];
  const sports = (await client.sports({ signal })).data.sports;
  for (const s of sports) out.push(sportRecord(held, s.sport_id, s.sport_name));
  const books = (await client.affiliates({ include: ['regions'] }, { signal })).data.affiliates;
  for (const b of books) {
    const base = heldRecord<BookEntry>(held, `book:${b.affiliate_id}`);
    out.push({
      ...(base ?? { type: 'book' as const }),
      affiliate_id: b.affiliate_id,
      affiliate_name: b.affiliate_name,
      affiliate_url: b.affiliate_url,
      status: b.status as BookEntry['status'],
      regions: b.regions ?? base?.regions ?? [],
    });
  }
  // The definition whole, in the order /markets serves it (the simulator's records have it too).
  for (const m of (await client.markets({ signal })).data) out.push({ type: 'market', ...m });
  out.push(...withoutClashes(statsRecords(held, (await client.stats({}, { signal })).data), held));
  // Sports listing the same teams in the same order are one league (an NBA's season-type ids).
  const leagues = new Map<string, { sportIds: number[]; teams: SportTeam[] }>();
  for (const s of sports) {
    const teams = await teamsOf(client, s.sport_id, signal);
    if (teams.length === 0) continue;
    const key = teams.map((t) => t.team_id).join(',');
    const league = leagues.get(key);
    if (league) league.sportIds.push(s.sport_id);
    else leagues.set(key, { sportIds: [s.sport_id], teams });
  }
  const heldLeagues = [...held.allTexts()]
    .map((text) => JSON.parse(text) as CatalogRecord)
    .filter((r): r is LeagueEntry => r.type === 'league');
  const teamsDone = new Set<number>();
  for (const { sportIds, teams } of leagues.values()) {
    for (const t of teams) {
      if (teamsDone.has(t.team_id)) continue;
      teamsDone.add(t.team_id);
      out.push(teamRecord(held, t));
      out.push(await rosterRecord(client, held, t.team_id, signal));
    }
    const name = sports.find((s) => s.sport_id === sportIds[0])?.sport_name ?? '';
    out.push(leagueRecord(held, heldLeagues, sportIds, name, teams));
  }
  return out;
}

/**
 * Each sport's stat definitions, in the order /stats lists them. Where a stat's values are kept
 * (`scope`), which the interface does not show, comes from the held record's stat of that id,
 * else `both` (a player's and the team's: the mirror sets boxes as shown, so no value is refused);
 * a description the upstream does not give, likewise, else empty.
 */
function statsRecords(held: Catalog, defs: readonly StatDefinition[]): StatsEntry[] {
  const bySport = new Map<number, StatDefinition[]>();
  for (const d of defs) {
    const list = bySport.get(d.sport_id);
    if (list) list.push(d);
    else bySport.set(d.sport_id, [d]);
  }
  return [...bySport].map(([sportId, list]) => {
    const base = heldRecord<StatsEntry>(held, `stats:${sportId}`);
    const stats = list.map((d): StatEntryStat => {
      const was = base?.stats.find((s) => s.id === d.id);
      const description = (d as { description?: string }).description;
      return {
        id: d.id,
        name: d.name,
        display_name: d.display_name,
        abbreviation: d.abbreviation,
        category: d.category,
        description: description ?? was?.description ?? '',
        scope: was?.scope ?? 'both',
      };
    });
    return { type: 'stats', sport_id: sportId, stats };
  });
}

/**
 * The stats records with each stat id kept by one sport, as the ledger requires (stat ids are unique
 * across sports): an id the upstream lists for several sports stays with the first, and one that a
 * held sport the upstream no longer lists keeps stays there (the mirror removes nothing). A record
 * that gives up an id another record takes goes first, so the ledger sees the id freed before it
 * is taken.
 */
function withoutClashes(records: readonly StatsEntry[], held: Catalog): StatsEntry[] {
  const sent = new Set(records.map((r) => r.sport_id));
  const heldIds = new Map<number, number[]>();
  const owner = new Map<number, number>();
  for (const s of held.stats()) {
    heldIds.set(s.sport_id, [...(heldIds.get(s.sport_id) ?? []), s.id]);
    if (!sent.has(s.sport_id) && !owner.has(s.id)) owner.set(s.id, s.sport_id);
  }
  const kept = records.map((r) => ({
    ...r,
    stats: r.stats.filter((s) => {
      const taken = owner.get(s.id);
      if (taken !== undefined && taken !== r.sport_id) return false;
      owner.set(s.id, r.sport_id);
      return true;
    }),
  }));
  const freeing = (r: StatsEntry) => (heldIds.get(r.sport_id) ?? []).some((id) => owner.get(id) !== r.sport_id);
  return [...kept.filter(freeing), ...kept.filter((r) => !freeing(r))];
}

/** A sport's teams, none where the upstream lists none. */
async function teamsOf(client: OddsbaseClient, sportId: number, signal: AbortSignal): Promise<SportTeam[]> {
  return (await orNone(async () => (await client.teams(sportId, { signal })).data.teams)) ?? [];
}

/** The record the mirror holds for a key, as committed (its field order kept); none once removed. */
function heldRecord<T extends CatalogRecord>(held: Catalog, key: string): T | undefined {
  const text = held.textOf(key);
  return text === undefined || !held.holds(key) ? undefined : (JSON.parse(text) as T);
}

/**
 * A removal of each key the mirror holds that `listed` (the upstream's whole catalog, as
 * `upstreamCatalog` reads it) does not name: what the upstream stopped listing. Keys already removed
 * are not removed again.
 */
export function removalsOf(held: Catalog, listed: readonly CatalogRecord[]): RemovalEntry[] {
  const keep = new Set(listed.map(catalogKey));
  const out: RemovalEntry[] = [];
  for (const text of held.allTexts()) {
    const key = catalogKey(JSON.parse(text) as CatalogRecord);
    if (!keep.has(key) && held.holds(key)) out.push({ type: 'removal', key });
  }
  return out;
}

/**
 * A sport: its name from the upstream; its discipline and defaults, which the interface does not
 * show, from the held record, else guessed from the name (docs/spec-gaps.md).
 */
function sportRecord(held: Catalog, sportId: number, name: string): SportEntry {
  const base = heldRecord<SportEntry>(held, `sport:${sportId}`);
  if (base) return { ...base, sport_name: name };
  const discipline = disciplineOf(name);
  return {
    type: 'sport',
    sport_id: sportId,
    sport_name: name,
    discipline,
    season_type: 'Regular Season',
    three_way: discipline === 'soccer' || discipline === 'hockey',
    futures_only: discipline === 'golf' || discipline === 'motorsport',
  };
}

/** Words of sport names that tell their discipline; `football` when none does. */
const DISCIPLINE_WORDS: readonly [RegExp, Discipline][] = [
  [/\b(ufc|mma|fight|boxing)\b/i, 'mma'],
  [/\b(nascar|formula|f1|indycar|motogp|racing|motor)/i, 'motorsport'],
  [/\b(pga|lpga|golf)\b/i, 'golf'],
  [/\b(atp|wta|tennis)\b/i, 'tennis'],
  [/\b(nhl|hockey|khl|shl)\b/i, 'hockey'],
  [/\b(mlb|baseball|kbo|npb)\b/i, 'baseball'],
  [/\b(nba|wnba|ncaab|basketball|euroleague)\b/i, 'basketball'],
  [/\b(ipl|cricket|t20)\b/i, 'cricket'],
  [/\b(politics|election)/i, 'politics'],
  [/\b(mls|epl|soccer|liga|serie|bundesliga|uefa|fifa)\b/i, 'soccer'],
];

function disciplineOf(name: string): Discipline {
  const found = DISCIPLINE_WORDS.find(([words]) => words.test(name))?.[1];
  return found ?? DISCIPLINES[0];
}

/** A team as a sport lists it; its venue, which the listing does not show, as held ('' for a new team). */
function teamRecord(held: Catalog, t: SportTeam): TeamEntry {
  const base = heldRecord<TeamEntry>(held, `team:${t.team_id}`);
  return {
    ...(base ?? { type: 'team' as const }),
    team_id: t.team_id,
    name: t.name,
    mascot: t.mascot,
    abbreviation: t.abbreviation,
    conference: t.conference.name,
    division: t.division.name,
    venue_name: base?.venue_name ?? '',
    venue_location: base?.venue_location ?? '',
  };
}

/**
 * A team's roster in the upstream's order. The roster route shows no first and last names: a
 * player the mirror holds keeps them, and one it does not is read once from `/players/{id}`.
 */
async function rosterRecord(
  client: OddsbaseClient,
  held: Catalog,
  teamId: number,
  signal: AbortSignal,
): Promise<RosterEntry> {
  const players = await orNone(async () => (await client.roster(teamId, { signal })).data.players);
  const base = heldRecord<RosterEntry>(held, `roster:${teamId}`);
  const known = new Map((base?.players ?? []).map((p) => [p.player_id, p]));
  const out: RosterEntryPlayer[] = [];
  for (const p of players ?? []) {
    const player = known.get(p.player_id);
    const names = player ?? held.player(p.player_id) ?? (await client.player(p.player_id, { signal })).data;
    out.push({
      ...(player ?? {}),
      player_id: p.player_id,
      name: p.name,
      first_name: names.first_name,
      last_name: names.last_name,
      position: p.position,
      jersey_number: p.jersey_number,
    });
  }
  return { ...(base ?? { type: 'roster' as const }), team_id: teamId, players: out };
}

/**
 * The league of sports that list the same teams: a held league of those very sports keeps its key
 * and name; else one keyed by its first sport (`upstream-<sport id>`), named after it.
 */
function leagueRecord(
  held: Catalog,
  heldLeagues: readonly LeagueEntry[],
  sportIds: number[],
  name: string,
  teams: readonly SportTeam[],
): LeagueEntry {
  const ids = new Set(sportIds);
  const team_ids = teams.map((t) => t.team_id);
  const same = heldLeagues.find((r) => r.sport_ids.length === ids.size && r.sport_ids.every((id) => ids.has(id)));
  if (same) return { ...same, team_ids };
  const key = `upstream-${sportIds[0]}`;
  const base = heldRecord<LeagueEntry>(held, `league:${key}`);
  return {
    ...(base ?? { type: 'league' as const, league_key: key }),
    league_name: name,
    sport_ids: sportIds,
    team_ids,
  };
}

/** What `read` answers, or undefined where the upstream has no such thing (404). */
async function orNone<T>(read: () => Promise<T>): Promise<T | undefined> {
  try {
    return await read();
  } catch (err) {
    if (err instanceof NotFoundError) return undefined;
    throw err;
  }
}
